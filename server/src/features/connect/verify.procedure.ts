import { SessionSchema, VerifyRequestSchema } from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { CONNECT_AUTH_ERRORS } from './context';

/** POST /v1/auth/verify: a signature over the challenge string (raw bytes or an off-chain envelope). */
export const verify = apiKeyProcedure
  .meta(
    rest('POST', '/v1/auth/verify', {
      summary: 'Verify a signed Connect challenge',
      description: '`signature` (base58) over the exact `challenge` bytes; `signer` is required unless the challenge was created from `{wallet}`.',
      tags: ['connect'],
      protect: true,
      errors: {
        ...CONNECT_AUTH_ERRORS,
        400: 'BAD_REQUEST / INVALID_WALLET / INVALID_SIGNATURE_ENCODING',
        401: 'CONTROL_PROOF_INVALID / CHALLENGE_NOT_FOUND / CHALLENGE_EXPIRED / CHALLENGE_AUDIENCE_MISMATCH / API_KEY_REQUIRED / INVALID_KEY',
        502: 'RPC_ERROR (chain unreachable)',
      },
    }),
  )
  .input(VerifyRequestSchema)
  .output(SessionSchema)
  .mutation(({ ctx, input }) => ctx.services.connect.verify(ctx.apiKey.id, input));
