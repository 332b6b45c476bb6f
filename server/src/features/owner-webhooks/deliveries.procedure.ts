import { z } from 'zod';
import { DeliveryRecordSchema } from '@sigil/contract/webhooks';
import {
  AttemptPageQuerySchema,
  AttemptPageSchema,
  DeliveryDetailSchema,
  DeliveryPageQuerySchema,
  DeliveryPageSchema,
  OwnerDeliveryParamsSchema,
  OwnerTestEventRequestSchema,
  OwnerWebhookParamsSchema,
} from '@sigil/contract/owner-webhooks';
import { withFieldCodes } from '@sigil/contract/parse';
import { rest } from '../../trpc/meta';
import { storedOutput } from '../../trpc/stored-output';
import { sessionProcedure } from '../../trpc/procedures';
import { OWNER_DELIVERY_ERRORS, OWNER_WEBHOOK_ERRORS, ownerOf, streamService, TAGS } from './context';

/** GET …/{webhookId}/deliveries: newest first, by status and event type, paged. */
export const deliveries = sessionProcedure
  .meta(
    rest('GET', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/deliveries', {
      summary: "Page through one of your webhooks' deliveries",
      description:
        'Newest first; `status` (`pending`, `delivered`, `dead`) and `event_type` narrow it; `limit` 1..200 (default 50); ' +
        'pass `next_cursor` as `cursor` for the next page (null: the last).',
      tags: TAGS,
      protect: true,
      errors: { ...OWNER_WEBHOOK_ERRORS, BAD_REQUEST: '`limit`, `status` or `cursor` malformed' },
    }),
  )
  .input(OwnerWebhookParamsSchema.extend(DeliveryPageQuerySchema.shape))
  .output(DeliveryPageSchema)
  .query(async ({ ctx, input }) => {
    const { id, stream, webhookId, ...query } = input;
    return streamService(ctx, stream).deliveryPage(await ownerOf(ctx, id), webhookId, query);
  });

/** GET …/deliveries/{deliveryId}: the record, the body as sent, the newest attempt's headers. */
export const delivery = sessionProcedure
  .meta(
    rest('GET', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/deliveries/{deliveryId}', {
      summary: 'Read one delivery in full',
      description:
        'The delivery record, `body` (the request body byte for byte as every attempt sends it) and `headers` (those of the ' +
        'newest attempt: the signatures, never a secret; null before the first attempt). Attempts: `…/attempts`.',
      tags: TAGS,
      protect: true,
      errors: OWNER_DELIVERY_ERRORS,
    }),
  )
  .input(OwnerDeliveryParamsSchema)
  .output(storedOutput(DeliveryDetailSchema))
  .query(async ({ ctx, input }) =>
    streamService(ctx, input.stream).deliveryDetail(await ownerOf(ctx, input.id), input.webhookId, input.deliveryId),
  );

/** GET …/deliveries/{deliveryId}/attempts: every attempt, newest first, paged. */
export const attempts = sessionProcedure
  .meta(
    rest('GET', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/deliveries/{deliveryId}/attempts', {
      summary: "Page through a delivery's attempts",
      description:
        'Newest first: when (unix ms), the HTTP status or the error class, the duration and the headers sent. `limit` ' +
        '1..200 (default 50); `next_cursor` as `cursor` for the next page.',
      tags: TAGS,
      protect: true,
      errors: { ...OWNER_DELIVERY_ERRORS, BAD_REQUEST: '`limit` or `cursor` malformed' },
    }),
  )
  .input(OwnerDeliveryParamsSchema.extend(AttemptPageQuerySchema.shape))
  .output(storedOutput(AttemptPageSchema))
  .query(async ({ ctx, input }) => {
    const { id, stream, webhookId, deliveryId, ...query } = input;
    return streamService(ctx, stream).attempts(await ownerOf(ctx, id), webhookId, deliveryId, query);
  });

/** POST …/deliveries/{deliveryId}/redeliver: a delivered or dead delivery goes back in the queue. */
export const redeliver = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/deliveries/{deliveryId}/redeliver', {
      summary: 'Re-queue one of your deliveries',
      description:
        'A `delivered` or `dead` delivery becomes `pending` again (attempts from zero, due now; earlier attempts stay in its ' +
        'history), signed with the current secret. A pending one is answered unchanged. No request body needed.',
      tags: TAGS,
      protect: true,
      errors: OWNER_DELIVERY_ERRORS,
    }),
  )
  .input(OwnerDeliveryParamsSchema)
  .output(DeliveryRecordSchema)
  .mutation(async ({ ctx, input }) =>
    streamService(ctx, input.stream).redeliver(await ownerOf(ctx, input.id), input.webhookId, input.deliveryId),
  );

/** POST …/{webhookId}/test `{type}`: a signed test event of that type through the normal delivery path. */
export const sendTest = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/test', {
      summary: 'Send a signed test event of a chosen type',
      description:
        "`type`: one of the stream's event types (`GET /v1/webhooks/event-types`). The type's catalog example with this " +
        'webhook\'s wallet or name, a fresh id, chain signature `1…1`, slot 0 and `"test": true`, delivered and logged like ' +
        'any event. Answers the queued delivery.',
      tags: TAGS,
      protect: true,
      errors: { ...OWNER_WEBHOOK_ERRORS, INVALID_EVENT_TYPES: 'not an event type of this stream' },
    }),
  )
  .input(
    withFieldCodes(z.object({ ...OwnerWebhookParamsSchema.shape, ...OwnerTestEventRequestSchema.shape }), {
      fields: { type: 'INVALID_EVENT_TYPES' },
    }),
  )
  .output(DeliveryRecordSchema)
  .mutation(async ({ ctx, input }) =>
    streamService(ctx, input.stream).sendTest(await ownerOf(ctx, input.id), input.webhookId, input.type),
  );
