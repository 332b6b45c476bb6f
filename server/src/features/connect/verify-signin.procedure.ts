import { SessionSchema, VerifySigninRequestSchema } from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { CONNECT_AUTH_ERRORS } from './context';

/** POST /v1/auth/verify-signin: a sign-in-with-Solana message for an address-control challenge. */
export const verifySignin = apiKeyProcedure
  .meta(
    rest('POST', '/v1/auth/verify-signin', {
      summary: 'Verify a sign-in-with-Solana message',
      description:
        'Line 1 names an allowed domain, line 2 the challenged wallet, `Nonce:` this nonce; signature (base58 or base64) over the raw bytes or an off-chain envelope.',
      tags: ['connect'],
      protect: true,
      errors: {
        ...CONNECT_AUTH_ERRORS,
        400: 'SIGNIN_PATH_HANDLE_UNSUPPORTED / INVALID_SIGNATURE_ENCODING / BAD_REQUEST',
        401: 'CONTROL_PROOF_INVALID / CHALLENGE_NOT_FOUND / CHALLENGE_EXPIRED / CHALLENGE_AUDIENCE_MISMATCH / API_KEY_REQUIRED / INVALID_KEY',
      },
    }),
  )
  .input(VerifySigninRequestSchema)
  .output(SessionSchema)
  .mutation(({ ctx, input }) => ctx.services.connect.verifySignin(ctx.apiKey.id, input));
