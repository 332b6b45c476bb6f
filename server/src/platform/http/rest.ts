// The REST face: the router's procedures at their `meta.openapi` paths. trpc-to-openapi supplies the route table
// (and the OpenAPI document); the matched procedure is called through a tRPC caller with the same input rules as
// trpc-to-openapi's node handler (query or JSON body, merged with path parameters). Calling it directly instead of
// through that handler is 6-8× cheaper per request (it builds a fetch Request, an AbortSignal and re-coerces the
// schema on every call; docs/benchmarks.md). This one layer also owns:
//   - routing decisions before the body is read: unknown path → 404; a known path with another method, or any
//     non-GET on /resolve/* and /reverse/* → 405 with `Allow` (the handler would answer 404);
//   - path parameters percent-decoded exactly once (malformed `%` → 400); the decoded values reach the
//     procedure through `ctx.pathParams` (see trpc/init.ts);
//   - every error body rendered by errors.ts from the original error (the handler's own body carries tRPC codes,
//     `issues` and, outside production, stacks: it is discarded);
//   - the route template recorded for metrics;
//   - answers made of stored documents (StoredJson) sent as their text, not serialized again.
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TRPCError } from '@trpc/server';
import {
  acceptsRequestBody,
  coerceSchema,
  createProcedureCache,
  getInputOutputParsers,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  normalizePath,
  unwrapZodType,
  type OpenApiMethod,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import { LRUCache } from 'lru-cache';
import { StoredJson } from '../stored-json';
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
  /** The matched procedure's dotted tRPC path, e.g. `resolve.resolve`. */
  procedurePath: string;
  /** The procedure allows replaying a recent identical answer (meta.sharedCache). */
  sharedCache: boolean;
  /** The procedure allows replaying a recent identical success to any admitted key (meta.keyedReplay). */
  keyedReplay: boolean;
  /** REST status of a success (meta.successStatus, default 200); 204 answers without a body. */
  successStatus: 200 | 201 | 204;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the REST layer matched a route. */
    restRoute?: RestRoute;
    /** Metrics label for this request's route (a template, never a raw path). */
    routeLabel?: string;
    /**
     * sharedCache and keyedReplay routes: when (`performance.now()`) the data behind this answer leaves its staleness
     * bound, if the procedure built it from data already cached (ctx.replay.until); the answer is replayed no longer
     * than that. `keyCost`: the units the key step counted when it admitted the caller's key (ctx.replay.keyCost).
     */
    replay?: { until?: number; keyCost?: number };
  }
}

export interface RestOptions {
  router: AnyTRPCRouter;
  /** Builds the procedure context for a matched REST request. */
  createContext: (request: FastifyRequest, route: RestRoute) => unknown | Promise<unknown>;
  /** How long a sharedCache or keyedReplay route's answer may be replayed (the staleness bound); 0 disables. */
  responseCacheMs: number;
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

/** A `.` or `..` segment, in any spelling (`%2e`, `%2E`, `.%2e`…), between slashes or backslashes. */
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?=[/\\]|$)/i;

/**
 * The refusal of a raw path a URL parser would rewrite: with a dot segment (it resolves them, decoded or not) or a
 * backslash (it reads one as a slash). Refused rather than resolved, on every face, so the path a proxy in front
 * allowed by its prefix is the path served. The face is that of the raw path, backslashes read as slashes.
 */
