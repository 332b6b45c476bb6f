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
  return opts.cost ? { openapi, rateLimitCost: opts.cost } : { openapi };
}
