import { z } from 'zod';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_ID_ERRORS, IdParamsSchema } from './context';

/** DELETE /v1/identity/webhooks/{id}: 204; the webhook and its delivery log are gone. */
export const remove = apiKeyProcedure
  .meta(
    rest('DELETE', '/v1/identity/webhooks/{id}', {
      summary: 'Delete an identity webhook',
      description: 'Removes the webhook and its delivery log. Answers 204 without a body.',
      tags: ['identity events'],
      protect: true,
      successStatus: 204,
      errors: { ...IDENTITY_ID_ERRORS },
    }),
  )
  .input(IdParamsSchema)
  .output(z.object({ id: z.string(), deleted: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    await ctx.services.identityEvents.remove(callerOf(ctx.apiKey), input.id);
    return { id: input.id, deleted: true as const };
  });
