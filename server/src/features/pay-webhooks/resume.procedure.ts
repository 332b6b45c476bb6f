import { WebhookSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ID_ERRORS, WebhookIdParamsSchema } from './context';

/** POST /v1/pay/webhooks/{id}/resume: re-activates an auto-paused webhook; anything else is NOT_RESUMABLE. */
export const resume = apiKeyProcedure
  .meta(
    rest('POST', '/v1/pay/webhooks/{id}/resume', {
      summary: 'Resume an auto-paused webhook',
      description:
        'Only `auto-paused: …` webhooks resume; a `scope_changed: …` pause needs a new registration. No request body needed.',
      tags: ['pay webhooks'],
      protect: true,
      errors: { ...WEBHOOK_ID_ERRORS, NOT_RESUMABLE: 'active, or paused by a scope change' },
    }),
  )
  .input(WebhookIdParamsSchema)
  .output(WebhookSchema)
  .mutation(({ ctx, input }) => ctx.services.payWebhooks.resume(callerOf(ctx.apiKey), input.id));
