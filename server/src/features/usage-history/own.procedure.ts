import { z } from 'zod';
import { UsageHistoryQuerySchema, UsageHistoryResponseSchema } from '@sigil/contract/usage-history';
import { rest } from '../../trpc/meta';
import { API_KEY_ERRORS, apiKeyProcedure } from '../../trpc/procedures';

/**
 * GET /v1/usage/history/key: the calling key's own history (X-API-Key), so a backend can read its usage without a
 * portal session. The read is itself a keyed request, counted like any other.
 */
export const own = apiKeyProcedure
  .meta(
    rest('GET', '/v1/usage/history/key', {
      summary: "The calling key's usage over time",
      description:
        'The same buckets as `GET /v1/usage/history` for the key in `X-API-Key` (`key_id` is implied). Rate limited ' +
        'like every keyed route.',
      tags: ['keys'],
      protect: true,
      errors: { ...API_KEY_ERRORS, BAD_REQUEST: 'unknown `range`' },
    }),
  )
  .input(z.object({ range: UsageHistoryQuerySchema.shape.range }).strict())
  .output(UsageHistoryResponseSchema)
  .query(({ ctx, input }) =>
    ctx.services.usageHistory.history(ctx.apiKey.account, { range: input.range, key_id: ctx.apiKey.id }),
  );
