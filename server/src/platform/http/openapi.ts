// The OpenAPI 3.1 document, generated from the router by trpc-to-openapi, then corrected so that it describes
// what clients really receive: every error response uses our bodies (PublicError `{error, input?}` on public
// routes, V1Error `{code, message}` on /v1) instead of the generator's tRPC-shaped ones. Served at
// /openapi.json; /docs renders it with Swagger UI, whose assets come from the installed npm package.
import type { AnyTRPCRouter } from '@trpc/server';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { PublicErrorBodySchema, V1ErrorBodySchema } from '@sigil/contract/public';
import { faceOf } from './errors';
import type { ProcedureMeta } from '../../trpc/meta';

export interface OpenApiInfo {
  version: string;
  /** Base URL clients use (servers[0].url). */
  baseUrl: string;
}

const DESCRIPTION = [
  'Sigil: handles and names on an SVM chain, resolved over HTTP.',
  '',
  'Public routes (no prefix) need no key and answer errors as `{error, input?}`.',
  '`/v1` routes answer errors as `{code, message}`. Request bodies are JSON, at most 64 KiB.',
  'Every response carries `X-Request-Id` (send your own to correlate logs).',
].join('\n');

export function buildOpenApiDocument(router: AnyTRPCRouter, info: OpenApiInfo): OpenAPIObject {
  const doc = generateOpenApiDocument(router as unknown as OpenApiRouter, {
    title: 'Sigil',
    description: DESCRIPTION,
    version: info.version,
    openApiVersion: '3.1.0',
    baseUrl: info.baseUrl,
    securitySchemes: {
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
    defs: { PublicError: PublicErrorBodySchema, V1Error: V1ErrorBodySchema },
  });

  // The generator caches one error response per status code, so every route would show the first route's reason
  // for, say, 404. Each route's own `errors` text is taken from its meta instead.
  const reasons = new Map<string, Record<string, string>>();
  const procedures = (router as unknown as { _def: { procedures: Record<string, { _def?: { meta?: ProcedureMeta } }> } })._def.procedures;
  for (const procedure of Object.values(procedures)) {
    const openapi = procedure._def?.meta?.openapi;
    const errors = openapi?.errorResponses;
    if (openapi && errors && !Array.isArray(errors)) reasons.set(`${openapi.method.toLowerCase()} ${openapi.path}`, errors as Record<string, string>);
  }

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const ref = faceOf(path) === 'v1' ? '#/components/schemas/V1Error' : '#/components/schemas/PublicError';
    for (const [method, op] of Object.entries(item as Record<string, { responses?: Record<string, { description?: string }> }>)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        if (/^[2-3]/.test(status)) continue;
        op.responses[status] = {
          description: reasons.get(`${method} ${path}`)?.[status] ?? response.description ?? 'Error',
          content: { 'application/json': { schema: { $ref: ref } } },
        } as (typeof op.responses)[string];
      }
    }
  }
  // The generator's tRPC-shaped error schemas are no longer referenced.
  const schemas = doc.components?.schemas as Record<string, unknown> | undefined;
  for (const name of Object.keys(schemas ?? {})) if (name.startsWith('error.')) delete schemas![name];
  return doc;
}

export function registerDocs(app: FastifyInstance, doc: OpenAPIObject): void {
  const json = JSON.stringify(doc);
  app.get('/openapi.json', (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(json);
  });
  // @fastify/swagger in static mode only hands our document to the UI plugin; it generates nothing.
  app.register(fastifySwagger, { mode: 'static', specification: { document: doc as never } });
  app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
}
