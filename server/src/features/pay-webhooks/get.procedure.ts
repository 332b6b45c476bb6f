import { WebhookSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ID_ERRORS, WebhookIdParamsSchema } from './context';

/** GET /v1/pay/webhooks/{id}: one of the account's webhooks; another account's id is WEBHOOK_NOT_FOUND. */
export const get = apiKeyProcedure
  .meta(
    rest('GET', '/v1/pay/webhooks/{id}', {
      summary: 'Get a webhook',
      description: 'One webhook of your account (scope, url, event types, status, paused reason); never its secret.',
      tags: ['pay webhooks'],
      protect: true,
      errors: { ...WEBHOOK_ID_ERRORS },
    }),
  )
  .input(WebhookIdParamsSchema)
  .output(WebhookSchema)
  .query(({ ctx, input }) => ctx.services.payWebhooks.get(callerOf(ctx.apiKey), input.id));
