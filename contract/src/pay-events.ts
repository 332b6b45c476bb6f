// The `sigil.pay-events/v1` payload delivered to pay webhooks (spec "Pay event payload"), its stable id and
// the 64 KiB trim rule. Pure: no I/O.
import { base58 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { z } from 'zod';
import { PayEventTypeSchema, WEBHOOK_LIMITS, type PayEventType } from './webhooks';

export const PAY_EVENTS_SCHEMA = 'sigil.pay-events/v1';

/** The fixed `notice` of every payload. */
export const PAY_EVENT_NOTICE =
  'Notification only: the chain is the source of truth. Confirm the transaction on chain before releasing value.';

export const PAY_EVENT_ID_PREFIX = 'pev_';

const address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'base58 address');
const txSignature = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, 'base58 transaction signature');
/** Base-unit integer as a decimal string (no sign, no leading zeros). */
const amount = z.string().regex(/^(0|[1-9]\d*)$/, 'decimal base-unit amount');

export const PayEventChainSchema = z.object({
  signature: txSignature,
  /** Top-level instruction index. */
  ixIndex: z.number().int().min(0),
  /** -1 = top level, else the position among the instruction's inner (CPI) instructions. */
  innerIndex: z.number().int().min(-1),
  slot: z.number().int().min(0),
  /** ISO 8601 UTC, or null when the RPC had no block time. */
  blockTime: z.iso.datetime().nullable(),
  commitment: z.literal('finalized'),
  finalized: z.literal(true),
});

export const BindingHandleSchema = z.object({
  name: z.string(),
  /** null for a plain handle, else the namespace TLD. */
  tld: z.string().nullable(),
  /** The Handle (or Domain) account address. */
  account: address,
  basis: z.enum(['owner', 'holder', 'verified-record', 'invoice']),
  /** The slot whose chain state proved the binding. */
  checkedSlot: z.number().int().min(0),
});

export const PaymentBindingSchema = z.object({
  status: z.enum(['verified', 'none', 'unbound', 'unverifiable']),
  handles: z.array(BindingHandleSchema),
});

export const PaymentSchema = z.object({
  kind: z.enum(['invoice', 'transfer']),
  payer: address,
  /** The wallet paid; for token transfers the token account's owner. */
  recipient: address,
  recipientTokenAccount: address.nullable(),
  asset: z.enum(['native', 'spl']),
  /** null = native asset. */
  mint: address.nullable(),
  amount,
  /** Protocol fee ("0" for a plain transfer); null if unknown. */
  fee: amount.nullable(),
  /** What the recipient received; null if unknown. */
  net: amount.nullable(),
  invoice: address.nullable(),
  /** First payment-request reference. Kept when the body is trimmed: it is the key to match orders on. */
  reference: address.nullable(),
  /** Dropped (absent) only when the payload is `truncated`. */
  references: z.array(address).optional(),
  /** Public, unauthenticated, display only. Dropped (absent) only when the payload is `truncated`. */
  memo: z.string().optional(),
  binding: PaymentBindingSchema,
});
export type Payment = z.infer<typeof PaymentSchema>;

/** invoice.created / invoice.cancelled. */
export const InvoiceDetailSchema = z.object({
  address,
  payee: address,
  /** Who signed the instruction. */
  actor: address,
  mint: address.nullable(),
  amount,
  /** Unix seconds as a string. */
  expiresAt: z.string().regex(/^-?\d+$/),
  /** Created bound to an `@name`. */
  bound: z.boolean(),
  /** The bound Handle account; null when `bound` is false (the account stores no handle then). */
  handleAccount: address.nullable(),
  /** False when the invoice was created before the indexed range (its creation was not seen). */
  createIndexed: z.boolean(),
});

/** invoice.closed: the detail plus the status at close time (0 open/expired, 1 paid, 2 cancelled). */
export const InvoiceClosedSchema = InvoiceDetailSchema.extend({
  closedStatus: z.union([z.literal(0), z.literal(1), z.literal(2)]),
});

/** invoice.paid (and payment.binding_verified for an invoice payment) carry only the address and payee. */
export const InvoiceRefSchema = z.object({ address, payee: address });

