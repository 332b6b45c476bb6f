import { DeliveryRecordSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ID_ERRORS, WebhookIdParamsSchema } from './context';

/** POST /v1/pay/webhooks/{id}/test: queues a signed test event (`test: true`) through the normal delivery path. */
export const sendTest = apiKeyProcedure
  .meta(
    rest('POST', '/v1/pay/webhooks/{id}/test', {
      summary: 'Send a signed test event',
      description:
        'Beyond the spec: a sample `payment.received` with `"test": true` (chain signature `1…1`, slot 0) to the webhook\'s ' +
        'first wallet, delivered and logged like any event. Answers the queued delivery. No request body needed.',
      tags: ['pay webhooks'],
      protect: true,
      errors: { ...WEBHOOK_ID_ERRORS },
    }),
  )
  .input(WebhookIdParamsSchema)
  .output(DeliveryRecordSchema)
  .mutation(({ ctx, input }) => ctx.services.payWebhooks.sendTest(callerOf(ctx.apiKey), input.id));
