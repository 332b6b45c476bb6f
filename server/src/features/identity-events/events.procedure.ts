import { IdentityEventsQuerySchema, IdentityLogPageSchema } from '@sigil/contract/identity-events';
import { rest } from '../../trpc/meta';
import { API_KEY_ERRORS, apiKeyProcedure } from '../../trpc/procedures';
import { storedOutput } from '../../trpc/stored-output';

/** GET /v1/identity/events: the replayable log, in sequence order after a cursor. */
export const events = apiKeyProcedure
  .meta(
    rest('GET', '/v1/identity/events', {
      summary: 'Read the identity-change log',
      description:
        'Every registry change, in `sequence` order (deployment-wide, gapless), after the cursor `after` (a sequence; ' +
        'absent: from the oldest kept). Filters: `types` (comma-separated event types, families, `*`), `handle`, ' +
        '`wallet`; `limit` 1..200 (default 50). Kept 90 days (configurable). Each event is byte-for-byte the body its ' +
        "webhook deliveries carried. Continue with `after = next_after` while `has_more`. Every page names the log's " +
        'bounds (`oldest_sequence` kept, `latest_sequence` assigned); a cursor beyond the latest answers 409 ' +
        'CURSOR_AHEAD, one behind the oldest kept 410 CURSOR_EXPIRED, each message naming the bounds.',
      tags: ['identity events'],
      protect: true,
      errors: {
        ...API_KEY_ERRORS,
        BAD_REQUEST: '`after` or `limit` malformed or out of range',
        INVALID_EVENT_TYPES: '',
        INVALID_WALLET: '',
        INVALID_SCOPE: '`handle` is not a top-level name',
        CURSOR_AHEAD: "`after` is beyond the latest sequence (a log rebuilt, or another deployment's cursor)",
        CURSOR_EXPIRED: 'retention removed events after `after`: the consumer missed them',
      },
    }),
  )
  .input(IdentityEventsQuerySchema)
  .output(storedOutput(IdentityLogPageSchema))
  .query(({ ctx, input }) => ctx.services.identityEvents.log(input));
