import { z } from 'zod';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ID_ERRORS, WebhookIdParamsSchema } from './context';

/** DELETE /v1/pay/webhooks/{id}: 204; the webhook and its delivery log are gone. (tRPC answers `{id, deleted: true}`.) */
export const remove = apiKeyProcedure
  .meta(
    rest('DELETE', '/v1/pay/webhooks/{id}', {
      summary: 'Delete a webhook',
      description: 'Removes the webhook and its delivery log. Answers 204 without a body.',
      tags: ['pay webhooks'],
      protect: true,
      successStatus: 204,
      errors: { ...WEBHOOK_ID_ERRORS },
    }),
  )
  .input(WebhookIdParamsSchema)
  .output(z.object({ id: z.string(), deleted: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    await ctx.services.payWebhooks.remove(callerOf(ctx.apiKey), input.id);
    return { id: input.id, deleted: true as const };
  });
