// REST metadata for a procedure: where trpc-to-openapi serves it and how /openapi.json documents it.
import type { OpenApiMeta, OpenApiMethod } from 'trpc-to-openapi';
import type { PublicErrorKey, V1ErrorCode } from '@sigil/contract/errors';

type OpenApi = NonNullable<OpenApiMeta['openapi']>;

/**
 * Rate-limit cost of one call, from its RAW (not yet validated) input: e.g. a batch costs its number of names.
 * Must not throw on odd input; anything that is not a positive safe integer counts as 1 (procedures.ts).
 */
export type RateLimitCost = (rawInput: unknown) => number;

/**
 * The codes a route may answer, each with a short reason; the status comes from the contract's catalog. A code that a
 * route also answers with another status (x402's concurrent-settlement 409) gives `{ reason, alsoStatus }`.
 */
export type ErrorRows<Code extends string = V1ErrorCode | PublicErrorKey> = Partial<Record<Code, ErrorRow>>;
export type ErrorRow = string | { reason: string; alsoStatus: number };

/** `/v1` routes answer the `/v1` catalog's codes; every other route the public catalog's. */
type ErrorCodeOf<Path extends string> = Path extends `/v1/${string}` ? V1ErrorCode : PublicErrorKey;

/** Procedure metadata: the REST route (trpc-to-openapi) plus what the named procedures and the docs read. */
export interface ProcedureMeta extends OpenApiMeta {
  /** apiKeyProcedure / meteredProcedure: units this call counts against the key's windows (default 1). */
  rateLimitCost?: RateLimitCost;
  /**
   * Public GET whose answer depends on the URL alone: the REST face may replay a recent identical answer from
   * memory for SIGIL_RESOLVE_CACHE_MS (platform/http/rest.ts). Never set it on a keyed or metered route.
   */
  sharedCache?: boolean;
  /**
   * Keyed GET whose successful answer, once the caller's key is admitted, depends on the URL alone (not on the key,
   * its account or tier): the REST face keeps its 200 answers, served to an admitted key, for replay to any admitted
   * key below Fastify (platform/http/fast-replay.ts), for the staleness bound at most. Never on an answer that names
   * or depends on the caller.
   */
  keyedReplay?: boolean;
  /** REST status of a success: 200 by default; 201 for a creation; 204 sends no body (whatever the procedure returns). */
  successStatus?: 200 | 201 | 204;
  /** The error codes this route may answer (platform/http/openapi.ts documents each status with its codes). */
  errors?: ErrorRows;
  /** See RestOptions.credentials. */
  credentials?: DocumentedCredential[];
}

/** The security schemes of /openapi.json that a route can require (platform/http/openapi.ts). */
export type DocumentedCredential = 'ApiKey' | 'BearerSession';

export interface RestOptions<Path extends string> {
  summary: string;
  description?: string;
  tags?: string[];
  /** Error codes this route can answer, from the catalog of its face, each with a short reason. */
  errors?: ErrorRows<ErrorCodeOf<Path>>;
  /** True when the route needs credentials (X-API-Key, session); public routes leave it off. */
  protect?: boolean;
  /** Keyed routes: rate-limit cost of one call (default 1 unit). */
  cost?: RateLimitCost;
  /** Public GET routes only: see ProcedureMeta.sharedCache. */
  sharedCache?: boolean;
  /** Keyed GET routes only: see ProcedureMeta.keyedReplay. */
  keyedReplay?: boolean;
  /** See ProcedureMeta.successStatus. */
  successStatus?: 200 | 201 | 204;
  /**
   * The credentials the request carries, only where the route's codes would tell the document otherwise: the
   * document reads them from the codes (INVALID_KEY → ApiKey, INVALID_SESSION → BearerSession), which is wrong when a
   * code is about a token inside the body rather than the Authorization header.
   */
  credentials?: DocumentedCredential[];
}

/** `.meta(rest('GET', '/health', {...}))`: the spec's method and path for this procedure. */
export function rest<Path extends `/${string}`>(
  method: OpenApiMethod,
  path: Path,
  opts: RestOptions<Path>,
): ProcedureMeta {
  const openapi: OpenApi = {
    method,
    path,
    summary: opts.summary,
    description: opts.description,
    tags: opts.tags,
    protect: opts.protect ?? false,
    // An explicit empty map, so the generator invents no tRPC-shaped error responses: platform/http/openapi.ts
    // writes every error response from `errors`.
    errorResponses: {},
  };
  const meta: ProcedureMeta = { openapi };
  if (opts.errors) meta.errors = opts.errors;
  if (opts.cost) meta.rateLimitCost = opts.cost;
  if (opts.successStatus && opts.successStatus !== 200) meta.successStatus = opts.successStatus;
  if (opts.credentials) meta.credentials = opts.credentials;
  if (opts.sharedCache) {
    if (method !== 'GET' || opts.protect)
      throw new Error(`sharedCache is for public GET routes only (${method} ${path})`);
    meta.sharedCache = true;
  }
  if (opts.keyedReplay) {
    if (method !== 'GET' || !opts.protect || (opts.successStatus ?? 200) !== 200)
      throw new Error(`keyedReplay is for keyed GET routes answering 200 only (${method} ${path})`);
    meta.keyedReplay = true;
  }
  return meta;
}
