// The REST face: the router's procedures at their `meta.openapi` paths, through trpc-to-openapi's node handler,
// wrapped in one layer that owns everything the handler gets wrong for us:
//   - routing decisions before the body is read: unknown path → 404; a known path with another method, or any
//     non-GET on /resolve/* and /reverse/* → 405 with `Allow` (the handler would answer 404);
//   - path parameters percent-decoded exactly once (malformed `%` → 400); the decoded values reach the
//     procedure through `ctx.pathParams` (see trpc/init.ts);
//   - every error body rendered by errors.ts from the original error (the handler's own body carries tRPC codes,
//     `issues` and, outside production, stacks: it is discarded);
//   - the route template recorded for metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createOpenApiNodeHttpHandler, createProcedureCache, normalizePath, type OpenApiMethod, type OpenApiRouter } from 'trpc-to-openapi';
import { BODY_LIMIT_BYTES } from './body';
import { faceOf, genericError, shapeRestError, type ShapedError } from './errors';

const REST_METHODS: readonly OpenApiMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Public lookups are GET-only: any other method under these prefixes is 405, even for paths no route matches. */
const GET_ONLY_PREFIXES = ['/resolve', '/reverse'];

export interface RestRoute {
  /** The route template, e.g. `/resolve/{name}` (metrics label, docs). */
  template: string;
  face: 'public' | 'v1';
  /** Path parameters, decoded once. */
  pathParams: Record<string, string>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the REST layer matched a route. */
    restRoute?: RestRoute;
    /** Metrics label for this request's route (a template, never a raw path). */
    routeLabel?: string;
  }
}

export interface RestOptions {
  router: AnyTRPCRouter;
  /** Builds the procedure context for a matched REST request. */
  createContext: (request: FastifyRequest, route: RestRoute) => unknown | Promise<unknown>;
}

/** Path of a raw request URL, as trpc-to-openapi computes it (so both agree on what matches); `/` if unparsable. */
export function pathOf(rawUrl: string): string {
  try {
    const url = new URL(rawUrl.startsWith('/') ? `http://127.0.0.1${rawUrl}` : rawUrl);
    return normalizePath(url.pathname);
  } catch {
    return '/';
  }
}

function send(reply: FastifyReply, shaped: ShapedError): FastifyReply {
  if (shaped.headers) reply.headers(shaped.headers);
  return reply.code(shaped.status).type('application/json; charset=utf-8').send(JSON.stringify(shaped.body));
}

/** The single path parameter's value, when a route has exactly one: public errors about it echo it as `input`. */
function soleParam(params: Record<string, string>): string | undefined {
  const values = Object.values(params);
  return values.length === 1 ? values[0] : undefined;
}

/** What trpc-to-openapi writes, captured instead of sent, so the layer can decide what the client sees. */
function responseRecorder(raw: ServerResponse) {
  const recorded = { statusCode: 200, headers: {} as Record<string, string>, body: undefined as string | undefined };
  const res = {
    get statusCode() {
      return recorded.statusCode;
    },
    set statusCode(code: number) {
      recorded.statusCode = code;
    },
    setHeader(name: string, value: unknown) {
      recorded.headers[name.toLowerCase()] = String(value);
    },
    end(data?: unknown) {
      recorded.body = typeof data === 'string' ? data : undefined;
    },
    // The handler listens for the client going away (abort signal); that is the real socket's business.
    once: raw.once.bind(raw),
    on: raw.on.bind(raw),
    off: raw.off.bind(raw),
    removeListener: raw.removeListener.bind(raw),
    get writableEnded() {
      return raw.writableEnded;
    },
  };
  return { res: res as unknown as ServerResponse, recorded };
}

interface InFlight {
  request: FastifyRequest;
  route: RestRoute;
  error?: unknown;
}

export type RestDecision = { routeLabel: string } & ({ route: RestRoute } | { error: ShapedError });

/**
 * Routing rules of the REST face as a pure function of method and raw URL: which route matches, or which error
 * answers (404 unknown, 405 wrong method, 400 malformed percent-encoding). The only place path parameters are
 * decoded. Also used when Fastify's own router refuses a URL it cannot decode (see app.ts frameworkErrors).
 */
