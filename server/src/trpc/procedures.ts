// Named procedures: a route's protection is visible in one word.
//
//   publicProcedure    no credentials (public resolve, health, namespaces)
//   apiKeyProcedure    X-API-Key, rate limited (cost 1, or the route's `rest(..., { cost })`); ctx.apiKey
//   sessionProcedure   Connect bearer session issued through the PORTAL key (portal key management); ctx.session
//   meteredProcedure   X-API-Key or an x402 payment (only routes listed in METERED_ROUTES): a present key takes
//                        the key path (incl. its 401/429: an over-limit key never falls through to x402); only a
//                        keyless request reaches x402; keyless with x402 off → 401 API_KEY_REQUIRED. ctx.apiKey or
//                        ctx.payment.
//
// Headers: every keyed response, success or error, carries X-RateLimit-Limit/-Remaining/-Daily-Limit/
// -Daily-Remaining. The middleware writes them into `ctx.responseHeaders`, which app.ts applies to whatever
// response is finally sent (REST or tRPC, 2xx or not). A 429 adds Retry-After.
import { ApiError } from '@sigil/contract/errors';
import { X402_CHALLENGE_CODES, type X402ChallengeCode } from '@sigil/contract/x402';
import type { PriceClass } from '../platform/config';
import { apiKeySecretOf, hasApiKeyHeader } from '../platform/http/api-key';
import type { ApiKeyIdentity, KeyAdmission, RequestContext, SessionIdentity } from './context';
import { baseProcedure, middleware } from './init';
import type { ErrorRows, ProcedureMeta } from './meta';

export const publicProcedure = baseProcedure;

/** The codes apiKeyProcedure itself may answer; every keyed route lists them with its own. */
export const API_KEY_ERRORS = {
  API_KEY_REQUIRED: 'no X-API-Key header',
  INVALID_KEY: 'the key is unknown, malformed or revoked',
  RATE_LIMITED: "over the per-minute or daily limit of the key's tier (see Retry-After)",
} as const satisfies ErrorRows;

/** The code sessionProcedure itself may answer. */
export const SESSION_ERRORS = {
  INVALID_SESSION:
    'the bearer session is absent, malformed, expired, revoked, forged, or not issued through the portal key',
} as const satisfies ErrorRows;

/** The codes meteredProcedure itself may answer: the key path's, and the x402 path's (docs/x402.md). */
export const METERED_ERRORS = {
  ...API_KEY_ERRORS,
  API_KEY_REQUIRED: 'no X-API-Key header, and x402 is off on this deployment',
  ...(Object.fromEntries(
    X402_CHALLENGE_CODES.map((code) => [code, 'x402: the 402 body is a fresh challenge naming this code']),
  ) as Record<X402ChallengeCode, string>),
  // Settlement after the handler: a concurrent request that consumed the same payment or reference first wins.
  PAYMENT_ALREADY_USED: { reason: 'x402: already redeemed (409: by a concurrent request, first)', alsoStatus: 409 },
  REFERENCE_REUSED: {
    reason: 'x402: reference already redeemed (409: by a concurrent request, first)',
    alsoStatus: 409,
  },
  PAYMENT_HEADER_CONFLICT: 'x402: both payment headers, with different values',
  METERING_UNAVAILABLE:
    'x402: the payment store failed after the handler; the response is withheld, nothing is consumed',
  X402_UNAVAILABLE: 'x402: the chain could not be read to verify the payment; retry',
  X402_SETTLE_TIMEOUT:
    'x402 facilitator rail: the facilitator did not answer in time; the response is withheld; retry the same payment',
  X402_FACILITATOR_ERROR:
    'x402 facilitator rail: the facilitator failed or is down; the response is withheld; retry the same payment',
} as const satisfies ErrorRows;

/** The route's rate-limit cost for this raw input: its `cost` function's answer if it is a positive safe integer, else 1. */
export function costOf(meta: ProcedureMeta | undefined, rawInput: unknown): number {
  const fn = meta?.rateLimitCost;
  if (!fn) return 1;
  try {
    const cost = fn(rawInput);
    return Number.isSafeInteger(cost) && cost >= 1 ? cost : 1;
  } catch {
    return 1;
  }
}

/**
 * THE key-auth step, reusable (meteredProcedure calls it for its key path):
 *   no X-API-Key → 401 API_KEY_REQUIRED; unknown / malformed / revoked → 401 INVALID_KEY;
 *   then counts `cost` units against the key's windows → over → 429 RATE_LIMITED with Retry-After.
 * Puts the four X-RateLimit-* headers in ctx.responseHeaders (on the 429 too).
 */
export async function authenticateApiKey(ctx: RequestContext, cost = 1): Promise<ApiKeyIdentity> {
  const secret = apiKeySecretOf(ctx.headers);
  if (secret === '') throw new ApiError('API_KEY_REQUIRED', 'send your API key in the X-API-Key header');
  // A repeated header is ambiguous: refuse rather than guess which one counts.
  const admission = secret === undefined ? null : await admit(ctx, secret, cost);
  if (!admission) throw new ApiError('INVALID_KEY', 'the API key is not valid (unknown or revoked)');
  Object.assign(ctx.responseHeaders, admission.rateHeaders);
  const { key, denied } = admission;
  // Counted whatever the outcome, the 429 included (usage history).
  ctx.usage.keyId = key.id;
  ctx.usage.account = key.account;
  if (denied) {
    // Retry-After is among the admission's headers, already in ctx.responseHeaders: the error adds none.
    const window = denied.window === 'day' ? 'daily' : 'per-minute';
    throw new ApiError(
      'RATE_LIMITED',
      `rate limit exceeded (${window} limit of the ${key.tier} tier); retry after ${denied.retryAfterSeconds} s`,
    );
  }
  ctx.replay.keyCost = cost;
  return key;
}