function rewrittenPathError(rawUrl: string): ShapedError | undefined {
  const query = rawUrl.indexOf('?');
  const raw = query < 0 ? rawUrl : rawUrl.slice(0, query);
  if (!raw.includes('\\') && !DOT_SEGMENT.test(raw)) return undefined;
  const face = faceOf(raw.replaceAll('\\', '/')) === 'v1' ? 'v1' : 'public';
  return genericError(face, 400, { message: 'the path has a dot segment or a backslash' });
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

export type RestDecision = { routeLabel: string } & ({ route: RestRoute } | { error: ShapedError });

/**
 * Routing rules of the REST face as a pure function of method and raw URL: which route matches, or which error
 * answers (404 unknown, 405 wrong method, 400 malformed percent-encoding). The only place path parameters are
 * decoded. Also used when Fastify's own router refuses a URL it cannot decode (see app.ts frameworkErrors).
 */
function restDecider(lookup: ReturnType<typeof createProcedureCache>) {
  return (requestMethod: string, rawUrl: string): RestDecision => {
    const rewritten = rewrittenPathError(rawUrl);
    if (rewritten) return { routeLabel: 'unmatched', error: rewritten };
    const path = pathOf(rawUrl);
    const face = faceOf(path) === 'v1' ? 'v1' : 'public';
    // HEAD is GET without a body (Node drops the body of a HEAD response).
    const method = requestMethod === 'HEAD' ? 'GET' : requestMethod;
    const match = (REST_METHODS as readonly string[]).includes(method)
      ? lookup(method as OpenApiMethod, path)
      : undefined;

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

    const meta = match.procedure.procedure._def.meta as {
      openapi: { path: string };
      sharedCache?: boolean;
      keyedReplay?: boolean;
      successStatus?: 200 | 201 | 204;
    };
    const template = normalizePath(meta.openapi.path);
    const pathParams: Record<string, string> = {};
    for (const [name, encoded] of Object.entries(match.pathInput as Record<string, string>)) {
      try {
        pathParams[name] = decodeURIComponent(encoded);
      } catch {
        const message = `path parameter "${name}" has malformed percent-encoding`;
        return { routeLabel: template, error: genericError(face, 400, { message, input: encoded }) };
      }
    }
    return {
      routeLabel: template,
      route: {
        template,
        face,
        pathParams,
        procedurePath: match.procedure.path,
        sharedCache: meta.sharedCache === true,
        keyedReplay: meta.keyedReplay === true,
        successStatus: meta.successStatus ?? 200,
      },
    };
  };
}

/** How to call one procedure from a REST request, worked out once at start (trpc-to-openapi's input rules). */
interface CallPlan {
  segments: string[];
  /** POST/PUT/PATCH take the JSON body; GET/DELETE take the query. */
  usesBody: boolean;
  /** z.void() and friends: the procedure takes no input. */
  noInput: boolean;
  /** Query keys whose schema is an array: a single value is wrapped. */
  arrayKeys: string[];
}

function planFor(procedure: { path: string; procedure: unknown }, method: string): CallPlan {
  const { inputParser } = getInputOutputParsers(procedure.procedure as never);
  const schema = unwrapZodType(inputParser as never, true);
  const usesBody = acceptsRequestBody(method as OpenApiMethod);
  const arrayKeys: string[] = [];
  if (instanceofZodTypeObject(schema)) {
    if (!usesBody) {
      for (const [key, shape] of Object.entries(
        schema.shape as Record<string, { def?: { type?: string; innerType?: { def?: { type?: string } } } }>,
      )) {
        const type = shape.def?.type === 'optional' ? shape.def.innerType?.def?.type : shape.def?.type;
        if (type === 'array') arrayKeys.push(key);
      }
    }
    coerceSchema(schema); // query strings become numbers/booleans where the schema says so (mutates once)
  }
  return { segments: procedure.path.split('.'), usesBody, noInput: instanceofZodTypeLikeVoid(schema), arrayKeys };
}

function queryInput(request: FastifyRequest, arrayKeys: string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((request.query ?? {}) as Record<string, string | string[]>)) {
    if (value === undefined || value === '') continue;
    input[key] = Array.isArray(value) && value.length === 1 ? value[0] : value;
  }
  for (const key of arrayKeys) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
  return input;
}

