// The event catalog: every event type of every webhook stream (pay, identity) with an example payload, as a
// receiver gets it. The examples are written against the payload schemas of pay-events.ts and identity-events.ts
// and parse with them (event-catalog.test.ts); a test event of a chosen type is its example with the webhook's own
// wallet or name, a fresh id and `test: true` (the server's streams build them from here). Pure: no I/O.
import { z } from 'zod';
import {
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENT_TYPES,
  IDENTITY_EVENTS_SCHEMA,
  IdentityEventSchema,
  type IdentityEvent,
} from './identity-events';
import { PAY_EVENT_NOTICE, PAY_EVENTS_SCHEMA, PayEventSchema, payEventId, type PayEvent } from './pay-events';
import { PAY_EVENT_TYPES, type PayEventType } from './webhooks';

export const WEBHOOK_STREAMS = ['pay', 'identity'] as const;
export type WebhookStreamName = (typeof WEBHOOK_STREAMS)[number];
export const WebhookStreamSchema = z.enum(WEBHOOK_STREAMS);

// Addresses of the right shape. PAYEE is whoever the example is about (the recipient, the payee, the new owner): a
// test event puts the webhook's own wallet there.
const PAYEE = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const PAYER = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TOKEN_ACCOUNT = 'GSNgpNrEPgvV7t2rqPDbhjfTpZTb5CFcMKV7oGDaBxBA';
const INVOICE = 'Bw5QkPnxKMBJMv8hVd2mWGbTQsyf2Z1rHcNmpZ4oVLzT';
const HANDLE_ACCOUNT = 'HkSfGeyHbZ4vJzgqhKo5a1dDq1CMXdNgMmkEuX3vYWnp';
const OTHER = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D8xzHvGrfkXh';
const REFERENCE = '3UYTxqqTiNrp1mZLjHTbqw8KdGJTNyD4hQb8TFbuEnQW';
const TX_SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
const BLOCK_TIME = '2026-01-15T12:00:00Z';

const chain = {
  signature: TX_SIGNATURE,
  ixIndex: 0,
  innerIndex: -1,
  slot: 312_450_118,
  blockTime: BLOCK_TIME,
  commitment: 'finalized' as const,
  finalized: true as const,
};

const payment = <K extends 'transfer' | 'invoice'>(kind: K) => ({
  kind,
  payer: PAYER,
  recipient: PAYEE,
  recipientTokenAccount: TOKEN_ACCOUNT,
  asset: 'spl' as const,
  mint: MINT,
  amount: '2500000',
  fee: '0',
  net: '2500000',
  invoice: kind === 'invoice' ? INVOICE : null,
  reference: REFERENCE,
  references: [REFERENCE],
  memo: 'order 1042',
  binding: {
    status: 'verified' as const,
    handles: [
      {
        name: 'alice',
        tld: null,
        account: HANDLE_ACCOUNT,
        basis: kind === 'invoice' ? ('invoice' as const) : ('owner' as const),
        checkedSlot: 312_450_118,
      },
    ],
  },
});

const invoiceDetail = {
  address: INVOICE,
  payee: PAYEE,
  actor: PAYEE,
  mint: MINT,
  amount: '2500000',
  expiresAt: '1768521600',
  bound: true,
  handleAccount: HANDLE_ACCOUNT,
  createIndexed: true,
};

const payBase = <T extends PayEventType>(type: T) => ({
  schema: PAY_EVENTS_SCHEMA as typeof PAY_EVENTS_SCHEMA,
  id: payEventId(TX_SIGNATURE, 0, -1, type),
  type,
  notice: PAY_EVENT_NOTICE as typeof PAY_EVENT_NOTICE,
  chain,
});

/** One example of every pay event type. */
const PAY_EXAMPLES: Record<PayEventType, PayEvent> = {
  'payment.received': { ...payBase('payment.received'), payment: payment('transfer') },
  'payment.binding_verified': { ...payBase('payment.binding_verified'), payment: payment('transfer') },
  'invoice.paid': {
    ...payBase('invoice.paid'),
    payment: payment('invoice'),
    invoice: { address: INVOICE, payee: PAYEE },
  },
  'invoice.created': { ...payBase('invoice.created'), payment: null, invoice: invoiceDetail },
  'invoice.cancelled': { ...payBase('invoice.cancelled'), payment: null, invoice: invoiceDetail },
  'invoice.closed': { ...payBase('invoice.closed'), payment: null, invoice: { ...invoiceDetail, closedStatus: 1 } },
};

