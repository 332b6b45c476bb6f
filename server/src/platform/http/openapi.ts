// The OpenAPI 3.1 document, generated from the router by trpc-to-openapi, then corrected so that it describes
// what clients really receive, and what the SDK (client-sdk/, generated from this document) is typed by:
//   - every error response uses our bodies (PublicError `{error, input?}` on public routes, V1Error `{code, message}`
//     on /v1, the x402 challenge on 402) with the operation's own codes as the enum, instead of tRPC-shaped ones;
//   - the success status the route answers (meta.successStatus: 201, or 204 without a body);
//   - the security each named procedure enforces, read from the codes it contributes (API_KEY_ERRORS → ApiKey,
//     SESSION_ERRORS → BearerSession, METERED_ERRORS → ApiKey or an x402 payment);
//   - request, parameter and response examples from the demo scenario (openapi-examples.ts).
// Served at /openapi.json; /docs renders it with Swagger UI, whose assets come from the installed npm package.
import { API_KEY_HEADER } from '@sigil/contract/http-headers';
import type { AnyTRPCRouter } from '@trpc/server';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { PublicErrorBodySchema, V1ErrorBodySchema } from '@sigil/contract/public';
import { X402_HEADERS, x402ChallengeSchema } from '@sigil/contract/x402';
import { faceOf, genericCodeOf } from './errors';
import { OPERATION_EXAMPLES } from './openapi-examples';
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
  '',
  'Typed client: `npm install @sigil/sdk` (docs/sdk.md), generated from this document.',
].join('\n');

const TAGS = [
  { name: 'public', description: 'Keyless resolution and liveness; errors are `{error, input?}`.' },
  { name: 'platform', description: 'Ungated facts about this deployment.' },
  { name: 'connect', description: 'Wallet sign-in: challenge, sign, verify, session (docs/connect.md).' },
  { name: 'keys', description: 'Portal key management, authenticated by a Connect session (docs/keys.md).' },
  { name: 'oidc', description: "An API key's OpenID Connect client registration (docs/oidc.md)." },
  { name: 'resolution', description: 'Keyed (or x402-metered) resolution of handles, domains, .sol and .eth names.' },
  { name: 'agents', description: 'Agent handles and their manifests (docs/agents.md).' },
  { name: 'pay webhooks', description: 'Signed HTTPS notifications of payments and invoices (docs/webhooks.md).' },
  {
    name: 'webhooks (signed in)',
    description:
      "The owner's webhooks of both streams through a portal session and one of the owner's keys, without its secret: " +
      'edit, disable / enable, delivery detail and attempts, test events of a chosen type; and the event catalog ' +
      '(docs/webhooks.md "Managed with the session").',
  },
  { name: 'search', description: 'Handle search over the indexed registry (docs/search.md).' },
  { name: 'gate', description: 'Access policies over chain state, checked and optionally signed (docs/gate.md).' },
  {
    name: 'identity events',
    description: 'Registry changes as signed webhooks and a replayable log (docs/identity-events.md).',
  },
];

const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: API_KEY_HEADER,
    description: 'Your API key (server-side only; never ship it to a browser).',
  },
  BearerSession: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A Connect session token (`token` of a verify response). /v1/keys and /v1/usage take a session issued through ' +
      'the portal key; GET /v1/auth/session takes one issued through the same X-API-Key.',
  },
  X402Payment: {
    type: 'apiKey',
    in: 'header',
    name: X402_HEADERS.payment,
    description:
      `Pay-per-call instead of a key, on metered reads when \`GET /v1/health\` says \`x402: true\`: send \`${X402_HEADERS.payer}\` ` +
      `(your wallet) to get a 402 challenge with a request-bound reference, pay on chain, wait for finality, sign ` +
      `\`redeemMessage\`, and repeat the identical request with \`${X402_HEADERS.payment}\` (base64 JSON; the legacy ` +
      `\`${X402_HEADERS.legacyPayment}\` header is also accepted) and \`${X402_HEADERS.payer}\` (docs/x402.md).`,
  },
} as const;

/** What the document reads from a procedure's meta (trpc/meta.ts ProcedureMeta). */
interface DocumentedMeta {
  openapi?: { method: string; path: string };
  errors?: Partial<Record<string, DocumentedRow>>;
  successStatus?: 200 | 201 | 204;
  credentials?: ('ApiKey' | 'BearerSession')[];
}

