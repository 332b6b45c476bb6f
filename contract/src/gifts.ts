// Gifts (the registry's vouchers, docs/gifts.md): POST /gift/notify, by which a sender's app says a gift was just
// made so that the recipient hears of it at once, and GET /gift/{voucher}, the gift's claimable state.
import { z } from 'zod';

export const GIFT_LIMITS = {
  /** Notify calls one client address may make per UTC minute and per UTC day (shared store, every replica). */
  perMinute: 30,
  perDay: 2_000,
  /** How long a notify waits for the gift's event to enter the identity log before answering `pending`. */
  waitMs: 1_000,
  /** Gifts of one transaction answered (a transaction holds few instructions; the work of a call stays bounded). */
  maxGiftsPerTransaction: 16,
} as const;

export const GiftNotifyInputSchema = z.strictObject({
  signature: z
    .string()
    .max(256)
    .meta({
      description:
        'The signature of the finalized transaction that created the gift (`create_voucher`), base58. Sigil reads ' +
        'and checks the transaction itself; nothing else is taken from the caller.',
    }),
});

export const GiftEventRefSchema = z.strictObject({
  id: z.string().meta({ description: 'The `gift.created` identity event id (`iev_…`): stable, whoever indexes it.' }),
  status: z.enum(['logged', 'pending', 'outside_log']).meta({
    description:
      '`logged`: in the identity log (and fanned out to identity webhooks) under `sequence`. `pending`: not yet ' +
      '(the indexer was woken; it follows within seconds). `outside_log`: before the log’s start slot, or removed ' +
      'by retention: it will not be logged.',
  }),
  sequence: z.number().int().nullable().meta({ description: 'The event’s sequence when `logged`, else null.' }),
});

export const GiftHandleSchema = z.strictObject({
  account: z.string(),
  name: z.string().nullable().meta({ description: 'The handle’s name (null when the chain no longer has it).' }),
});

export const GiftCreatedSchema = z.strictObject({
  voucher: z.string().meta({ description: 'The voucher account: GET /gift/{voucher} reads its state.' }),
  handle: GiftHandleSchema,
  creator: z.string(),
  recipient: z.string(),
  expiresAt: z
    .string()
    .meta({ description: 'ISO 8601 UTC: the recipient may claim before it, the creator refund after.' }),
  event: GiftEventRefSchema,
});

export const GiftNotifyResultSchema = z
  .strictObject({
    signature: z.string(),
    slot: z.number().int(),
    gifts: z
      .array(GiftCreatedSchema)
      .meta({ description: 'Every gift the transaction created, in instruction order.' }),
  })
  .meta({ id: 'GiftNotifyResult' });
export type GiftNotifyResult = z.infer<typeof GiftNotifyResultSchema>;

export const GiftStateInputSchema = z.strictObject({
  voucher: z.string().max(64).meta({ description: 'The voucher account, base58.' }),
});

export const GIFT_STATES = ['claimable', 'expired', 'claimed', 'refunded'] as const;

export const GiftStateSchema = z
  .strictObject({
    voucher: z.string(),
    state: z.enum(GIFT_STATES).meta({
      description:
        '`claimable`: the recipient may claim it now (`claim_voucher`, or `claim_voucher_tokenized` for the NFT). ' +
        '`expired`: past `expiresAt`, unclaimed; only the creator may take it back (`refund_voucher`). `claimed` / ' +
        '`refunded`: settled (the voucher account is closed; known from the identity log).',
    }),
    handle: GiftHandleSchema.nullable().meta({ description: 'Null: a settled gift the log saw only settle.' }),
    creator: z.string().nullable(),
    recipient: z.string().nullable(),
    expiresAt: z
      .string()
      .nullable()
      .meta({ description: 'ISO 8601 UTC (null: a settled gift the log saw only settle).' }),
  })
  .meta({ id: 'GiftState' });
export type GiftState = z.infer<typeof GiftStateSchema>;
