import { PolicyListSchema } from '@sigil/contract/gate';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';
import { callerOf } from './context';

/** GET /v1/gate/policies: the account's policies (current versions, without their documents). */
export const listPolicies = apiKeyProcedure
  .meta(
    rest('GET', '/v1/gate/policies', {
      summary: "List the account's policies",
      description:
        "Every policy of the key's account at its current version, without the documents (GET /v1/gate/policies/{id} " +
        'has them), in id order, which is creation order.',
      tags: ['gate'],
      protect: true,
      errors: { ...API_KEY_ERRORS },
    }),
  )
  .output(PolicyListSchema)
  .query(({ ctx }) => ctx.services.gate.listPolicies(callerOf(ctx.apiKey)));