// ---------------------------------------------------------------------------------------------------------
// Identity

const handle = { name: 'alice', account: HANDLE_ACCOUNT };
const owner = { before: OTHER, after: PAYEE };
const bought = (extra: object) => ({ handle, actors: { signer: PAYEE, buyer: PAYEE, seller: OTHER }, ...extra });

/** Per identity type: what differs from the common fields (handle, actors, change). */
const IDENTITY_PARTS: Record<(typeof IDENTITY_EVENT_TYPES)[number], Record<string, unknown>> = {
  'handle.registered': {
    handle,
    actors: { signer: PAYEE },
    change: { handleType: 0, owner: { before: null, after: PAYEE } },
  },
  'handle.released': { handle, actors: { signer: PAYEE }, change: { owner: { before: PAYEE, after: null } } },
  'handle.transferred': { handle, actors: { signer: OTHER, newOwner: PAYEE }, change: { owner } },
  'handle.tokenized': {
    handle,
    actors: { signer: PAYEE },
    change: { tokenized: { before: false, after: true }, mint: { before: null, after: MINT } },
  },
  'primary.set': {
    handle,
    actors: { signer: PAYEE, wallet: PAYEE },
    change: { wallet: PAYEE, primary: { before: null, after: 'alice' } },
  },
  'primary.cleared': {
    handle,
    actors: { signer: OTHER, wallet: PAYEE },
    change: { wallet: PAYEE, primary: { before: 'alice', after: null }, reason: 'handle_transferred' },
  },
  'record.set': {
    handle,
    actors: { signer: PAYEE },
    change: {
      kind: 'address',
      key: 'X1',
      record: TOKEN_ACCOUNT,
      value: { before: null, after: PAYEE },
      verified: { before: null, after: false },
    },
  },
  'record.verified': {
    handle,
    actors: { signer: PAYEE },
    change: {
      kind: 'address',
      key: 'X1',
      record: TOKEN_ACCOUNT,
      value: PAYEE,
      verified: { before: false, after: true },
    },
  },
  'record.deleted': {
    handle,
    actors: { signer: PAYEE },
    change: {
      kind: 'text',
      key: 'url',
      record: TOKEN_ACCOUNT,
      value: { before: 'https://alice.example', after: null },
    },
  },
  'attestation.created': {
    handle,
    actors: { signer: OTHER, issuer: OTHER },
    change: { attestation: REFERENCE, platform: 'github', subject: 'alice', expiresAt: null },
  },
  'attestation.revoked': {
    handle,
    actors: { signer: OTHER, issuer: OTHER },
    change: {
      attestation: REFERENCE,
      platform: 'github',
      subject: 'alice',
      revoked: { before: false, after: true },
    },
  },
  'namespace.created': {
    handle: null,
    actors: { signer: PAYEE, authority: PAYEE },
    change: { namespace: REFERENCE, tld: 'x1' },
  },
  'domain.registered': {
    handle: null,
    actors: { signer: PAYEE, owner: PAYEE },
    change: {
      domain: { account: TOKEN_ACCOUNT, label: 'satoshi', tld: 'x1', namespace: REFERENCE },
      owner: { before: null, after: PAYEE },
    },
  },
  'offer.made': { handle, actors: { signer: OTHER, buyer: OTHER }, change: { offer: REFERENCE, amount: '5000000' } },
  'offer.cancelled': {
    handle,
    actors: { signer: OTHER, buyer: OTHER },
    change: { offer: REFERENCE, amount: '5000000' },
  },
  'offer.accepted': bought({ change: { offer: REFERENCE, amount: '5000000', owner } }),
  'listing.created': {
    handle,
    actors: { signer: OTHER, seller: OTHER },
    change: { listing: REFERENCE, price: '5000000' },
  },
  'listing.cancelled': {
    handle,
    actors: { signer: OTHER, seller: OTHER },
    change: { listing: REFERENCE, price: '5000000' },
  },
  'listing.sold': bought({ change: { listing: REFERENCE, price: '5000000', owner } }),
  'auction.created': {
    handle,
    actors: { signer: OTHER, seller: OTHER },
    change: { auction: REFERENCE, reserve: '1000000', durationSeconds: 86_400 },
  },
  'auction.bid': {
    handle,
    actors: { signer: PAYEE, bidder: PAYEE },
    change: { auction: REFERENCE, amount: '1500000', previousBidder: null },
  },
  'auction.settled': {
    handle,
    actors: { signer: PAYEE, buyer: PAYEE, seller: OTHER },
    change: { auction: REFERENCE, winner: PAYEE, owner },
  },
  'auction.cancelled': { handle, actors: { signer: OTHER, seller: OTHER }, change: { auction: REFERENCE } },
  'auction.closed': { handle, actors: { signer: OTHER }, change: { auction: REFERENCE } },
  'gift.created': {
    handle,
    actors: { signer: OTHER, creator: OTHER, recipient: PAYEE },
    change: { voucher: REFERENCE, recipient: PAYEE, expiresAt: null, owner: { before: OTHER, after: null } },
  },
  'gift.claimed': {
    handle,
    actors: { signer: PAYEE, recipient: PAYEE },
    change: { voucher: REFERENCE, owner: { before: null, after: PAYEE } },
  },
  'gift.refunded': {
    handle,
    actors: { signer: OTHER, creator: OTHER },
    change: { voucher: REFERENCE, owner: { before: null, after: OTHER } },
  },
  'lease.started': {
    handle,
    actors: { signer: PAYEE, lessee: PAYEE },
    change: { lease: REFERENCE, amount: '1000000', owner },
  },
  'lease.paid': { handle, actors: { signer: PAYEE, lessee: PAYEE }, change: { lease: REFERENCE, amount: '1000000' } },
  'lease.reclaimed': {
    handle,
    actors: { signer: OTHER, owner: OTHER },
    change: { lease: REFERENCE, owner: { before: PAYEE, after: OTHER } },
  },
  'recovery.initiated': {
    handle,
    actors: { signer: OTHER, newOwner: PAYEE },
    change: { recovery: REFERENCE, newOwner: PAYEE },
  },
  'recovery.completed': {
    handle,
    actors: { signer: OTHER, newOwner: PAYEE },
    change: { recovery: REFERENCE, owner },
  },
  'record.delegate_set': {
    handle,
    actors: { signer: PAYEE, delegate: OTHER },
    change: { delegate: { before: null, after: OTHER } },
  },
  'namespace.pricing_set': {
    handle: null,
    actors: { signer: PAYEE, authority: PAYEE },
    change: { namespace: REFERENCE, price: { before: '1000000', after: '2000000' } },
  },
};