/** `application/json`, in any case (media types are case-insensitive), with or without parameters (`; charset=…`). */
function isJsonMediaType(type: string | undefined): boolean {
  return type !== undefined && type.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

function bodyInput(request: FastifyRequest, pathParams: Record<string, string>): unknown {
  const type = request.headers['content-type'];
  // No body at all (no Content-Type, no bytes): the path is the whole input, e.g. `curl -X POST …/{id}/resume`.
  const hasBytes =
    request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  if (type === undefined && !hasBytes) return { ...pathParams };
  if (!isJsonMediaType(type)) {
    throw new TRPCError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: type ? 'unsupported content-type' : 'missing content-type header',
    });
  }
  const body = request.body;
  // A non-object body (array, string, number) goes to the input parser as it is, so it answers 400, never spreads.
  if (body === undefined) return { ...pathParams };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...(body as Record<string, unknown>), ...pathParams };
}

/**
 * What a replayable answer tells caches downstream (a browser, a CDN, the MCP relay): it may be reused for the whole
 * seconds this service itself will still replay it, rounded down, so no cache that honours it ever serves an answer
 * this service would no longer serve. Public: the answer depends on the URL alone.
 */
function cacheControl(remainingMs: number): string {
  return `public, max-age=${Math.max(0, Math.floor(remainingMs / 1000))}`;
}

/** A replayable answer: what the route sent, and the Cache-Control a replay carries now. */
export interface Replay {
  status: number;
  body: string | Buffer;
  routeLabel: string;
  cacheControl: string;
}

/** A keyedReplay route's success, replayed to an admitted key only: what the route sent, and what the key step counted. */
export interface KeyedReplay {
  status: number;
  body: string | Buffer;
  routeLabel: string;
  /** The units the key step counted for the request that built it: a replay counts as many. */
  cost: number;
}

/** The Content-Type of every replayed answer (all are JSON). */
export const REPLAY_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface RestFace {
  /** The routing decision function (app.ts reuses it for URLs Fastify rejects). */
  decide: (method: string, rawUrl: string) => RestDecision;
  /** The answer cache's replay of a raw URL, if any (platform/http/fast-replay.ts serves it below Fastify). */
  replay: (rawUrl: string) => Replay | undefined;
  /** The keyed answer cache's replay of a raw URL, if any: for an admitted key only (fast-replay.ts). */
  keyedReplay: (rawUrl: string) => KeyedReplay | undefined;
}