/** A code's reason, and another status the route also answers it with (trpc/meta.ts ErrorRow). */
type DocumentedRow = string | { reason: string; alsoStatus: number };

interface Operation {
  description?: string;
  parameters?: { name: string; in: string; example?: unknown; schema?: { type?: string } }[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses: Record<string, { description?: string; content?: Record<string, { example?: unknown }> }>;
  security?: Record<string, string[]>[];
}

/**
 * The security a route's named procedure enforces, read from the codes that procedure contributes, unless the route
 * names its credentials itself (meta.credentials: a code that is about a token in the body, not a header).
 */
function securityOf(codes: Set<string>, credentials?: DocumentedMeta['credentials']): Record<string, string[]>[] {
  const needs: Record<string, string[]> = {};
  if (credentials) for (const scheme of credentials) needs[scheme] = [];
  else {
    if (codes.has('INVALID_KEY')) needs.ApiKey = [];
    if (codes.has('INVALID_SESSION')) needs.BearerSession = [];
  }
  if (Object.keys(needs).length === 0) return [];
  return isMetered(codes) ? [needs, { X402Payment: [] }] : [needs];
}

/** meteredProcedure contributes the x402 codes (METERED_ERRORS); no other named procedure answers them. */
const isMetered = (codes: Set<string>) => codes.has('PAYER_REQUIRED');

const X402_DESCRIPTION =
  '\n\n**Pay-per-call (x402).** Without `X-API-Key`, where this deployment sells calls, the answer is a 402 ' +
  'challenge (also base64 in the `PAYMENT-REQUIRED` header); pay it and repeat the identical request with ' +
  '`PAYMENT-SIGNATURE` and `X-Payer` (docs/x402.md). A 200 bought this way carries `PAYMENT-RESPONSE`.';

/**
 * What the HTTP layer answers before or around any procedure (errors.ts GENERIC, rest.ts, transport.ts): declared on
 * every operation it can reach, so that a client's per-operation code union holds every code it can really receive.
 */
const EVERY_OPERATION: [status: number, reason: string][] = [
  [404, 'the path matches no route (an empty or an extra segment)'],
  [405, 'another method on this path (`Allow` lists the ones it has)'],
  [408, 'the request did not arrive in time'],
  [413, 'a request body over 64 KiB, refused on its declared length on any route'],
  [417, 'an `Expect` header other than `100-continue`'],
  [431, 'request headers over the limit'],
  [500, 'an unexpected failure (logged with the request id)'],
];
const WITH_BODY: [number, string][] = [
  [400, 'the body is not valid JSON'],
  [415, 'a body that is not `application/json`'],
];
const WITH_PATH_PARAMETERS: [number, string][] = [[400, 'a path parameter with malformed percent-encoding']];

/** The route's own rows, plus the HTTP layer's on this operation; a code in both keeps both reasons. */
function withHttpLayerRows(
  face: 'v1' | 'public',
  method: string,
  path: string,
  rows: Partial<Record<string, DocumentedRow>>,
): Partial<Record<string, DocumentedRow>> {
  const merged = { ...rows };
  const generic = [
    ...EVERY_OPERATION,
    ...(['POST', 'PUT', 'PATCH'].includes(method) ? WITH_BODY : []),
    ...(path.includes('{') ? WITH_PATH_PARAMETERS : []),
  ];
  for (const [status, reason] of generic) {
    const code = genericCodeOf(face, status);
    const own = merged[code];
    if (own === undefined) merged[code] = reason;
    else if (typeof own === 'string') merged[code] = own ? `${own}; ${reason}` : reason;
    else merged[code] = { ...own, reason: `${own.reason}; ${reason}` };
  }
  return merged;
}

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
    const enumOf = { enum: codes.map(([code]) => code) };
    if (face === 'v1' && status === 402) {
      // The x402 challenge: `error` and `code` carry the same code on a rejection; a plain challenge has neither.
      responses['402'] = {
        description: `A fresh x402 challenge; on a rejection \`error\` = \`code\` names why.\n\n${description}`,
        headers: {
          [X402_HEADERS.required]: { description: 'The same challenge, base64 JSON.', schema: { type: 'string' } },
        },
        content: {
          'application/json': {
            schema: {
              allOf: [{ $ref: '#/components/schemas/X402PaymentRequired' }],
              properties: { code: enumOf, error: enumOf },
            },
          },
        },
      };
      continue;
    }
    const schema =
      face === 'v1'
        ? { allOf: [{ $ref: '#/components/schemas/V1Error' }], properties: { code: enumOf } }
        : {
            allOf: [{ $ref: '#/components/schemas/PublicError' }],
            properties: { error: { enum: codes.map(([code]) => PUBLIC_ERRORS[code as PublicErrorKey][1]) } },
          };
    responses[String(status)] = { description, content: { 'application/json': { schema } } };
  }
  return responses;
}

