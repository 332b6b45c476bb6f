import { RotateSecretResponseSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_ID_ERRORS, IdParamsSchema } from './context';

/** POST /v1/identity/webhooks/{id}/rotate-secret: Rotate the signing secret */
export const rotateSecret = apiKeyProcedure
  .meta(
    rest('POST', '/v1/identity/webhooks/{id}/rotate-secret', {
      summary: 'Rotate the signing secret',
      description:
        'A new secret, shown once. Every attempt from now on is signed with it AND, for 24 hours, with the replaced one (two v1 entries in Sigil-Signature, two in webhook-signature). No request body needed.',
      tags: ['identity events'],
      protect: true,
      errors: { ...IDENTITY_ID_ERRORS },
    }),
  )
  .input(IdParamsSchema)
  .output(RotateSecretResponseSchema)
  .mutation(({ ctx, input }) => ctx.services.identityEvents.rotateSecret(callerOf(ctx.apiKey), input.id));