/** Registers the REST face. */
export function registerRest(app: FastifyInstance, opts: RestOptions): RestFace {
  const router = opts.router as unknown as OpenApiRouter;
  const lookup = createProcedureCache(router);
  const createCaller = (opts.router as unknown as { createCaller: (ctx: unknown) => unknown }).createCaller;
  const plans = new Map<string, CallPlan>();
  const decide = restDecider(lookup);
  // Micro-cache of finished answers for sharedCache routes, keyed by the raw URL: a replay skips the procedure
  // call entirely (the hot path of public resolve). Only definitive answers are kept: 2xx and 4xx, never 5xx.
  // The check runs before routing (a hit already proved its route), so a replay costs one map lookup.
  const answers =
    opts.responseCacheMs > 0
      ? new LRUCache<string, { status: number; body: string | Buffer; routeLabel: string }>({
          max: 20_000,
          ttl: opts.responseCacheMs,
          // The remaining lifetime goes out in Cache-Control: read the clock every time, so it is never overstated.
          ttlResolution: 0,
        })
      : null;

  // Keyed answers, apart: never replayed to a keyless request, never told to caches downstream (no Cache-Control),
  // only 200s, and read only below Fastify, after the key step admitted the caller (fast-replay.ts).
  const keyedAnswers =
    opts.responseCacheMs > 0
      ? new LRUCache<string, KeyedReplay>({ max: 20_000, ttl: opts.responseCacheMs, ttlResolution: 0 })
      : null;

  /** A sharedCache answer this service may still replay for the raw URL, with its Cache-Control now. */
  function replay(rawUrl: string): Replay | undefined {
    const hit = answers?.get(rawUrl);
    if (!hit) return undefined;
    return { ...hit, cacheControl: cacheControl(answers!.getRemainingTTL(rawUrl)) };
  }

  /** Before the body is read: answer 404 / 405 / 400 now, or record the matched route for the handler. */
  async function route(request: FastifyRequest, reply: FastifyReply) {
    if (answers && (request.method === 'GET' || request.method === 'HEAD')) {
      const hit = replay(request.url);
      if (hit) {
        request.routeLabel = hit.routeLabel;
        return reply
          .code(hit.status)
          .header('cache-control', hit.cacheControl)
          .type(REPLAY_CONTENT_TYPE)
          .send(hit.body);
      }
    }
    const decision = decide(request.method, request.url);
    request.routeLabel = decision.routeLabel;
    if ('error' in decision) return send(reply, decision.error);
    request.restRoute = decision.route;
  }

  /**
   * How long an answer may be replayed: the bound, or what is left of it for the data the procedure built the answer
   * from, whichever ends first (whole milliseconds; below 1, not at all).
   */
  function replayTtl(request: FastifyRequest): number {
    const until = request.replay?.until;
    return Math.floor(Math.min(opts.responseCacheMs, until === undefined ? Infinity : until - performance.now()));
  }

  /**
   * Keeps a sharedCache route's definitive answer (2xx/4xx, never 5xx) for replay, and says so to the client: the
   * answer carries the Cache-Control a replay of it would carry now. A keyedReplay route's 200 is kept apart, and only
   * when the key step admitted the caller's key (an x402-paid answer is not kept: a replay could not be paid for).
   */
  function remember(
    request: FastifyRequest,
    reply: FastifyReply,
    route: RestRoute,
    status: number,
    body: string | Buffer,
  ) {
    if (keyedAnswers && route.keyedReplay && status === 200) {
      const cost = request.replay?.keyCost;
      const ttl = replayTtl(request);
      if (cost !== undefined && ttl >= 1)
        keyedAnswers.set(request.url, { status, body, routeLabel: route.template, cost }, { ttl });
      return;
    }
    if (!answers || !route.sharedCache || status >= 500) return;
    const ttl = replayTtl(request);
    if (ttl < 1) return;
    answers.set(request.url, { status, body, routeLabel: route.template }, { ttl });
    reply.header('cache-control', cacheControl(ttl));
  }

  async function serve(request: FastifyRequest, reply: FastifyReply) {
    const route = request.restRoute!;
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const planKey = `${method} ${route.procedurePath}`;
    let plan = plans.get(planKey);
    if (!plan) {
      plan = planFor(lookup(method as OpenApiMethod, pathOf(request.url))!.procedure!, method);
      plans.set(planKey, plan);
    }
    try {
      const input = plan.noInput
        ? undefined
        : plan.usesBody
          ? bodyInput(request, route.pathParams)
          : { ...queryInput(request, plan.arrayKeys), ...route.pathParams };
      const caller = createCaller.call(opts.router, await opts.createContext(request, route)) as Record<
        string,
        unknown
      >;
      const fn = plan.segments.reduce<any>((acc, segment) => acc[segment], caller) as (
        input: unknown,
      ) => Promise<unknown>;
      const data = await fn(input);
      if (route.successStatus === 204) return reply.code(204).send();
      // A stored answer is already its body (platform/stored-json.ts).
      const body = data instanceof StoredJson ? data.bytes() : JSON.stringify(data);
      remember(request, reply, route, route.successStatus, body);
      return reply.code(route.successStatus).type('application/json; charset=utf-8').send(body);
    } catch (error) {
      const shaped = shapeRestError(route.face, error, soleParam(route.pathParams));
      if (shaped.unexpected) request.log.error({ err: error }, 'unexpected error in REST procedure');
      if (!shaped.headers) remember(request, reply, route, shaped.status, JSON.stringify(shaped.body));
      return send(reply, shaped);
    }
  }

  app.route({ method: app.supportedMethods, url: '/*', onRequest: route, handler: serve });
  return { decide, replay, keyedReplay: (rawUrl) => keyedAnswers?.get(rawUrl) };
}
