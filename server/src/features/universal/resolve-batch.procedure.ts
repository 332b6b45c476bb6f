import { BatchResolveInputSchema, BatchResolveResultSchema, MAX_BATCH_NAMES } from '@sigil/contract/universal';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';

/**
 * One rate-limit unit per name. A request the input schema will refuse (not a list, or over the limit) costs 1,
 * so a 400 never drains the window.
 */
export function batchCost(rawInput: unknown): number {
  const names = (rawInput as { names?: unknown } | null)?.names;
  return Array.isArray(names) && names.length >= 1 && names.length <= MAX_BATCH_NAMES ? names.length : 1;
}

/**
 * POST /v1/resolve/batch: keyed only. x402 prices one call, and a batch is many, so it is not on meteredProcedure
 * (METERED_ROUTES does not list it).
 */
export const resolveBatch = apiKeyProcedure
  .meta(
    rest('POST', '/v1/resolve/batch', {
      summary: 'Resolve up to 100 names in one call (keyed)',
      description:
        '`{names, chain?}` → one item per name, in request order: what /v1/resolve-universal would answer, or its error ' +
        `as an item. Costs one rate-limit unit per name. At most ${MAX_BATCH_NAMES} names.`,
      tags: ['resolution'],
      protect: true,
      cost: batchCost,
      errors: {
        ...API_KEY_ERRORS,
        BAD_REQUEST: `no names, more than ${MAX_BATCH_NAMES}, or a chain not X1, SOL, ETH or BTC; per-name errors are items`,
      },
    }),
  )
  .input(BatchResolveInputSchema)
  .output(BatchResolveResultSchema)
  .mutation(({ ctx, input }) => ctx.services.universal.resolveBatch(input.names, input.chain));
