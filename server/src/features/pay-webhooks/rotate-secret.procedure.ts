import { RotateSecretResponseSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ID_ERRORS, WebhookIdParamsSchema } from './context';

/** POST /v1/pay/webhooks/{id}/rotate-secret: a new secret, shown once, signing every attempt from now on (retries too). */
export const rotateSecret = apiKeyProcedure
  .meta(
    rest('POST', '/v1/pay/webhooks/{id}/rotate-secret', {
      summary: "Rotate a webhook's signing secret",
      description:
        'The new secret signs the next attempt, retries of older events included; the replaced one keeps signing beside it ' +
        'for 24 hours (two v1 entries), so receivers can switch at their own pace. No request body needed.',
      tags: ['pay webhooks'],
      protect: true,
      errors: { ...WEBHOOK_ID_ERRORS },
    }),
  )
  .input(WebhookIdParamsSchema)
  .output(RotateSecretResponseSchema)
  .mutation(({ ctx, input }) => ctx.services.payWebhooks.rotateSecret(callerOf(ctx.apiKey), input.id));
