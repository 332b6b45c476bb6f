import { PolicyListSchema } from '@sigil/contract/gate';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';
import { callerOf } from './context';

/** GET /v1/gate/policies: the account's policies (current versions, without their documents). */
export const listPolicies = apiKeyProcedure
  .meta(
    rest('GET', '/v1/gate/policies', {
      summary: "List the account's policies",
      tags: ['gate'],
      protect: true,
      errors: { ...API_KEY_ERRORS },
    }),
  )
  .output(PolicyListSchema)
  .query(({ ctx }) => ctx.services.gate.listPolicies(callerOf(ctx.apiKey)));
