// The `sigil.identity-events/v1` payload (docs/identity-events.md): every registry change as one event with a
// deployment-wide gapless `sequence`, its chain position, the handle, the actors and the change with before/after;
// the event_types grammar of identity webhooks, their scope, and the log's query. Pure: no I/O.
import { base58 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { z } from 'zod';
import type { V1ErrorCode } from './errors';
import { isBase58Address } from './names';
import { eventTypeEntries, parseWebhookScope, unknownEventType, WEBHOOK_LIMITS } from './webhooks';
import { addCodedIssue, asIssue, withFieldCodes } from './parse';
import { PayEventChainSchema } from './pay-events';

export const IDENTITY_EVENTS_SCHEMA = 'sigil.identity-events/v1';
export const IDENTITY_EVENT_ID_PREFIX = 'iev_';
export const IDENTITY_EVENT_NOTICE = 'Notification only: the chain is the source of truth.';

/** Types the registry program can produce today, in canonical order. */
export const IDENTITY_EVENT_TYPES = [
  'handle.registered',
  'handle.released',
  'handle.transferred',
  'handle.tokenized',
  'primary.set',
  'primary.cleared',
  'record.set',
  'record.verified',
  'record.deleted',
  'attestation.created',
  'attestation.revoked',
  'namespace.created',
  'domain.registered',
  // The registry market (docs/identity-events.md "The market").
  'offer.made',
  'offer.cancelled',
  'offer.accepted',
  'listing.created',
  'listing.cancelled',
  'listing.sold',
  'auction.created',
  'auction.bid',
  'auction.settled',
  'auction.cancelled',
  'auction.closed',
  'gift.created',
  'gift.claimed',
  'gift.refunded',
  'lease.started',
  'lease.paid',
  'lease.reclaimed',
  'recovery.initiated',
  'recovery.completed',
  'record.delegate_set',
  'namespace.pricing_set',
] as const;

/** The families of the types (`handle`, `record`, `offer`, …), in the order of their first type. */
export const IDENTITY_EVENT_FAMILIES = [...new Set(IDENTITY_EVENT_TYPES.map((t) => t.split('.')[0]!))];

export const IDENTITY_LIMITS = {
  /** The log's page size. */
  pageDefault: 50,
  pageMax: 200,
  /** Days the log keeps an event (SIGIL_IDENTITY_RETENTION_DAYS overrides). */
  retentionDaysDefault: 90,
  /** How long a rotated-out secret keeps signing beside the new one (both streams: the webhook engine's rule). */
  rotationOverlapMs: WEBHOOK_LIMITS.rotationOverlapMs,
} as const;

// ---------------------------------------------------------------------------------------------------------
// The payload

const address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'base58 address');
const beforeAfter = <T extends z.ZodType>(t: T) => z.object({ before: t.nullable(), after: t.nullable() });

export const IdentityHandleRefSchema = z.object({
  /** Normalized name without `@`. */
  name: z.string(),
  /** The Handle account. */
  account: address,
});

/** Who did it: `signer` always; the others when the change involves them. */
export const IdentityActorsSchema = z
  .object({
    signer: address,
    owner: address.optional(),
    newOwner: address.optional(),
    wallet: address.optional(),
    issuer: address.optional(),
    authority: address.optional(),
    buyer: address.optional(),
    seller: address.optional(),
    bidder: address.optional(),
    creator: address.optional(),
    recipient: address.optional(),
    lessee: address.optional(),
    delegate: address.optional(),
  })
  .strict();

const base = {
  schema: z.literal(IDENTITY_EVENTS_SCHEMA),
  id: z.string().regex(/^iev_[1-9A-HJ-NP-Za-km-z]{16,32}$/, 'iev_ + base58'),
  /** Deployment-wide, strictly increasing from 1, without gaps: the log's cursor (0 on test events). */
  sequence: z.number().int().min(0),
  notice: z.literal(IDENTITY_EVENT_NOTICE),
  /** Present (true) only on test events sent by POST …/{id}/test; test events have no sequence in the log. */
  test: z.literal(true).optional(),
  chain: PayEventChainSchema,
  actors: IdentityActorsSchema,
};
const withHandle = { ...base, handle: IdentityHandleRefSchema };
const recordKey = { kind: z.enum(['address', 'text']), key: z.string(), record: address };
/** The market event behind a change of owner (absent: the registry's own register / transfer / release). */
const via = z.string();
const amount = z.string().regex(/^(0|[1-9]\d*)$/, 'decimal base-unit amount');
const ownerChange = beforeAfter(address);
/** A market event: `handle` may be null for one about an offer or listing made before the log's start slot. */
const market = <T extends string, C extends z.ZodRawShape>(type: T, change: C) =>
  z.object({ ...base, handle: IdentityHandleRefSchema.nullable(), type: z.literal(type), change: z.object(change) });
