// One MCP tool: its name, what an agent reads about it, its zod input and output shapes, the four annotations,
// and what it does. Domain failures are values, not throws: `{ ok: false, code, message }` becomes an `isError`
// result whose structuredContent is `{ code, message }` (server.ts), so an agent reads a stable code.
import type { z } from 'zod';
import type { ChainReader } from '../platform/chain/types';
import type { OutboundClient } from '../platform/outbound/client';
import type { UpstreamFetch } from '../platform/outbound/upstream';

/** What every tool may use; the MCP process builds one at start (mcp/main.ts). Tools hold no keys. */
export interface ToolDeps {
  chain: ChainReader;
  /** The Sigil service's base URL (SIGIL_API_URL), without a trailing slash. */
  apiUrl: string;
  /** The handle search API (SIGIL_QUERY_API_URL); undefined → search_agent_handles reports `not-available`. */
  queryApiUrl: string | undefined;
  /** The API key the MCP process presents to the query API (SIGIL_QUERY_API_KEY); never an agent's. */
  queryApiKey?: string;
  /** The hardened outbound client (SSRF rules, timeouts, no redirects) for manifests and probes. */
  outbound: OutboundClient;
  /**
   * The service's fetch (SIGIL_API_URL, SIGIL_QUERY_API_URL, which may be loopback): the process's upstream client
   * (platform/outbound/upstream.ts: a deadline per call, capped answers); tests may pass global fetch.
   */
  fetch: UpstreamFetch;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: false;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export type ToolOutcome<Out> = { ok: true; value: Out } | { ok: false; code: string; message: string };

export interface ToolDefinition<In extends z.ZodRawShape = z.ZodRawShape, Out extends z.ZodRawShape = z.ZodRawShape> {
  /** `^[A-Za-z0-9_./-]{1,64}$` */
  name: string;
  title: string;
  /** What an agent needs to act on it: when to call it, what comes back, what the codes mean. */
  description: string;
  inputSchema: In;
  outputSchema: Out;
  annotations: ToolAnnotations;
  run(args: z.infer<z.ZodObject<In>>, deps: ToolDeps): Promise<ToolOutcome<z.infer<z.ZodObject<Out>>>>;
}
