import { UsageHistoryQuerySchema, UsageHistoryResponseSchema } from '@sigil/contract/usage-history';
import { rest } from '../../trpc/meta';
import { sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';

/** GET /v1/usage/history: the account's (or one key's) request counts over time by outcome, zero-filled. */
export const history = sessionProcedure
  .meta(
    rest('GET', '/v1/usage/history', {
      summary: 'Usage over time',
      description:
        'Counts per bucket and outcome (`served`, `client_error`, `rate_limited`, `server_error`, `paid`) for the ' +
        'whole account or one of its keys, oldest bucket first, every bucket present. Minute rows are kept 48 h, ' +
        'hour rows 35 days; a replica writes its counts every 5 s (docs/usage-history.md).',
      tags: ['keys'],
      protect: true,
      errors: { ...SESSION_ERRORS, BAD_REQUEST: 'unknown `range`', KEY_NOT_FOUND: 'not one of your keys' },
    }),
  )
  .input(UsageHistoryQuerySchema)
  .output(UsageHistoryResponseSchema)
  .query(({ ctx, input }) => ctx.services.usageHistory.history(ctx.session.address, input));
