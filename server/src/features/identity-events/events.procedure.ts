import { z } from 'zod';
import { IdentityEventSchema, IdentityEventsQuerySchema } from '@sigil/contract/identity-events';
import { rest } from '../../trpc/meta';
import { API_KEY_ERRORS, apiKeyProcedure } from '../../trpc/procedures';

/** GET /v1/identity/events: the replayable log, in sequence order after a cursor. */
export const events = apiKeyProcedure
  .meta(
    rest('GET', '/v1/identity/events', {
      summary: 'Read the identity-change log',
      description:
        'Every registry change, in `sequence` order (deployment-wide, gapless), after the cursor `after` (a sequence; ' +
        'absent: from the oldest kept). Filters: `types` (comma-separated event types, families, `*`), `handle`, ' +
        '`wallet`; `limit` 1..200 (default 50). Kept 90 days (configurable). Each event is byte-for-byte the body its ' +
        'webhook deliveries carried. Continue with `after = next_after` while `has_more`.',
      tags: ['identity events'],
      protect: true,
      errors: {
        ...API_KEY_ERRORS,
        BAD_REQUEST: '`after` or `limit` malformed or out of range',
        INVALID_EVENT_TYPES: '',
        INVALID_WALLET: '',
        INVALID_SCOPE: '`handle` is not a top-level name',
      },
    }),
  )
  .input(IdentityEventsQuerySchema)
  .output(
    z.object({ events: z.array(IdentityEventSchema), next_after: z.number().int().nullable(), has_more: z.boolean() }),
  )
  .query(({ ctx, input }) => ctx.services.identityEvents.events(input));
