import { SessionSchema, VerifySigninRequestSchema } from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';
import { PROOF_ERRORS } from './context';

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
        ...API_KEY_ERRORS,
        ...PROOF_ERRORS,
        SIGNIN_PATH_HANDLE_UNSUPPORTED: 'the challenge was created for a handle',
        INVALID_SIGNATURE_ENCODING: '',
        BAD_REQUEST: '',
      },
    }),
  )
  .input(VerifySigninRequestSchema)
  .output(SessionSchema)
  .mutation(({ ctx, input }) => ctx.services.connect.verifySignin(ctx.apiKey.id, input));