const MARKET_EVENTS = [
  market('offer.made', { offer: address, amount }),
  market('offer.cancelled', { offer: address, amount: amount.nullable() }),
  market('offer.accepted', { offer: address, amount, owner: ownerChange }),
  market('listing.created', { listing: address, price: amount }),
  market('listing.cancelled', { listing: address, price: amount.nullable() }),
  market('listing.sold', { listing: address, price: amount, owner: ownerChange }),
  market('auction.created', { auction: address, reserve: amount, durationSeconds: z.number().int() }),
  market('auction.bid', { auction: address, amount, previousBidder: address.nullable() }),
  market('auction.settled', { auction: address, winner: address.nullable(), owner: ownerChange }),
  market('auction.cancelled', { auction: address }),
  market('auction.closed', { auction: address }),
  market('gift.created', {
    voucher: address,
    recipient: address,
    expiresAt: z.iso.datetime().nullable(),
    owner: ownerChange,
  }),
  market('gift.claimed', { voucher: address, owner: ownerChange }),
  market('gift.refunded', { voucher: address, owner: ownerChange }),
  market('lease.started', { lease: address, amount, owner: ownerChange }),
  market('lease.paid', { lease: address, amount }),
  market('lease.reclaimed', { lease: address, owner: ownerChange }),
  market('recovery.initiated', { recovery: address, newOwner: address }),
  market('recovery.completed', { recovery: address, owner: ownerChange }),
  market('record.delegate_set', { delegate: beforeAfter(address) }),
  z.object({
    ...base,
    type: z.literal('namespace.pricing_set'),
    handle: z.null(),
    change: z.object({ namespace: address, price: beforeAfter(amount) }),
  }),
] as const;

