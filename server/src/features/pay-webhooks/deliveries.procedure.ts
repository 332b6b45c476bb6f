import { DeliveryListQuerySchema, DeliveryListResponseSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ID_ERRORS, WebhookIdParamsSchema } from './context';

/** GET /v1/pay/webhooks/{id}/deliveries?limit=1..200 (default 50): the delivery log, newest first. */
export const deliveries = apiKeyProcedure
  .meta(
    rest('GET', '/v1/pay/webhooks/{id}/deliveries', {
      summary: "List a webhook's deliveries",
      description: 'Newest first. Status, attempts, last HTTP status or error class, response time, next attempt.',
      tags: ['pay webhooks'],
      protect: true,
      errors: { ...WEBHOOK_ID_ERRORS, BAD_REQUEST: '`limit` out of range, or a malformed id' },
    }),
  )
  .input(WebhookIdParamsSchema.extend(DeliveryListQuerySchema.shape))
  .output(DeliveryListResponseSchema)
  .query(({ ctx, input }) =>
    ctx.services.payWebhooks.deliveries(callerOf(ctx.apiKey), input.id, { limit: input.limit }),
  );