/**
 * The gate's answer for this secret and cost: the one the replay path below Fastify already got for this request
 * (ctx.replay.keyStep, used once), or a fresh one.
 */
function admit(ctx: RequestContext, secret: string, cost: number): Promise<KeyAdmission | null> {
  const prior = ctx.replay.keyStep;
  ctx.replay.keyStep = undefined;
  if (prior && prior.secret === secret && prior.cost === cost) return Promise.resolve(prior.admission);
  return ctx.services.keyGate.admit(secret, cost, ctx.log);
}

const apiKeyAuth = middleware(async ({ ctx, meta, getRawInput, next }) => {
  const cost = meta?.rateLimitCost ? costOf(meta, await getRawInput()) : 1;
  const apiKey = await authenticateApiKey(ctx, cost);
  return next({ ctx: { apiKey } });
});

/** X-API-Key, rate limited. `ctx.apiKey` = {id, account, tier}. */
export const apiKeyProcedure = baseProcedure.use(apiKeyAuth);

/**
 * The Connect session behind `Authorization: Bearer …`, valid for `audience` (a key id) — else 401
 * INVALID_SESSION (absent, malformed, expired, revoked, forged, `alg: none`, or issued to another key).
 */
export function requireSession(ctx: RequestContext, audience: string): Promise<SessionIdentity> {
  return ctx.services.sessionGate.verifyBearer(ctx.headers.authorization, audience);
}

const portalSessionAuth = middleware(async ({ ctx, next }) => {
  // Portal endpoints accept only sessions issued through the portal's own key (its id is the portal domain).
  const session = await requireSession(ctx, ctx.services.config.portalDomain);
  return next({ ctx: { session } });
});

/** Connect bearer session issued through the portal key (not X-API-Key). `ctx.session.address` is the account. */
export const sessionProcedure = baseProcedure.use(portalSessionAuth);

/**
 * THE list of metered endpoints (keyed or x402), each with its price class (SIGIL_X402_PRICE_<CLASS>). A procedure
 * built on meteredProcedure whose route is not listed fails closed (500), so nothing is sold by accident.
 * Connect (/v1/auth/*), keys, webhooks and Gate endpoints are never metered: they stay on apiKeyProcedure.
 */
export const METERED_ROUTES = {
  'GET /v1/resolve/{name}': 'resolve',
  'GET /v1/resolve-universal/{name}': 'resolve',
  'GET /v1/agents/{handle}': 'resolve', // "priced like a resolve"
  'GET /v1/agents/{handle}/level': 'resolve', // the agent route's price: one chain read and one probe
  'GET /v1/reverse/{address}': 'reverse', // SIGIL_X402_PRICE_REVERSE, the resolve price by default
} as const satisfies Record<string, PriceClass>;

/** `METHOD /path` of a procedure's REST route, as METERED_ROUTES keys it. */
export function meteredRouteOf(meta: ProcedureMeta | undefined): string | undefined {
  const openapi = meta?.openapi;
  return openapi ? `${openapi.method} ${openapi.path}` : undefined;
}

const meteredAuth = middleware(async ({ ctx, meta, path, getRawInput, next }) => {
  const route = meteredRouteOf(meta);
  const priceClass = route ? (METERED_ROUTES as Record<string, PriceClass>)[route] : undefined;
  if (!priceClass)
    throw new Error(
      `procedure ${path} (${route ?? 'no REST route'}) uses meteredProcedure but is not in METERED_ROUTES`,
    );

  if (hasApiKeyHeader(ctx.headers)) {
    const cost = meta?.rateLimitCost ? costOf(meta, await getRawInput()) : 1;
    const apiKey: ApiKeyIdentity = await authenticateApiKey(ctx, cost);
    return next({ ctx: { apiKey, payment: undefined as unknown } });
  }
  // Verified, not consumed: the handler runs first; only its success consumes the payment.
  const { meter } = ctx.services;
  const payment = await meter.authorize({
    method: ctx.method,
    url: ctx.url,
    rawBody: ctx.rawBody,
    headers: ctx.headers,
    clientIp: ctx.clientIp,
    priceClass,
  });
  const result = await next({ ctx: { apiKey: undefined as ApiKeyIdentity | undefined, payment: payment as unknown } });
  if (!result.ok) return result; // e.g. a 404: nothing consumed, the same payment may be retried
  // One atomic statement; a concurrent winner → 409, a store failure → 503 (the response is withheld).
  Object.assign(ctx.responseHeaders, await meter.settle(payment));
  ctx.usage.paidBy = meter.payerOf(payment);
  return result;
});

/** X-API-Key or an x402 payment, for the routes in METERED_ROUTES. `ctx.apiKey` or `ctx.payment` is set. */
export const meteredProcedure = baseProcedure.use(meteredAuth);