export const IdentityEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...withHandle,
    type: z.literal('handle.registered'),
    /** `handleType` null: registered by a market instruction that does not state it (lease, reserved claim). */
    change: z.object({ handleType: z.number().int().nullable(), owner: beforeAfter(address), via: via.optional() }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('handle.released'),
    change: z.object({ owner: beforeAfter(address), via: via.optional() }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('handle.transferred'),
    change: z.object({ owner: beforeAfter(address), via: via.optional() }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('handle.tokenized'),
    change: z.object({ tokenized: beforeAfter(z.boolean()), mint: beforeAfter(address) }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('primary.set'),
    change: z.object({ wallet: address, primary: beforeAfter(z.string()) }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('primary.cleared'),
    change: z.object({
      wallet: address,
      primary: beforeAfter(z.string()),
      /** Why the pointer stopped counting. */
      reason: z.enum(['handle_transferred', 'handle_released']),
    }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('record.set'),
    change: z.object({ ...recordKey, value: beforeAfter(z.string()), verified: beforeAfter(z.boolean()) }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('record.verified'),
    /** `key` and `value` are null when the record was written before the log's start slot (ETH/BTC records). */
    change: z.object({
      ...recordKey,
      key: z.string().nullable(),
      value: z.string().nullable(),
      verified: beforeAfter(z.boolean()),
    }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('record.deleted'),
    change: z.object({ ...recordKey, value: beforeAfter(z.string()) }),
  }),
  z.object({
    ...withHandle,
    type: z.literal('attestation.created'),
    change: z.object({
      attestation: address,
      platform: z.string(),
      subject: z.string(),
      /** ISO 8601 UTC, or null = never. */
      expiresAt: z.iso.datetime().nullable(),
    }),
  }),
  z.object({
    ...base,
    /** null when the attestation was made before the log's start slot. */
    handle: IdentityHandleRefSchema.nullable(),
    type: z.literal('attestation.revoked'),
    change: z.object({
      attestation: address,
      platform: z.string().nullable(),
      subject: z.string().nullable(),
      revoked: beforeAfter(z.boolean()),
    }),
  }),
  z.object({
    ...base,
    type: z.literal('namespace.created'),
    handle: z.null(),
    change: z.object({ namespace: address, tld: z.string() }),
  }),
  z.object({
    ...base,
    type: z.literal('domain.registered'),
    handle: z.null(),
    change: z.object({
      domain: z.object({ account: address, label: z.string(), tld: z.string().nullable(), namespace: address }),
      owner: beforeAfter(address),
    }),
  }),
  ...MARKET_EVENTS,
]);
export type IdentityEvent = z.infer<typeof IdentityEventSchema>;
/** An event before the store gives it its sequence. */
export type UnsequencedIdentityEvent = IdentityEvent extends infer E
  ? E extends IdentityEvent
    ? Omit<E, 'sequence'>
    : never
  : never;

/** The published JSON Schema of the payload (docs/identity-events.schema.json is this, written out). */
export function identityEventsJsonSchema(): Record<string, unknown> {
  return {
    $id: `urn:sigil:schema:${IDENTITY_EVENTS_SCHEMA}`,
    title: IDENTITY_EVENTS_SCHEMA,
    ...(z.toJSONSchema(IdentityEventSchema, { target: 'draft-2020-12' }) as Record<string, unknown>),
  };
}

/**
 * The stable id of the n-th event of one instruction: the same chain change always gets the same id, so a
 * re-index (a restart, a backfill) can never mint a second id for it. base58 of 16 bytes of sha256.
 */
export function identityEventId(signature: string, ixIndex: number, innerIndex: number, n: number): string {
  const digest = sha256(new TextEncoder().encode(`${signature}:${ixIndex}:${innerIndex}:${n}`));
  return IDENTITY_EVENT_ID_PREFIX + base58.encode(digest.subarray(0, 16));
}

// ---------------------------------------------------------------------------------------------------------
// event_types grammar (identity webhooks and the log's `types=`)

/**
 * Each entry is an event type, a family (`record` or `record.*`), or `*`; empty or absent means all. Kept as
 * given (normalized, deduplicated): unlike a pay webhook, nobody signs the list, so a wildcard also covers types
 * added later (the market's). Throws INVALID_EVENT_TYPES naming the first bad entry.
 */
export function parseIdentityEventTypes(list: readonly unknown[] | null | undefined): string[] {
  const entries = eventTypeEntries(list);
  if (entries === null) return ['*'];
  const out = new Set<string>();
  for (const entry of entries) {
    const family = entry.endsWith('.*') ? entry.slice(0, -2) : entry;
    if (entry === '*') out.add('*');
    else if (IDENTITY_EVENT_FAMILIES.includes(family) && !entry.includes('.', family.length + 1))
      out.add(`${family}.*`);
    else if ((IDENTITY_EVENT_TYPES as readonly string[]).includes(entry)) out.add(entry);
    else throw unknownEventType(entry);
  }
  return out.has('*') ? ['*'] : [...out];
}

/** Does a normalized event_types list (parseIdentityEventTypes) take this type? */
export function identityTypeMatches(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}

// ---------------------------------------------------------------------------------------------------------
// Subscriptions

export type IdentityScope =
  { type: 'wallet'; value: string } | { type: 'name'; value: string; name: string } | { type: 'registry'; value: '*' };

/** `@name`, a wallet address, or `*` (the whole registry; partner tier). Throws INVALID_SCOPE. */
export function parseIdentityScope(input: string): IdentityScope {
  if (input === '*') return { type: 'registry', value: '*' };
  return parseWebhookScope(input);
}

const FIELD_CODES: Record<string, V1ErrorCode> = {
  scope: 'INVALID_SCOPE',
  url: 'INVALID_URL',
  event_types: 'INVALID_EVENT_TYPES',
};

export const IdentityWebhookCreateRequestSchema = withFieldCodes(
  z
    .object({
      scope: z.string().min(1).max(64),
      url: z.string().min(1).max(WEBHOOK_LIMITS.maxUrlLength),
      event_types: z.array(z.string().max(64)).max(WEBHOOK_LIMITS.maxEventTypeEntries).optional(),
      description: z.string().max(WEBHOOK_LIMITS.maxDescriptionLength).optional(),
    })
    .superRefine((req, ctx) => {
      if (!asIssue(ctx, () => parseIdentityScope(req.scope))) return;
      if (req.description?.trim() && /[\u0000-\u001f\u007f]/.test(req.description)) {
        return addCodedIssue(ctx, 'BAD_REQUEST', 'description: control characters are not allowed');
      }
      asIssue(ctx, () => parseIdentityEventTypes(req.event_types));
    }),
  { fields: FIELD_CODES },
);
export type IdentityWebhookCreateRequest = z.infer<typeof IdentityWebhookCreateRequestSchema>;

export const IdentityWebhookSchema = z.object({
  id: z.string(),
  scope: z.object({ type: z.enum(['wallet', 'name', 'registry']), value: z.string() }),
  url: z.string(),
  /** As given, normalized: types, `family.*`, or `*`. */
  event_types: z.array(z.string()),
  description: z.string().nullable(),
  status: z.enum(['active', 'paused']),
  paused_reason: z.string().nullable(),
  /** Events from this sequence on are delivered; the log serves earlier ones. */
  from_sequence: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type IdentityWebhook = z.infer<typeof IdentityWebhookSchema>;
export const IdentityWebhookCreatedSchema = IdentityWebhookSchema.extend({ secret: z.string() });
export type IdentityWebhookCreated = z.infer<typeof IdentityWebhookCreatedSchema>;

// ---------------------------------------------------------------------------------------------------------
// Recover (both streams)

/** ISO 8601 (with offset) or unix seconds. */
const recoverTime = z.union([z.iso.datetime({ offset: true }), z.number().int().min(0)]);

/**
 * The input of POST …/webhooks/{id}/recover (both streams): the webhook id from the path plus `{since, until?}`
 * (deliveries created at or after `since`, before `until`, default now); `until` must be after `since`.
 */
export const RecoverInputSchema = withFieldCodes(
  z
    .object({ id: z.string().min(1).max(128), since: recoverTime, until: recoverTime.optional() })
    .refine((r) => r.until === undefined || toMs(r.until) > toMs(r.since), {
      message: 'until must be after since',
      path: ['until'],
    }),
  { fields: {} },
);
export const RecoverResponseSchema = z.object({
  /** Deliveries put back in the queue by this call (0 when repeated: they are pending already). */
  requeued: z.number().int(),
  /** Failed or dead deliveries of the window now pending (this call's and earlier ones). */
  pending: z.number().int(),
});

/** ISO 8601 or unix seconds → epoch ms. */
export function toMs(t: string | number): number {
  return typeof t === 'number' ? t * 1000 : Date.parse(t);
}

// ---------------------------------------------------------------------------------------------------------
// The log

export const IdentityEventsQuerySchema = withFieldCodes(
  z
    .object({
      /** A sequence (the last one read); absent = from the oldest kept. */
      after: z.coerce.number().int().min(0).optional(),
      /** Comma-separated event_types grammar. */
      types: z.string().max(1024).optional(),
      handle: z.string().max(64).optional(),
      wallet: z.string().max(64).optional(),
      limit: z.coerce.number().int().min(1).max(IDENTITY_LIMITS.pageMax).default(IDENTITY_LIMITS.pageDefault),
    })
    .superRefine((q, ctx) => {
      if (q.types !== undefined) asIssue(ctx, () => parseIdentityEventTypes(q.types!.split(',')));
      if (q.wallet !== undefined && !isBase58Address(q.wallet))
        addCodedIssue(ctx, 'INVALID_WALLET', 'wallet: expected a base58 wallet address');
      if (q.handle !== undefined)
        asIssue(ctx, () => parseWebhookScope(q.handle!.startsWith('@') ? q.handle! : `@${q.handle}`));
    }),
  { fields: { types: 'INVALID_EVENT_TYPES', wallet: 'INVALID_WALLET', handle: 'INVALID_SCOPE' } },
);
export type IdentityEventsQuery = z.infer<typeof IdentityEventsQuerySchema>;

/** A page of the log, with the log's bounds (the oldest sequence kept, the latest ever assigned). */
export const IdentityLogPageSchema = z.object({
  events: z.array(IdentityEventSchema),
  next_after: z.number().int().nullable(),
  has_more: z.boolean(),
  /** The oldest sequence kept (null: none kept, all removed by retention or none written yet). */
  oldest_sequence: z.number().int().nullable(),
  /** The latest sequence the log ever assigned (0: none yet); `after` may not exceed it. */
  latest_sequence: z.number().int(),
});
export type IdentityLogPage = z.infer<typeof IdentityLogPageSchema>;