/** The success response at the status the route answers: 200, 201 (same body), or 204 (no body). */
function successResponses(op: Operation, status: 200 | 201 | 204): Record<string, unknown> {
  const ok = op.responses['200'] ?? { description: 'Successful response' };
  if (status === 204) return { '204': { description: 'No content' } };
  return { [String(status)]: status === 201 ? { ...ok, description: 'Created' } : ok };
}

/** Demo-scenario examples on the parameters, the request body and the success response. */
function addExamples(op: Operation, key: string, success: 200 | 201 | 204): void {
  const example = OPERATION_EXAMPLES[key];
  if (!example) return;
  for (const parameter of op.parameters ?? []) {
    const value = example.parameters?.[parameter.name];
    // The example is the value, typed as the schema says (a query string's `50` is the integer 50).
    const numeric = parameter.schema?.type === 'integer' || parameter.schema?.type === 'number';
    if (value !== undefined) parameter.example = numeric ? Number(value) : value;
  }
  const body = op.requestBody?.content?.['application/json'];
  if (body && example.request !== undefined) body.example = example.request;
  const response = op.responses[String(success)]?.content?.['application/json'];
  if (response && example.response !== undefined) response.example = example.response;
}

export function buildOpenApiDocument(router: AnyTRPCRouter, info: OpenApiInfo): OpenAPIObject {
  const doc = generateOpenApiDocument(router as unknown as OpenApiRouter, {
    title: 'Sigil',
    description: DESCRIPTION,
    version: info.version,
    openApiVersion: '3.1.0',
    baseUrl: info.baseUrl,
    securitySchemes: SECURITY_SCHEMES as never,
    defs: { PublicError: PublicErrorBodySchema, V1Error: V1ErrorBodySchema, X402PaymentRequired: x402ChallengeSchema },
  });
  doc.tags = TAGS;

  const procedures = (
    router as unknown as { _def: { procedures: Record<string, { _def?: { meta?: DocumentedMeta } }> } }
  )._def.procedures;
  for (const procedure of Object.values(procedures)) {
    const meta = procedure._def?.meta;
    if (!meta?.openapi) continue;
    const op = doc.paths?.[meta.openapi.path]?.[meta.openapi.method.toLowerCase() as 'get'] as Operation | undefined;
    if (!op?.responses) continue;
    const face = faceOf(meta.openapi.path) === 'v1' ? 'v1' : 'public';
    const codes = new Set(Object.keys(meta.errors ?? {}));
    const success = meta.successStatus ?? 200;
    // Every error response is written from the route's own codes (meta.errors): one response per status, listing
    // that status's codes with their reasons, and a body schema whose `code` (public: `error`) is their enum.
    const rows = withHttpLayerRows(face, meta.openapi.method, meta.openapi.path, meta.errors ?? {});
    op.responses = { ...successResponses(op, success), ...errorResponses(face, rows) } as never;
    op.security = securityOf(codes, meta.credentials);
    if (isMetered(codes)) {
      op.description = `${op.description ?? ''}${X402_DESCRIPTION}`;
      (op.parameters ??= []).push({
        name: X402_HEADERS.payer,
        in: 'header',
        required: false,
        description: 'x402 only: the paying wallet (base58); binds the challenge reference to it.',
        schema: { type: 'string' },
      } as never);
      const ok = op.responses[String(success)] as { headers?: Record<string, unknown> };
      ok.headers = {
        [X402_HEADERS.response]: {
          description: 'x402 only: the base64 settlement receipt (also in `X-PAYMENT-RESPONSE`).',
          schema: { type: 'string' },
        },
      };
    }
    addExamples(op, `${meta.openapi.method} ${meta.openapi.path}`, success);
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
  app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true, persistAuthorization: true } });
}
