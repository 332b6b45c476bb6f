// Pay webhooks: the shapes that cross the wire, the event_types grammar, the signed challenge message,
// the delivery header names and the limits (docs/outbound.md, spec "Pay webhooks"). Pure: no I/O.
import { z } from 'zod';
import { ApiError, type V1ErrorCode } from './errors';
import { isBase58Address, isTopLevelHandle, normalizeName } from './names';
import { addCodedIssue, asIssue, parseCoded, withFieldCodes } from './parse';

// ---------------------------------------------------------------------------------------------------------
// Limits (spec "Limits")

export const WEBHOOK_LIMITS = {
  /** Webhooks one account (API key) may hold. */
  perAccount: 25,
  /** A delivery is dead after this many failed attempts (the first try counts). */
  maxAttempts: 6,
  /** Consecutive dead-lettered deliveries that auto-pause a webhook. */
  autoPauseAfterDead: 50,
  /** Deliveries per webhook per minute; the excess waits, it is not a failure. */
  deliveriesPerMinute: 60,
  /** Largest delivery body in bytes; larger bodies are trimmed (pay-events.ts `trimToLimit`). */
  maxBodyBytes: 65_536,
  /** A receiver must answer 2xx within this time. */
  responseTimeoutMs: 10_000,
  /** Lifetime of a registration challenge. */
  challengeTtlSeconds: 600,
  /** First retry waits up to this; each further retry doubles it. */
  retryBaseMs: 10_000,
  /** No retry waits longer than this. */
  retryCapMs: 6 * 60 * 60 * 1000,
  /** Delivery log page size. */
  deliveriesPageDefault: 50,
  deliveriesPageMax: 200,
  /** Receiver-side timestamp tolerance we recommend (client-sdk verifyWebhook default). */
  signatureToleranceSeconds: 300,
  /** How long a rotated-out secret keeps signing beside the new one (every stream). */
  rotationOverlapMs: 24 * 60 * 60 * 1000,
  /** Bounds on request fields (ours; the spec leaves them open). */
  maxUrlLength: 2048,
  maxDescriptionLength: 256,
  maxEventTypeEntries: 32,
} as const;

/**
 * Wait before the n-th retry (n ≥ 1): uniform integer in [0, min(6 h, 10 s × 2^(n−1))] ("full jitter").
 * `rand` returns [0, 1) like Math.random; injectable so tests and a controllable clock can pin it.
 */
export function retryDelayMs(n: number, rand: () => number = Math.random): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`retry number must be an integer >= 1, got ${n}`);
  // 2^(n-1) overflows nothing for any n: past n = 12 the cap wins, so clamp the exponent first.
  const ceiling = Math.min(WEBHOOK_LIMITS.retryCapMs, WEBHOOK_LIMITS.retryBaseMs * 2 ** Math.min(n - 1, 20));
  return Math.floor(rand() * (ceiling + 1));
}

/**
 * What happens after attempt number `attempt` (1-based) failed: dead at the 6th, else retry after a wait.
 */
export function afterFailedAttempt(
  attempt: number,
  rand: () => number = Math.random,
): { dead: true } | { dead: false; delayMs: number } {
  if (attempt >= WEBHOOK_LIMITS.maxAttempts) return { dead: true };
  return { dead: false, delayMs: retryDelayMs(attempt, rand) };
}

// ---------------------------------------------------------------------------------------------------------
// Event types and the event_types grammar

export const PAY_EVENT_TYPES = [
  'payment.received',
  'payment.binding_verified',
  'invoice.paid',
  'invoice.created',
  'invoice.cancelled',
  'invoice.closed',
] as const;
export type PayEventType = (typeof PAY_EVENT_TYPES)[number];
export const PayEventTypeSchema = z.enum(PAY_EVENT_TYPES);

const EVENT_TYPE_GROUPS: Record<string, readonly PayEventType[]> = {
  '*': PAY_EVENT_TYPES,
  payment: PAY_EVENT_TYPES.filter((t) => t.startsWith('payment.')),
  'payment.*': PAY_EVENT_TYPES.filter((t) => t.startsWith('payment.')),
  invoice: PAY_EVENT_TYPES.filter((t) => t.startsWith('invoice.')),
  'invoice.*': PAY_EVENT_TYPES.filter((t) => t.startsWith('invoice.')),
};