function restDecider(lookup: ReturnType<typeof createProcedureCache>) {
  return (requestMethod: string, rawUrl: string): RestDecision => {
    const path = pathOf(rawUrl);
    const face = faceOf(path) === 'v1' ? 'v1' : 'public';
    // HEAD is GET without a body (Node drops the body of a HEAD response).
    const method = requestMethod === 'HEAD' ? 'GET' : requestMethod;
    const match = (REST_METHODS as readonly string[]).includes(method) ? lookup(method as OpenApiMethod, path) : undefined;

    if (!match?.procedure) {
      const allowed = REST_METHODS.filter((m) => lookup(m, path));
      const lower = path.toLowerCase();
      const getOnly = GET_ONLY_PREFIXES.some((p) => lower === p || lower.startsWith(`${p}/`));
      if (allowed.length === 0 && getOnly && method !== 'GET') allowed.push('GET');
      if (allowed.length > 0) {
        const allow = allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed;
        return { routeLabel: 'unmatched', error: { ...genericError(face, 405), headers: { allow: allow.join(', ') } } };
      }
      return { routeLabel: 'unmatched', error: genericError(face, 404) };
    }

    const template = normalizePath((match.procedure.procedure._def.meta as { openapi: { path: string } }).openapi.path);
    const pathParams: Record<string, string> = {};
    for (const [name, encoded] of Object.entries(match.pathInput as Record<string, string>)) {
      try {
        pathParams[name] = decodeURIComponent(encoded);
      } catch {
        const message = `path parameter "${name}" has malformed percent-encoding`;
        return { routeLabel: template, error: genericError(face, 400, { message, input: encoded }) };
      }
    }
    return { routeLabel: template, route: { template, face, pathParams } };
  };
}

/** Registers the REST face; returns its routing decision function (app.ts reuses it for URLs Fastify rejects). */
export function registerRest(app: FastifyInstance, opts: RestOptions): (method: string, rawUrl: string) => RestDecision {
  const router = opts.router as unknown as OpenApiRouter;
  const lookup = createProcedureCache(router);
  const inFlight = new WeakMap<IncomingMessage, InFlight>();

  const handler = createOpenApiNodeHttpHandler({
    router,
    maxBodySize: BODY_LIMIT_BYTES,
    createContext: async ({ req }) => {
      const state = inFlight.get(req as IncomingMessage)!;
      return opts.createContext(state.request, state.route);
    },
    onError: ({ error, req }) => {
      const state = inFlight.get(req as IncomingMessage);
      if (state) state.error = error;
    },
  } as Parameters<typeof createOpenApiNodeHttpHandler>[0]);

  const decide = restDecider(lookup);

  /** Before the body is read: answer 404 / 405 / 400 now, or record the matched route for the handler. */
  async function route(request: FastifyRequest, reply: FastifyReply) {
    const decision = decide(request.method, request.url);
    request.routeLabel = decision.routeLabel;
    if ('error' in decision) return send(reply, decision.error);
    request.restRoute = decision.route;
  }

  async function serve(request: FastifyRequest, reply: FastifyReply) {
    const route = request.restRoute!;
    const raw = request.raw as IncomingMessage & { body?: unknown };
    // The body was parsed by our content-type parser (platform/http/body.ts); the handler takes it from here.
    raw.body = request.body;
    if (raw.method === 'HEAD') raw.method = 'GET';
    const state: InFlight = { request, route };
    inFlight.set(raw, state);
    const { res, recorded } = responseRecorder(reply.raw);
    await handler(raw, res);

    if (recorded.statusCode < 400 && state.error === undefined) {
      const { 'content-type': _type, ...headers } = recorded.headers;
      return reply.code(recorded.statusCode).headers(headers).type('application/json; charset=utf-8').send(recorded.body ?? '');
    }
    const shaped = shapeRestError(route.face, state.error ?? new Error(`REST handler answered ${recorded.statusCode}`), soleParam(route.pathParams));
    if (shaped.unexpected) request.log.error({ err: state.error }, 'unexpected error in REST procedure');
    return send(reply, shaped);
  }

  app.route({ method: app.supportedMethods, url: '/*', onRequest: route, handler: serve });
  return decide;
}
