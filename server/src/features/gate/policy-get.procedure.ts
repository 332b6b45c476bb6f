import { PolicyGetInputSchema, StoredPolicySchema } from '@sigil/contract/gate';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, etagOf, POLICY_ID_ERRORS } from './context';

/** GET /v1/gate/policies/{id}?version=: one version (default the current one) with its ETag. */
export const getPolicy = apiKeyProcedure
  .meta(
    rest('GET', '/v1/gate/policies/{id}', {
      summary: 'Get a policy',
      description: 'The current version, or `?version=N`; the ETag is that version’s hash.',
      tags: ['gate'],
      protect: true,
      errors: { ...POLICY_ID_ERRORS },
    }),
  )
  .input(PolicyGetInputSchema)
  .output(StoredPolicySchema)
  .query(async ({ ctx, input }) => {
    const stored = await ctx.services.gate.getPolicy(callerOf(ctx.apiKey), input.id, input.version);
    ctx.responseHeaders.etag = etagOf(stored.policyHash);
    return stored;
  });
