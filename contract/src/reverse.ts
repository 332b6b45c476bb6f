// The keyed reverse (docs/reverse.md): a wallet → its primary handle under the public reverse's trust rules, plus
// what the public face cannot say: whether the handle resolves back to the wallet, the slot of the proof, and which
// rule failed when there is no trusted primary.
import { z } from 'zod';
import { V1_ERRORS, type V1ErrorCode } from './errors';

/** The trust rules in the order they are checked; a result names the first that failed. */
export const REVERSE_FAILED_RULES = [
  'no-pointer',
  'handle-missing',
  'pointer-older-than-registration',
  'authority-lost',
] as const;

/** The most addresses one batch may ask for. */
export const MAX_REVERSE_BATCH = 100;

const Base58Address = z.string().meta({ description: 'Base58 address.' });

export const KeyedReverseInputSchema = z.object({
  address: z.string().meta({ description: 'Wallet address, base58.' }),
});

export const KeyedReverseResultSchema = z
  .strictObject({
    input: z.string().meta({ description: 'The raw value passed.' }),
    address: Base58Address.meta({ description: 'The wallet that was looked up.' }),
    handle: z
      .string()
      .nullable()
      .meta({ description: 'The trusted primary handle (normalized, no `@`), or null when a rule failed.' }),
    failedRule: z
      .enum(REVERSE_FAILED_RULES)
      .nullable()
      .meta({
        description:
          'null when `handle` is trusted; otherwise the first rule that failed: `no-pointer` (no primary pointer), ' +
          '`handle-missing` (the handle it names does not exist or was released), `pointer-older-than-registration` ' +
          '(set under an earlier registration of the name), `authority-lost` (the wallet no longer owns the handle or ' +
          'holds its NFT in its associated token account).',
      }),
    pointedHandle: z.string().nullable().meta({
      description: 'The handle the pointer names, trusted or not (null: no pointer, or the handle account is gone).',
    }),
    forwardMatch: z.boolean().meta({
      description:
        'True when the pointed handle resolves forward to this wallet right now (its current authority is this ' +
        'address). Can be true for an untrusted pointer (`pointer-older-than-registration`).',
    }),
    authority: Base58Address.nullable().meta({
      description: "The pointed handle's current authority (owner, or NFT holder), null when nobody holds it.",
    }),
    pointer: z
      .strictObject({
        account: Base58Address,
        handleAccount: Base58Address,
        setSlot: z.number().int(),
        setAt: z.number().int().meta({ description: 'Unix seconds.' }),
      })
      .nullable()
      .meta({ description: 'The primary pointer account as read, or null when there is none.' }),
    slot: z.number().int().meta({ description: 'The slot the handle was proven at (the last account read).' }),
  })
  .meta({ id: 'KeyedReverseResult' });

export const ReverseBatchInputSchema = z
  .object({
    addresses: z
      .array(z.string())
      .min(1, 'at least one address')
      .max(MAX_REVERSE_BATCH, `at most ${MAX_REVERSE_BATCH} addresses`)
      .meta({ description: `1 to ${MAX_REVERSE_BATCH} wallet addresses; duplicates are answered once.` }),
  })
  .meta({ id: 'ReverseBatchRequest' });

const V1_ERROR_CODES = Object.keys(V1_ERRORS) as [V1ErrorCode, ...V1ErrorCode[]];

export const ReverseBatchItemSchema = z
  .strictObject({
    input: z.string(),
    ok: z.boolean(),
    result: KeyedReverseResultSchema.optional(),
    error: z.strictObject({ status: z.number().int(), code: z.enum(V1_ERROR_CODES), message: z.string() }).optional(),
  })
  .meta({
    id: 'ReverseBatchItem',
    description: '`ok: true` with `result`, or `ok: false` with the error the single endpoint would answer.',
  });

export const ReverseBatchResultSchema = z
  .strictObject({
    results: z.array(ReverseBatchItemSchema).meta({ description: 'One item per requested address, in request order.' }),
    slot: z.number().int().meta({ description: 'The slot every handle of the batch was proven at or after.' }),
  })
  .meta({ id: 'ReverseBatchResult' });

export type KeyedReverseResult = z.infer<typeof KeyedReverseResultSchema>;
export type ReverseBatchItem = z.infer<typeof ReverseBatchItemSchema>;
export type ReverseBatchResult = z.infer<typeof ReverseBatchResultSchema>;
export type ReverseFailedRule = (typeof REVERSE_FAILED_RULES)[number];