const identityExample = (type: (typeof IDENTITY_EVENT_TYPES)[number], n: number): IdentityEvent =>
  ({
    schema: IDENTITY_EVENTS_SCHEMA,
    // 16 base58 characters after the prefix (7 + 9), distinct per type.
    id: `iev_ExampLe${String(n + 1)
      .padStart(9, '0')
      .replace(/\d/g, (d) => 'ABCDEFGHJK'[Number(d)]!)}`,
    type,
    sequence: 1042 + n,
    notice: IDENTITY_EVENT_NOTICE,
    chain,
    ...IDENTITY_PARTS[type],
  }) as IdentityEvent;

// ---------------------------------------------------------------------------------------------------------
// The catalog

export const EventCatalogEntrySchema = z.object({
  stream: WebhookStreamSchema,
  type: z.string(),
  /** A payload of this type exactly as a receiver gets it (its stream's schema). */
  payload: z.record(z.string(), z.unknown()),
});
export type EventCatalogEntry = z.infer<typeof EventCatalogEntrySchema>;
export const EventCatalogResponseSchema = z.object({ event_types: z.array(EventCatalogEntrySchema) });

/** Every event type of every stream with its example, pay first, each stream in its canonical type order. */
export function eventCatalog(): EventCatalogEntry[] {
  return [
    ...PAY_EVENT_TYPES.map((type) => ({ stream: 'pay' as const, type, payload: payExample(type) })),
    ...IDENTITY_EVENT_TYPES.map((type) => ({ stream: 'identity' as const, type, payload: identityEventExample(type) })),
  ];
}

/** The example of a pay event type (a fresh copy: callers may change it). */
export function payExample(type: PayEventType): PayEvent {
  return structuredClone(PAY_EXAMPLES[type]) as PayEvent;
}

/** The example of an identity event type (a fresh copy). */
export function identityEventExample(type: (typeof IDENTITY_EVENT_TYPES)[number]): IdentityEvent {
  return structuredClone(identityExample(type, IDENTITY_EVENT_TYPES.indexOf(type)));
}

/** The schemas the examples are written against, per stream (what the tests parse them with). */
export const STREAM_PAYLOAD_SCHEMAS = { pay: PayEventSchema, identity: IdentityEventSchema } as const;

/** The address the examples are about (recipient, payee, new owner): test events put the webhook's own there. */
export const EXAMPLE_SUBJECT = PAYEE;
