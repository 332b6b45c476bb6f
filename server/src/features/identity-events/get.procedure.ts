import { IdentityWebhookSchema } from '@sigil/contract/identity-events';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_ID_ERRORS, IdParamsSchema } from './context';

/** GET /v1/identity/webhooks/{id}: Get an identity webhook */
export const get = apiKeyProcedure
  .meta(
    rest('GET', '/v1/identity/webhooks/{id}', {
      summary: 'Get an identity webhook',
      description: 'One identity webhook of this account (no secret).',
      tags: ['identity events'],
      protect: true,
      errors: { ...IDENTITY_ID_ERRORS },
    }),
  )
  .input(IdParamsSchema)
  .output(IdentityWebhookSchema)
  .query(({ ctx, input }) => ctx.services.identityEvents.get(callerOf(ctx.apiKey), input.id));
