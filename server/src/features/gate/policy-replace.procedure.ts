import { z } from 'zod';
import { PolicyWriteInputSchema, StoredPolicySchema } from '@sigil/contract/gate';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, etagOf, POLICY_ERRORS, POLICY_ID_ERRORS } from './context';

/** PUT /v1/gate/policies/{id}: the next version, only while If-Match is the current ETag. */
export const replacePolicy = apiKeyProcedure
  .meta(
    rest('PUT', '/v1/gate/policies/{id}', {
      summary: 'Replace a policy (If-Match)',
      description:
        '`{name?, policy}` with `If-Match: "<hash>"` of the current version → the next version and its ETag. Of two ' +
        'replaces sent with the same ETag exactly one wins; the other gets 412.',
      tags: ['gate'],
      protect: true,
      errors: {
        ...POLICY_ID_ERRORS,
        ...POLICY_ERRORS,
        PRECONDITION_REQUIRED: 'no If-Match header',
        PRECONDITION_FAILED: 'If-Match is not the current version’s ETag (another replace won)',
      },
    }),
  )
  .input(PolicyWriteInputSchema.extend({ id: z.string().min(1).max(64) }))
  .output(StoredPolicySchema)
  .mutation(async ({ ctx, input }) => {
    const stored = await ctx.services.gate.replacePolicy(callerOf(ctx.apiKey), input, ctx.headers['if-match']);
    ctx.responseHeaders.etag = etagOf(stored.policyHash);
    return stored;
  });
