import { MAX_REVERSE_BATCH, ReverseBatchInputSchema, ReverseBatchResultSchema } from '@sigil/contract/reverse';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';

/**
 * One rate-limit unit per address (duplicates included: the caller asked for them). A request the input schema will
 * refuse costs 1, so a 400 never drains the window.
 */
export function reverseBatchCost(rawInput: unknown): number {
  const addresses = (rawInput as { addresses?: unknown } | null)?.addresses;
  return Array.isArray(addresses) && addresses.length >= 1 && addresses.length <= MAX_REVERSE_BATCH
    ? addresses.length
    : 1;
}

/** POST /v1/reverse/batch: keyed only, like the resolve batch (x402 prices one call, a batch is many). */
export const reverseBatch = apiKeyProcedure
  .meta(
    rest('POST', '/v1/reverse/batch', {
      summary: `Reverse-resolve up to ${MAX_REVERSE_BATCH} wallets in one call (keyed)`,
      description:
        '`{addresses}` → one item per address, in request order: what GET /v1/reverse/{address} would answer, or its ' +
        'error as an item; duplicates are read once. Costs one rate-limit unit per address. Plain handles cost two ' +
        'RPC calls for the whole batch (docs/reverse.md).',
      tags: ['resolution'],
      protect: true,
      cost: reverseBatchCost,
      errors: {
        ...API_KEY_ERRORS,
        BAD_REQUEST: `no addresses, or more than ${MAX_REVERSE_BATCH}; a bad address is an item`,
        RPC_ERROR: 'the chain could not be read for the batch; retry',
      },
    }),
  )
  .input(ReverseBatchInputSchema)
  .output(ReverseBatchResultSchema)
  .mutation(({ ctx, input }) => ctx.services.reverse.reverseBatch(input.addresses));
