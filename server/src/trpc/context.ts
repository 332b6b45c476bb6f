// What every procedure receives, built once per request by the HTTP layer for both faces.
//
// `ctx.services` is the one services object the composition root (compose.ts) builds. This file declares only the
// members the named procedures need (the gates below) and the platform ones; each feature adds its own members from
// its `index.ts` with `declare module '../../trpc/context' { interface Services { … } }`. So the tRPC layer knows no
// feature, every member is typed at the call site, and compose.ts fails to compile when a member is missing.
import type { IncomingHttpHeaders } from 'node:http';
import type { KeyTier } from '@sigil/contract/keys';
import type { ChainReader } from '../platform/chain/types';
import type { Config, PriceClass } from '../platform/config';
import type { Logger } from '../platform/log';

/** What a keyed procedure knows about its caller. */
export interface ApiKeyIdentity {
  /** Key id (`key_…`, or the portal domain): the Connect audience. */
  id: string;
  /** The owning account (a wallet address; the portal key: its domain). */
  account: string;
  tier: KeyTier;
}

/** A key that authenticated, with the outcome of counting this call against its windows. */
export interface KeyAdmission {
  key: ApiKeyIdentity;
  /** The X-RateLimit-* headers every keyed response carries, success or error. */
  rateHeaders: Record<string, string>;
  /** Set when this call was over a limit: which window refused it and when to retry. */
  denied?: { window: 'minute' | 'day'; retryAfterSeconds: number };
}

/** The key step of apiKeyProcedure / meteredProcedure (implemented by the keys feature). */
export interface KeyGate {
  /**
   * Authenticates a secret and counts `cost` units; null when the key is unknown, malformed or revoked. `log` is the
   * request's logger (what the step reports carries the request id).
   */
  admit(secret: string, cost: number, log: Logger): Promise<KeyAdmission | null>;
}

/** The Connect session behind a bearer token (implemented by the connect feature). */
export interface SessionIdentity {
  jti: string;
  /** The key id the session was issued through. */
  audience: string;
  /** The signed-in wallet: the account of everything the portal manages. */
  address: string;
}

export interface SessionGate {
  /** The session behind `Authorization: Bearer …`, valid for `audience`; otherwise throws 401 INVALID_SESSION. */
  verifyBearer(authorization: string | undefined, audience: string): Promise<SessionIdentity>;
}

/** What a keyless metered call hands to the payment rail, taken from the wire (raw URL, exact body bytes). */
export interface MeteredRequest {
  method: string;
  /** The raw request target (path and query exactly as received). */
  url: string;
  rawBody?: Uint8Array;
  headers: IncomingHttpHeaders;
  clientIp: string;
  priceClass: PriceClass;
}

/**
 * The payment step of meteredProcedure (implemented by the x402 feature; a deployment without x402 gets one that
 * answers 401 API_KEY_REQUIRED). `authorize` verifies without consuming; `settle` consumes after the handler
 * succeeded and returns the response headers that carry the receipt.
 */
export interface Meter<Payment = unknown> {
  authorize(request: MeteredRequest): Promise<Payment>;
  settle(payment: Payment): Promise<Record<string, string>>;
  /** The wallet that paid (the usage history counts a paid request for it). */
  payerOf(payment: Payment): string;
}

/**
 * Whom a finished request is counted for in the usage history: the key step sets the key and its account, the
 * payment step the paying wallet; the HTTP layer reads it once the response is sent. Unset: not counted.
 */
export interface UsageMark {
  keyId?: string;
  account?: string;
  paidBy?: string;
}

/** Whom a finished request counts for: the paying wallet (key ''), else the key's account; nobody otherwise. */
export function markedAccount(mark: UsageMark): { account: string; keyId: string; paid: boolean } | undefined {
  if (mark.paidBy) return { account: mark.paidBy, keyId: '', paid: true };
  if (mark.keyId && mark.account) return { account: mark.account, keyId: mark.keyId, paid: false };
  return undefined;
}

/** The process services, shared by every request. Features extend this interface from their index.ts. */
export interface Services {
  config: Config;
  chain: ChainReader;
  keyGate: KeyGate;
  sessionGate: SessionGate;
  meter: Meter;
}

/**
 * Per-request facts, and the process services under `services`. Kept small on purpose: tRPC copies the whole
 * context object (key by key) whenever a middleware extends it, on every request.
 */
export interface RequestContext {
  services: Services;
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
  /** The peer address (proxy headers are not trusted). */
  clientIp: string;
  /** Logger bound to this request (every line carries `requestId`). */
  log: Logger;
  /** REST only: path parameters, percent-decoded exactly once (platform/http/rest.ts). */
  pathParams?: Record<string, string>;
  /**
   * Response headers a procedure or middleware wants on this request's response, success or error (e.g. the
   * X-RateLimit-* headers). The HTTP layer applies this bag to whatever is finally sent, and only it: an error
   * carries no copy of these, so each header appears once.
   */
  responseHeaders: Record<string, string>;
  /** Filled by the key or payment step; the HTTP layer records it after the response (usage history). */
  usage: UsageMark;
  /** What the REST face needs to replay this request's answer, and what a replay below Fastify handed on. */
  replay: ReplayFacts;
}

/** The key step already taken for a request below Fastify (platform/http/fast-replay.ts), handed on to Fastify. */
export interface PriorKeyStep {
  secret: string;
  cost: number;
  /** What KeyGate.admit answered for that secret and cost. */
  admission: KeyAdmission | null;
}

export interface ReplayFacts {
  /**
   * A procedure that answers from data already cached sets `until` (a `performance.now()` time) to when that data
   * leaves its staleness bound; the REST face then replays the answer (sharedCache and keyedReplay routes) no longer
   * than that, so an answer and the cached data it was built from never add up to more than one bound.
   */
  until?: number;
  /**
   * Set by the key step when it admitted this request's key (not over a limit): the units it counted. Only then is a
   * keyedReplay route's answer kept for keyed replay (an x402-paid answer never is), and a replay counts as many.
   */
  keyCost?: number;
  /**
   * The key step the replay path below Fastify already took before handing the request on (not admitted, or its
   * answer expired meanwhile): the key step uses its outcome instead of asking the gate again, once, when the secret
   * and cost are the same, so a window is never counted twice for one request.
   */
  keyStep?: PriorKeyStep;
}