const base = {
  schema: z.literal(PAY_EVENTS_SCHEMA),
  id: z.string().regex(/^pev_[1-9A-HJ-NP-Za-km-z]+$/),
  notice: z.literal(PAY_EVENT_NOTICE),
  chain: PayEventChainSchema,
  /** Present (true) only when the body was trimmed to fit 64 KiB. */
  truncated: z.literal(true).optional(),
  /** Present (true) only on a test event sent by POST /v1/pay/webhooks/{id}/test. */
  test: z.literal(true).optional(),
};

export const PayEventSchema = z
  .discriminatedUnion('type', [
    z.object({
      ...base,
      type: z.literal('payment.received'),
      payment: PaymentSchema.extend({ kind: z.literal('transfer') }),
    }),
    z.object({
      ...base,
      type: z.literal('invoice.paid'),
      payment: PaymentSchema.extend({ kind: z.literal('invoice') }),
      invoice: InvoiceRefSchema,
    }),
    z.object({
      ...base,
      type: z.literal('payment.binding_verified'),
      payment: PaymentSchema,
      invoice: InvoiceRefSchema.optional(),
    }),
    z.object({ ...base, type: z.literal('invoice.created'), payment: z.null(), invoice: InvoiceDetailSchema }),
    z.object({ ...base, type: z.literal('invoice.cancelled'), payment: z.null(), invoice: InvoiceDetailSchema }),
    z.object({ ...base, type: z.literal('invoice.closed'), payment: z.null(), invoice: InvoiceClosedSchema }),
  ])
  .superRefine((event, ctx) => {
    // memo and references may be missing only from a trimmed body.
    if (
      event.payment &&
      !event.truncated &&
      (event.payment.memo === undefined || event.payment.references === undefined)
    ) {
      ctx.addIssue({
        code: 'custom',
        message: 'payment.memo and payment.references are required unless truncated',
        path: ['payment'],
      });
    }
  });
export type PayEvent = z.infer<typeof PayEventSchema>;

/**
 * Stable event id, the receivers' dedupe key: `pev_` + base58(SHA-256 of
 * `sigil.pay-events/v1|<signature>|<ixIndex>|<innerIndex>|<type>`). The same instruction seen twice (restart,
 * replica, re-index) yields the same id; a later payment.binding_verified of the same payment gets its own id.
 */
export function payEventId(signature: string, ixIndex: number, innerIndex: number, type: PayEventType): string {
  if (!Number.isInteger(ixIndex) || ixIndex < 0) throw new RangeError('ixIndex must be an integer >= 0');
  if (!Number.isInteger(innerIndex) || innerIndex < -1) throw new RangeError('innerIndex must be an integer >= -1');
  PayEventTypeSchema.parse(type);
  const preimage = `${PAY_EVENTS_SCHEMA}|${signature}|${ixIndex}|${innerIndex}|${type}`;
  return PAY_EVENT_ID_PREFIX + base58.encode(sha256(new TextEncoder().encode(preimage)));
}

const utf8 = new TextEncoder();

/** Serialized size in bytes (UTF-8) of a payload as it goes on the wire. */
export function serializedBytes(body: string): number {
  return utf8.encode(body).length;
}

/**
 * Fits a payload into the delivery body limit: when its JSON is over `limit` bytes, the memo and references
 * are dropped and `truncated: true` is set. Returns the payload to send and its exact serialized body (sign
 * and send these bytes). `fits` is false when even the trimmed body is over the limit (the caller decides).
 */
export function trimToLimit<T extends PayEvent>(
  payload: T,
  limit: number = WEBHOOK_LIMITS.maxBodyBytes,
): { payload: T; body: string; truncated: boolean; fits: boolean } {
  const body = JSON.stringify(payload);
  if (serializedBytes(body) <= limit) return { payload, body, truncated: false, fits: true };
  const trimmed = { ...payload, truncated: true } as T;
  if (payload.payment) {
    const { memo: _memo, references: _references, ...rest } = payload.payment;
    (trimmed as { payment: unknown }).payment = rest;
  }
  const trimmedBody = JSON.stringify(trimmed);
  return { payload: trimmed, body: trimmedBody, truncated: true, fits: serializedBytes(trimmedBody) <= limit };
}
