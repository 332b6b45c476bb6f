import { z } from 'zod';
import { DeliveryRecordSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ID_ERRORS, WebhookIdParamsSchema } from './context';

/** POST /v1/pay/webhooks/{id}/deliveries/{deliveryId}/redeliver: a delivered or dead delivery goes back in the queue. */
export const redeliver = apiKeyProcedure
  .meta(
    rest('POST', '/v1/pay/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
      summary: 'Re-queue a delivery',
      description:
        'Beyond the spec: a `delivered` or `dead` delivery becomes `pending` again (attempts from zero, due now) and is signed ' +
        'with the current secret. A pending one is answered unchanged. No request body needed.',
      tags: ['pay webhooks'],
      protect: true,
      errors: { ...WEBHOOK_ID_ERRORS, DELIVERY_NOT_FOUND: 'no such delivery of this webhook' },
    }),
  )
  .input(WebhookIdParamsSchema.extend({ deliveryId: z.string().min(1).max(128) }))
  .output(DeliveryRecordSchema)
  .mutation(({ ctx, input }) => ctx.services.payWebhooks.redeliver(callerOf(ctx.apiKey), input.id, input.deliveryId));
