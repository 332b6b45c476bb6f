// REST metadata for a procedure: where trpc-to-openapi serves it and how /openapi.json documents it.
import type { OpenApiMeta, OpenApiMethod } from 'trpc-to-openapi';

type OpenApi = NonNullable<OpenApiMeta['openapi']>;

/**
 * Rate-limit cost of one call, from its RAW (not yet validated) input: e.g. a batch costs its number of names.
 * Must not throw on odd input; anything that is not a positive safe integer counts as 1 (procedures.ts).
 */
export type RateLimitCost = (rawInput: unknown) => number;

/** Procedure metadata: the REST route (trpc-to-openapi) plus what the named procedures read. */
export interface ProcedureMeta extends OpenApiMeta {
  /** apiKeyProcedure / meteredProcedure: units this call counts against the key's windows (default 1). */
  rateLimitCost?: RateLimitCost;
  /**
   * Public GET whose answer depends on the URL alone: the REST face may replay a recent identical answer from
   * memory for SIGIL_RESOLVE_CACHE_MS (platform/http/rest.ts). Never set it on a keyed or metered route.
   */
  sharedCache?: boolean;
  /** REST status of a success: 200 by default; 201 for a creation; 204 sends no body (whatever the procedure returns). */
  successStatus?: 200 | 201 | 204;
}

export interface RestOptions {
  summary: string;
  description?: string;
  tags?: string[];
  /** Error statuses this route can answer, with a one-line reason each (rendered with our error body schemas). */
  errors?: Record<number, string>;
  /** True when the route needs credentials (X-API-Key, session); public routes leave it off. */
  protect?: boolean;
  /** Keyed routes: rate-limit cost of one call (default 1 unit). */
  cost?: RateLimitCost;
  /** Public GET routes only: see ProcedureMeta.sharedCache. */
  sharedCache?: boolean;
  /** See ProcedureMeta.successStatus. */
  successStatus?: 200 | 201 | 204;
}

/** `.meta(rest('GET', '/health', {...}))`: the spec's method and path for this procedure. */
export function rest(method: OpenApiMethod, path: `/${string}`, opts: RestOptions): ProcedureMeta {
  const openapi: OpenApi = {
    method,
    path,
    summary: opts.summary,
    description: opts.description,
    tags: opts.tags,
    protect: opts.protect ?? false,
    // Always an explicit map, so the generator never invents tRPC-shaped defaults (see platform/http/openapi.ts).
    errorResponses: opts.errors ?? {},
  };
  const meta: ProcedureMeta = { openapi };
  if (opts.cost) meta.rateLimitCost = opts.cost;
  if (opts.successStatus && opts.successStatus !== 200) meta.successStatus = opts.successStatus;
  if (opts.sharedCache) {
    if (method !== 'GET' || opts.protect) throw new Error(`sharedCache is for public GET routes only (${method} ${path})`);
    meta.sharedCache = true;
  }
  return meta;
}
