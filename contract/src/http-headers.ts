// HTTP header names that more than one package writes or reads: the service sets them; the SDK, the portal and the
// tests read or pass them on. Header names are case-insensitive; these are the canonical spellings, and code that
// keys a plain object by name (node's request headers, the SDK proxy's passed-back headers) lowercases them.

/** The key's rate-limit state on every keyed /v1 response (spec: Limits): the minute window, then the UTC day. */
export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  dailyLimit: 'X-RateLimit-Daily-Limit',
  dailyRemaining: 'X-RateLimit-Daily-Remaining',
} as const;

/** On a 429: whole seconds until the refused window resets, so a client knows when to come back. */
export const RETRY_AFTER_HEADER = 'Retry-After';

/** The request's id, on every response (a sane incoming one is kept), so a caller's report matches a log line. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The API key of a keyed or metered /v1 request (spec: Authentication). */
export const API_KEY_HEADER = 'X-API-Key';

/** The request headers of a webhook delivery (spec: Svc-* with svc = sigil); receivers read them. */
export const WEBHOOK_HEADERS = {
  signature: 'Sigil-Signature',
  eventId: 'Sigil-Event-Id',
  eventType: 'Sigil-Event-Type',
  deliveryId: 'Sigil-Delivery-Id',
  subscriptionId: 'Sigil-Subscription-Id',
} as const;
