import { SessionSchema, VerifyRequestSchema } from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';
import { PROOF_ERRORS } from './context';

/** POST /v1/auth/verify: a signature over the challenge string (raw bytes or an off-chain envelope). */
export const verify = apiKeyProcedure
  .meta(
    rest('POST', '/v1/auth/verify', {
      summary: 'Verify a signed Connect challenge',
      description:
        '`signature` (base58) over the exact `challenge` bytes; `signer` is required unless the challenge was created from `{wallet}`.',
      tags: ['connect'],
      protect: true,
      errors: {
        ...API_KEY_ERRORS,
        ...PROOF_ERRORS,
        BAD_REQUEST: '',
        INVALID_WALLET: '',
        INVALID_SIGNATURE_ENCODING: '',
        RPC_ERROR: 'chain unreachable',
      },
    }),
  )
  .input(VerifyRequestSchema)
  .output(SessionSchema)
  .mutation(({ ctx, input }) => ctx.services.connect.verify(ctx.apiKey.id, input));
