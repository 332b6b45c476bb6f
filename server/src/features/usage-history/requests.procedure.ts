import { RequestLogPageSchema, RequestLogQuerySchema } from '@sigil/contract/usage-history';
import { rest } from '../../trpc/meta';
import { sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';

/** GET /v1/usage/requests: the latest requests of the account (or of one key), newest first, paged. */
export const requests = sessionProcedure
  .meta(
    rest('GET', '/v1/usage/requests', {
      summary: 'Request log',
      description:
        'The latest keyed requests of your keys and the x402 calls you paid: time, method, route template, status, ' +
        'latency and request id, newest first, filterable by key, status class and request id. The newest 1,000 ' +
        'requests of each key are kept, for 7 days; a replica writes its rows every 5 s (docs/usage-history.md).',
      tags: ['keys'],
      protect: true,
      errors: { ...SESSION_ERRORS, BAD_REQUEST: 'a malformed filter or cursor', KEY_NOT_FOUND: 'not one of your keys' },
    }),
  )
  .input(RequestLogQuerySchema)
  .output(RequestLogPageSchema)
  .query(({ ctx, input }) => ctx.services.usageHistory.requestLog(ctx.session.address, input));
