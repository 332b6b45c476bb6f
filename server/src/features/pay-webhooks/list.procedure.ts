import { z } from 'zod';
import { WebhookListResponseSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ERRORS } from './context';

/** GET /v1/pay/webhooks: the account's webhooks, oldest first (secrets never shown). */
export const list = apiKeyProcedure
  .meta(
    rest('GET', '/v1/pay/webhooks', {
      summary: 'List your webhooks',
      description: "Every webhook registered through your account's keys, oldest first; never their secrets.",
      tags: ['pay webhooks'],
      protect: true,
      errors: { ...WEBHOOK_ERRORS },
    }),
  )
  .input(z.object({}))
  .output(WebhookListResponseSchema)
  .query(({ ctx }) => ctx.services.payWebhooks.list(callerOf(ctx.apiKey)));
