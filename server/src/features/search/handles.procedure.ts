import { SearchHandlesQuerySchema, SearchHandlesResponseSchema } from '@sigil/contract/search';
import { rest } from '../../trpc/meta';
import { API_KEY_ERRORS, apiKeyProcedure } from '../../trpc/procedures';

/** GET /v1/search/handles?q=&mode=&agent=&limit=&cursor=: prefix or substring search over the handle index. */
export const handles = apiKeyProcedure
  .meta(
    rest('GET', '/v1/search/handles', {
      summary: 'Search handles (prefix or substring)',
      description:
        'Searches the handles the service has indexed from the registry (refreshed every few seconds, so a handle ' +
        'registered just now may be missing for one interval). Name order; `nextCursor` continues. `agent=true`: ' +
        'agent handles only. Keyed, never x402-metered (docs/search.md).',
      tags: ['search'],
      protect: true,
      errors: {
        ...API_KEY_ERRORS,
        BAD_REQUEST:
          '`q` empty or over 32 characters, unknown `mode`, `agent` not true/false, `limit` out of 1-100, ' +
          'or a `cursor` this search did not issue',
      },
    }),
  )
  .input(SearchHandlesQuerySchema)
  .output(SearchHandlesResponseSchema)
  .query(({ ctx, input }) => ctx.services.search.searchHandles(input));
