import { z } from 'zod';
import { eventCatalog, EventCatalogResponseSchema } from '@sigil/contract/event-catalog';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';
import { TAGS } from './context';

/** GET /v1/webhooks/event-types: every event type of both streams with an example payload. */
export const catalog = publicProcedure
  .meta(
    rest('GET', '/v1/webhooks/event-types', {
      summary: 'The event catalog',
      description:
        'Every pay and identity event type, each with an example payload exactly as a receiver gets it (it validates ' +
        "against the stream's schema). A test event of a type is its example with the webhook's own wallet or name.",
      tags: TAGS,
    }),
  )
  .input(z.object({}).optional())
  .output(EventCatalogResponseSchema)
  .query(() => ({ event_types: eventCatalog() }));
