// REST metadata for a procedure: where trpc-to-openapi serves it and how /openapi.json documents it.
import type { OpenApiMeta, OpenApiMethod } from 'trpc-to-openapi';

type OpenApi = NonNullable<OpenApiMeta['openapi']>;

export interface RestOptions {
  summary: string;
  description?: string;
  tags?: string[];
  /** Error statuses this route can answer, with a one-line reason each (rendered with our error body schemas). */
  errors?: Record<number, string>;
  /** True when the route needs credentials (X-API-Key, session); public routes leave it off. */
  protect?: boolean;
}

/** `.meta(rest('GET', '/health', {...}))`: the spec's method and path for this procedure. */
export function rest(method: OpenApiMethod, path: `/${string}`, opts: RestOptions): OpenApiMeta {
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
  return { openapi };
}
