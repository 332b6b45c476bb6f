import { z } from 'zod';
import { PolicyIdInputSchema } from '@sigil/contract/gate';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, POLICY_ID_ERRORS } from './context';

/** DELETE /v1/gate/policies/{id}: 204; with If-Match, only while that is the current version. */
export const deletePolicy = apiKeyProcedure
  .meta(
    rest('DELETE', '/v1/gate/policies/{id}', {
      summary: 'Delete a policy',
      description: 'Removes the policy and every version. `If-Match` is optional here. Answers 204 without a body.',
      tags: ['gate'],
      protect: true,
      successStatus: 204,
      errors: { ...POLICY_ID_ERRORS, PRECONDITION_FAILED: 'If-Match is not the current version’s ETag' },
    }),
  )
  .input(PolicyIdInputSchema)
  .output(z.object({ id: z.string(), deleted: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    await ctx.services.gate.deletePolicy(callerOf(ctx.apiKey), input.id, ctx.headers['if-match']);
    return { id: input.id, deleted: true as const };
  });
