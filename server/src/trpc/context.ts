// What every procedure receives. Built once per request by the HTTP layer (platform/http), for both faces.
import type { IncomingHttpHeaders } from 'node:http';
import type { Kysely } from 'kysely';
import type { Config } from '../platform/config';
import type { Database } from '../platform/db/schema';
import type { ChainReader } from '../platform/chain/types';
import type { Lifecycle } from '../platform/lifecycle';
import type { Logger } from '../platform/log';
import type { Metrics } from '../platform/metrics';
import type { ResolveService } from '../features/resolve/service';
import type { X402Service } from '../features/x402/service';
import type { RateLimiter } from '../features/ratelimit/service';
import type { ApiKey } from '../features/keys/service';
import type { SessionService } from '../features/connect/sessions';
import type { ConnectService } from '../features/connect/service';
import type { UniversalService } from '../features/universal/service';
import type { AgentService } from '../features/agents/service';
import type { OutboundClient } from '../platform/outbound/client';
import type { PayWebhooks } from '../features/webhooks/context';

/** Key lookups the keyed procedures need (features/keys/service.ts over the db; a fake can stand in). */
export interface ApiKeyLookup {
  /** The active key a secret belongs to, or null (unknown, malformed, revoked). */
  authenticate(secret: string): Promise<ApiKey | null>;
  /** Records use (throttled); never awaited by the request path. */
  touch(key: ApiKey): Promise<unknown>;
}

/** Process-wide dependencies, shared by every request. Features add theirs here (e.g. a limiter, an outbound client). */
export interface AppServices {
  config: Config;
  chain: ChainReader;
  /** Absent only in tests that need no database. */
  db?: Kysely<Database>;
  metrics: Metrics;
  lifecycle: Lifecycle;
  /** Public resolution (cached chain reads). */
  resolve: ResolveService;
  /** Per-key rate limiter (present with a db). */
  limiter?: RateLimiter;
  /** API key lookups (present with a db). */
  apiKeys?: ApiKeyLookup;
  /** Connect session tokens (present with a db). */
  sessions?: SessionService;
  /** x402 pay-per-call (present with a db when SIGIL_X402_PAY_TO is set). */
  x402?: X402Service;
  /** Connect challenges and proofs (present with a db). */
  connect?: ConnectService;
  /** Universal resolution: native names always; `sol`/`eth` adapters when their RPC is configured. */
  universal: UniversalService;
  /** Agent resolution and manifest validation. */
  agents: AgentService;
  /** The hardened outbound HTTP client (manifests, webhooks); closed through the lifecycle. */
  outbound: OutboundClient;
  /** Pay webhooks (present with a db unless SIGIL_PAY_WEBHOOKS is off: then the routes answer PAY_WEBHOOKS_DISABLED). */
  payWebhooks?: PayWebhooks;
}

/**
 * Per-request facts, and the process services under `services`. The named procedures (apiKeyProcedure,
 * sessionProcedure, meteredProcedure) read these. Kept small on purpose: tRPC copies the whole context object
 * (key by key) whenever a middleware extends it, on every request.
 */
export interface RequestContext {
  services: AppServices;
  requestId: string;
  /** `rest` for the documented paths (trpc-to-openapi), `trpc` for /trpc. */
  face: 'rest' | 'trpc';
  method: string;
  /** The raw request target: path and query exactly as received (x402 hashes them). */
  url: string;
  /** The exact request body bytes (x402 hashes them); undefined when the request had no body. */
  rawBody: Buffer | undefined;
  /** Lower-cased header names, as Node gives them. */
  headers: IncomingHttpHeaders;
  /** The peer address (proxy headers are not trusted unless configured later). */
  clientIp: string;
  /** Logger bound to this request (every line carries `requestId`). */
  log: Logger;
  /** REST only: path parameters, percent-decoded exactly once (platform/http/rest.ts). */
  pathParams?: Record<string, string>;
  /**
   * Response headers a procedure or middleware wants on this request's response, success or error (e.g. the
   * X-RateLimit-* headers). Mutable bag: the HTTP layer (app.ts onSend) applies it to whatever is sent.
   */
  responseHeaders: Record<string, string>;
}
