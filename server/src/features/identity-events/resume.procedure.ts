import { IdentityWebhookSchema } from '@sigil/contract/identity-events';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_ID_ERRORS, IdParamsSchema } from './context';

/** POST /v1/identity/webhooks/{id}/resume: Resume an auto-paused identity webhook */
export const resume = apiKeyProcedure
  .meta(
    rest('POST', '/v1/identity/webhooks/{id}/resume', {
      summary: 'Resume an auto-paused identity webhook',
      description: 'Only `auto-paused: …` webhooks resume. No request body needed.',
      tags: ['identity events'],
      protect: true,
      errors: { ...IDENTITY_ID_ERRORS, NOT_RESUMABLE: 'not auto-paused' },
    }),
  )
  .input(IdParamsSchema)
  .output(IdentityWebhookSchema)
  .mutation(({ ctx, input }) => ctx.services.identityEvents.resume(callerOf(ctx.apiKey), input.id));