/**
 * The `event_types` grammar: each entry is an event type, `payment.*`, `invoice.*`, `payment`, `invoice` or
 * `*`; an empty or absent list means all. Returns the normalized set: the concrete event types, in the
 * canonical order of PAY_EVENT_TYPES, without duplicates. Entries are matched exactly (case-sensitive, no
 * surrounding spaces): anything else throws ApiError INVALID_EVENT_TYPES naming the first bad entry.
 * Wildcards are expanded at registration on purpose: the wallet signs the concrete list, so a type added in
 * a later version is never delivered to a webhook whose owner did not sign for it.
 */
export function parseEventTypes(list: readonly unknown[] | null | undefined): PayEventType[] {
  const entries = eventTypeEntries(list);
  if (entries === null) return [...PAY_EVENT_TYPES];
  const chosen = new Set<PayEventType>();
  for (const entry of entries) {
    const group = Object.hasOwn(EVENT_TYPE_GROUPS, entry) ? EVENT_TYPE_GROUPS[entry] : undefined;
    if (group) for (const t of group) chosen.add(t);
    else if ((PAY_EVENT_TYPES as readonly string[]).includes(entry)) chosen.add(entry as PayEventType);
    else throw unknownEventType(entry);
  }
  return PAY_EVENT_TYPES.filter((t) => chosen.has(t));
}

/**
 * The entries of an `event_types` list of either stream, or null when it is absent or empty (all types). Throws
 * INVALID_EVENT_TYPES for too many entries or one that is not a string.
 */
export function eventTypeEntries(list: readonly unknown[] | null | undefined): string[] | null {
  if (list == null || list.length === 0) return null;
  if (list.length > WEBHOOK_LIMITS.maxEventTypeEntries) {
    throw new ApiError('INVALID_EVENT_TYPES', `event_types: at most ${WEBHOOK_LIMITS.maxEventTypeEntries} entries`);
  }
  for (const entry of list) {
    if (typeof entry !== 'string') throw new ApiError('INVALID_EVENT_TYPES', 'event_types: entries must be strings');
  }
  return list as string[];
}

/** The INVALID_EVENT_TYPES error naming an entry that is no type of the stream. */
export function unknownEventType(entry: string): ApiError {
  return new ApiError('INVALID_EVENT_TYPES', `event_types: unknown event type ${JSON.stringify(entry.slice(0, 64))}`);
}

// ---------------------------------------------------------------------------------------------------------
// Scope

export const WebhookScopeSchema = z.object({
  type: z.enum(['wallet', 'name']),
  /** Wallet scope: the address. Name scope: `@` + the normalized top-level handle. */
  value: z.string(),
  /** The proven wallets whose incoming payments are delivered (wallet scope: the wallet itself). */
  wallets: z.array(z.string()),
});

export type ParsedScope = { type: 'wallet'; value: string } | { type: 'name'; value: string; name: string };

/**
 * Reads the request's `scope`: `@name` (a top-level handle; subnames, domain-style names and customer TLDs
 * are refused) or a base58 wallet address. A name needs its `@` so that it can never be read as an address.
 * Throws ApiError INVALID_SCOPE.
 */
export function parseWebhookScope(input: string): ParsedScope {
  if (input.startsWith('@')) {
    const { name } = normalizeName(input);
    if (name.includes('.')) {
      throw new ApiError('INVALID_SCOPE', 'scope: only top-level @names are supported, not subnames or domains');
    }
    if (!isTopLevelHandle(name)) throw new ApiError('INVALID_SCOPE', 'scope: not a valid @name');
    return { type: 'name', value: `@${name}`, name };
  }
  if (isBase58Address(input)) return { type: 'wallet', value: input };
  throw new ApiError('INVALID_SCOPE', 'scope: expected an @name or a base58 wallet address');
}

// ---------------------------------------------------------------------------------------------------------
// Registration: challenge and register

/** The code a failing field of a webhook request answers with; fields not listed answer BAD_REQUEST. */
const FIELD_CODES: Record<string, V1ErrorCode> = {
  scope: 'INVALID_SCOPE',
  wallet: 'INVALID_WALLET',
  url: 'INVALID_URL',
  event_types: 'INVALID_EVENT_TYPES',
  nonce: 'CHALLENGE_INVALID',
  signature: 'SIGNATURE_INVALID',
};

/**
 * Challenge request: shape, scope grammar, wallet address, event_types grammar, and the WALLET_MISMATCH rule for
 * wallet scopes. The URL is only shape-checked here; the destination policy (server/src/platform/outbound) decides
 * INVALID_URL / URL_REJECTED.
 */
