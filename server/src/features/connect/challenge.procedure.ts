import { challengeTarget, ChallengeRequestSchema, ChallengeSchema } from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';

/** POST /v1/auth/challenge: a single-use, audience-bound challenge (docs/connect.md). */
export const challenge = apiKeyProcedure
  .meta(
    rest('POST', '/v1/auth/challenge', {
      summary: 'Request a Connect challenge',
      description:
        'Exactly one of `handle` or `wallet`; `mode` (`tx` | `signin`) requires `wallet`. `{handle}` and `{wallet}` with a primary ' +
        'handle give a handle-control challenge; `{wallet}` without one, or any `mode`, an address-control challenge.',
      tags: ['connect'],
      protect: true,
      errors: {
        ...API_KEY_ERRORS,
        INVALID_CHALLENGE_REQUEST: 'not exactly one of `handle` or `wallet`, or `mode` without `wallet`',
        INVALID_HANDLE: '',
        INVALID_WALLET: '',
        HANDLE_NOT_REGISTERED: '',
        RPC_ERROR: 'chain unreachable',
      },
    }),
  )
  .input(ChallengeRequestSchema)
  .output(ChallengeSchema)
  .mutation(({ ctx, input }) => ctx.services.connect.createChallenge(ctx.apiKey.id, challengeTarget(input)));
