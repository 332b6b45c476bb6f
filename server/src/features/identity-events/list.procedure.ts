import { z } from 'zod';
import { IdentityWebhookSchema } from '@sigil/contract/identity-events';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_WEBHOOK_ERRORS } from './context';

/** GET /v1/identity/webhooks: the account's identity webhooks (no secrets). */
export const list = apiKeyProcedure
  .meta(
    rest('GET', '/v1/identity/webhooks', {
      summary: 'List identity webhooks',
      description: "The account's identity webhooks, oldest first, without secrets.",
      tags: ['identity events'],
      protect: true,
      errors: { ...IDENTITY_WEBHOOK_ERRORS },
    }),
  )
  .input(z.object({}))
  .output(z.object({ webhooks: z.array(IdentityWebhookSchema) }))
  .query(({ ctx }) => ctx.services.identityEvents.list(callerOf(ctx.apiKey)));