export const WebhookChallengeRequestSchema = withFieldCodes(
  z
    .object({
      scope: z.string().min(1).max(64),
      wallet: z.string().min(1).max(64).optional(),
      url: z.string().min(1).max(WEBHOOK_LIMITS.maxUrlLength),
      event_types: z.array(z.string().max(64)).max(WEBHOOK_LIMITS.maxEventTypeEntries).optional(),
      description: z.string().max(WEBHOOK_LIMITS.maxDescriptionLength).optional(),
    })
    .superRefine((req, ctx) => {
      if (!asIssue(ctx, () => parseWebhookScope(req.scope))) return;
      if (req.wallet !== undefined && !isBase58Address(req.wallet)) {
        return addCodedIssue(ctx, 'INVALID_WALLET', 'wallet: expected a base58 wallet address');
      }
      if (req.wallet !== undefined && isBase58Address(req.scope) && req.wallet !== req.scope) {
        return addCodedIssue(
          ctx,
          'WALLET_MISMATCH',
          'wallet: for a wallet scope the signing wallet must be that wallet',
        );
      }
      if (req.description?.trim() && /[\u0000-\u001f\u007f]/.test(req.description)) {
        return addCodedIssue(ctx, 'BAD_REQUEST', 'description: control characters are not allowed');
      }
      asIssue(ctx, () => parseEventTypes(req.event_types));
    }),
  { fields: FIELD_CODES },
);
export type WebhookChallengeRequest = z.infer<typeof WebhookChallengeRequestSchema>;

export const WebhookChallengeResponseSchema = z.object({
  nonce: z.string(),
  message: z.string(),
  /** Unix seconds. */
  expires_at: z.number().int(),
});
export type WebhookChallengeResponse = z.infer<typeof WebhookChallengeResponseSchema>;

export const WebhookRegisterRequestSchema = withFieldCodes(
  z.object({
    nonce: z.string().min(1).max(128),
    /** base58 ed25519 signature (64 bytes) over the message, raw or in the off-chain-message envelope. */
    signature: z.string().min(1).max(128),
  }),
  { fields: FIELD_CODES },
);
export type WebhookRegisterRequest = z.infer<typeof WebhookRegisterRequestSchema>;

/** Validated challenge request, semantic checks included. Field failures throw the spec's INVALID_* codes. */
export interface ParsedWebhookChallengeRequest {
  scope: ParsedScope;
  wallet: string | null;
  url: string;
  eventTypes: PayEventType[];
  description: string | null;
}

/** What a valid challenge request asks for, normalized (scope parsed, wildcards expanded, blank description dropped). */
export function webhookChallengeOf(req: WebhookChallengeRequest): ParsedWebhookChallengeRequest {
  return {
    scope: parseWebhookScope(req.scope),
    wallet: req.wallet ?? null,
    url: req.url,
    eventTypes: parseEventTypes(req.event_types),
    description: req.description?.trim() ? req.description : null,
  };
}

export function parseWebhookChallengeRequest(body: unknown): ParsedWebhookChallengeRequest {
  return webhookChallengeOf(parseCoded(WebhookChallengeRequestSchema, body));
}

export function parseWebhookRegisterRequest(body: unknown): WebhookRegisterRequest {
  return parseCoded(WebhookRegisterRequestSchema, body);
}

// ---------------------------------------------------------------------------------------------------------
// The signed challenge message

export const WEBHOOK_CHALLENGE_PREFIX = 'sigil-pay-webhook:v1';

export interface WebhookChallengeMessageInput {
  keyId: string;
  /** `@name` or the wallet address, as normalized by parseWebhookScope. */
  scope: string;
  /** The URL as it will be stored and called (the WHATWG-normalized href). */
  url: string;
  eventTypes: readonly PayEventType[];
  nonce: string;
  /** Unix seconds. */
  expiresAt: number;
}

/**
 * The message the wallet signs to register a webhook. Exact format (LF line ends, no trailing newline):
 *
 *   sigil-pay-webhook:v1
 *   key: <API key id>
 *   scope: <@name | wallet address>
 *   url: <url>
 *   events: <event types, comma-separated, no spaces, canonical order>
 *   nonce: <nonce>
 *   expires: <ISO 8601 UTC, whole seconds, e.g. 2026-01-01T00:10:00Z>
 */
