// The OpenAPI 3.1 document, generated from the router by trpc-to-openapi, then corrected so that it describes
// what clients really receive: every error response uses our bodies (PublicError `{error, input?}` on public
// routes, V1Error `{code, message}` on /v1) instead of the generator's tRPC-shaped ones. Served at
// /openapi.json; /docs renders it with Swagger UI, whose assets come from the installed npm package.
import { API_KEY_HEADER } from '@sigil/contract/http-headers';
import type { AnyTRPCRouter } from '@trpc/server';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { PublicErrorBodySchema, V1ErrorBodySchema } from '@sigil/contract/public';
import { faceOf } from './errors';
import { PUBLIC_ERRORS, V1_ERRORS, type PublicErrorKey, type V1ErrorCode } from '@sigil/contract/errors';

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

/** What the document reads from a procedure's meta (trpc/meta.ts ProcedureMeta). */
interface DocumentedMeta {
  openapi?: { method: string; path: string };
  errors?: Partial<Record<string, DocumentedRow>>;
}

/** A code's reason, and another status the route also answers it with (trpc/meta.ts ErrorRow). */
type DocumentedRow = string | { reason: string; alsoStatus: number };

/** One response per status: its codes and reasons as the description, their enum in the body schema. */
function errorResponses(face: 'v1' | 'public', rows: Partial<Record<string, DocumentedRow>>): Record<string, unknown> {
  const byStatus = new Map<number, [code: string, reason: string][]>();
  for (const [code, row] of Object.entries(rows)) {
    const status = face === 'v1' ? V1_ERRORS[code as V1ErrorCode] : PUBLIC_ERRORS[code as PublicErrorKey]?.[0];
    if (status === undefined) throw new Error(`error code ${code} is not in the ${face} catalog`);
    const reason = typeof row === 'object' ? row.reason : (row ?? '');
    const statuses = typeof row === 'object' ? [status, row.alsoStatus] : [status];
    for (const s of statuses) byStatus.set(s, [...(byStatus.get(s) ?? []), [code, reason]]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = codes.map(([code, reason]) => (reason ? `\`${code}\`: ${reason}` : `\`${code}\``)).join('\n\n');
    const schema =
      face === 'v1'
        ? {
            allOf: [{ $ref: '#/components/schemas/V1Error' }],
            properties: { code: { enum: codes.map(([code]) => code) } },
          }
        : {
            allOf: [{ $ref: '#/components/schemas/PublicError' }],
            properties: { error: { enum: codes.map(([code]) => PUBLIC_ERRORS[code as PublicErrorKey][1]) } },
          };
    responses[String(status)] = { description, content: { 'application/json': { schema } } };
  }
  return responses;
}

export function buildOpenApiDocument(router: AnyTRPCRouter, info: OpenApiInfo): OpenAPIObject {
  const doc = generateOpenApiDocument(router as unknown as OpenApiRouter, {
    title: 'Sigil',
    description: DESCRIPTION,
    version: info.version,
    openApiVersion: '3.1.0',
    baseUrl: info.baseUrl,
    securitySchemes: {
      ApiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER },
    },
    defs: { PublicError: PublicErrorBodySchema, V1Error: V1ErrorBodySchema },
  });

  // Every error response is written from the route's own codes (meta.errors): one response per status, listing
  // that status's codes with their reasons, and a body schema whose `code` (public: `error`) is their enum.
  const procedures = (
    router as unknown as { _def: { procedures: Record<string, { _def?: { meta?: DocumentedMeta } }> } }
  )._def.procedures;
  for (const procedure of Object.values(procedures)) {
    const meta = procedure._def?.meta;
    if (!meta?.openapi) continue;
    const op = doc.paths?.[meta.openapi.path]?.[meta.openapi.method.toLowerCase() as 'get'] as
      { responses?: Record<string, unknown> } | undefined;
    if (!op?.responses) continue;
    for (const status of Object.keys(op.responses)) if (!/^[23]/.test(status)) delete op.responses[status];
    Object.assign(
      op.responses,
      errorResponses(faceOf(meta.openapi.path) === 'v1' ? 'v1' : 'public', meta.errors ?? {}),
    );
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
