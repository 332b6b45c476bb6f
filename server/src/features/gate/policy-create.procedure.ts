import { PolicyWriteInputSchema, StoredPolicySchema } from '@sigil/contract/gate';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';
import { callerOf, etagOf, POLICY_ERRORS } from './context';

/** POST /v1/gate/policies: 201 with the stored policy (version 1) and its ETag. */
export const createPolicy = apiKeyProcedure
  .meta(
    rest('POST', '/v1/gate/policies', {
      summary: 'Store a policy',
      description:
        '`{name?, policy}` → version 1, with `hash` (SHA-256 of the canonical JSON) as the ETag. Owned by the ' +
        "key's account; at most 100 per account.",
      tags: ['gate'],
      protect: true,
      successStatus: 201,
      errors: {
        ...API_KEY_ERRORS,
        BAD_REQUEST: 'the body is not a JSON object of this shape',
        ...POLICY_ERRORS,
        LIMIT_REACHED: 'the account already keeps 100 policies',
      },
    }),
  )
  .input(PolicyWriteInputSchema.omit({ id: true }))
  .output(StoredPolicySchema)
  .mutation(async ({ ctx, input }) => {
    const stored = await ctx.services.gate.createPolicy(callerOf(ctx.apiKey), input);
    ctx.responseHeaders.etag = etagOf(stored.policyHash);
    return stored;
  });
