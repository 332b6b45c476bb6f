import { challengeTarget, ChallengeRequestSchema, ChallengeSchema } from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { CONNECT_AUTH_ERRORS } from './context';

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
        ...CONNECT_AUTH_ERRORS,
        400: 'INVALID_CHALLENGE_REQUEST / INVALID_HANDLE / INVALID_WALLET',
        404: 'HANDLE_NOT_REGISTERED',
        502: 'RPC_ERROR (chain unreachable)',
      },
    }),
  )
  .input(ChallengeRequestSchema)
  .output(ChallengeSchema)
  .mutation(({ ctx, input }) => ctx.services.connect.createChallenge(ctx.apiKey.id, challengeTarget(input)));