export function buildWebhookChallengeMessage(input: WebhookChallengeMessageInput): string {
  const { keyId, scope, url, eventTypes, nonce, expiresAt } = input;
  // One line per field: a value carrying a line break could forge a second field.
  for (const [field, value] of Object.entries({ keyId, scope, url, nonce })) {
    if (value.length === 0 || /[\r\n\u2028\u2029]/.test(value)) {
      throw new Error(`challenge message: ${field} must be a non-empty single line`);
    }
  }
  if (eventTypes.length === 0) throw new Error('challenge message: eventTypes must not be empty');
  if (!Number.isSafeInteger(expiresAt) || expiresAt < 0)
    throw new Error('challenge message: expiresAt must be unix seconds');
  return [
    WEBHOOK_CHALLENGE_PREFIX,
    `key: ${keyId}`,
    `scope: ${scope}`,
    `url: ${url}`,
    `events: ${eventTypes.join(',')}`,
    `nonce: ${nonce}`,
    `expires: ${isoSeconds(expiresAt)}`,
  ].join('\n');
}

/** Unix seconds → `YYYY-MM-DDTHH:MM:SSZ`. */
export function isoSeconds(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// ---------------------------------------------------------------------------------------------------------
// Webhook object and delivery record

export const WEBHOOK_ID_PREFIX = 'whsub_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const DELIVERY_ID_PREFIX = 'whdel_';

export const WebhookSchema = z.object({
  id: z.string().startsWith(WEBHOOK_ID_PREFIX),
  scope: WebhookScopeSchema,
  url: z.string(),
  event_types: z.array(PayEventTypeSchema),
  description: z.string().nullable(),
  status: z.enum(['active', 'paused']),
  /** Starts with `auto-paused: `, `scope_changed: ` or `disabled: ` (its owner, through the session routes); null while active. */
  paused_reason: z.string().nullable(),
  /** Unix seconds. */
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

/** 201 body of POST /v1/pay/webhooks: the webhook plus its secret, shown once. */
export const WebhookCreatedSchema = WebhookSchema.extend({ secret: z.string().startsWith(WEBHOOK_SECRET_PREFIX) });
export type WebhookCreated = z.infer<typeof WebhookCreatedSchema>;

export const WebhookListResponseSchema = z.object({ webhooks: z.array(WebhookSchema) });
export const RotateSecretResponseSchema = z.object({
  id: z.string().startsWith(WEBHOOK_ID_PREFIX),
  secret: z.string().startsWith(WEBHOOK_SECRET_PREFIX),
});

export const AUTO_PAUSED_PREFIX = 'auto-paused: ';
export const SCOPE_CHANGED_PREFIX = 'scope_changed: ';

/**
 * Why an attempt failed, when it did not get an HTTP answer (`http_status`: it did, and it was not 2xx).
 * `connection_closed`: the receiver accepted the connection and hung up before answering.
 */
export const DELIVERY_ERROR_CLASSES = [
  'timeout',
  'connect_failed',
  'connection_closed',
  'dns_failed',
  'blocked_destination',
  'tls_failed',
  'http_status',
] as const;
export type DeliveryErrorClass = (typeof DELIVERY_ERROR_CLASSES)[number];

export const DeliveryRecordSchema = z.object({
  id: z.string().startsWith(DELIVERY_ID_PREFIX),
  webhook_id: z.string().startsWith(WEBHOOK_ID_PREFIX),
  event_id: z.string(),
  /** A pay event type, or an identity event type (identity webhooks). */
  event_type: z.string(),
  status: z.enum(['pending', 'delivered', 'dead']),
  attempts: z.number().int().min(0),
  /** HTTP status of the last answered attempt, or null when none answered. */
  last_status: z.number().int().nullable(),
  /** Error class of the last failed attempt; null after success or before the first attempt. */
  last_error: z.enum(DELIVERY_ERROR_CLASSES).nullable(),
  /** Time to response headers of the last attempt, in ms. */
  response_ms: z.number().int().nullable(),
  /** Unix seconds of the next attempt while pending, else null. */
  next_attempt_at: z.number().int().nullable(),
  created_at: z.number().int(),
  delivered_at: z.number().int().nullable(),
  /** A signed test event sent by POST …/{id}/test. */
  test: z.boolean(),
});
export type DeliveryRecord = z.infer<typeof DeliveryRecordSchema>;

export const DeliveryListQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(WEBHOOK_LIMITS.deliveriesPageMax)
    .default(WEBHOOK_LIMITS.deliveriesPageDefault),
});
export const DeliveryListResponseSchema = z.object({ deliveries: z.array(DeliveryRecordSchema) });
