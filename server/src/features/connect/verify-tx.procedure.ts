import { SessionSchema, VerifyTxRequestSchema } from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';
import { PROOF_ERRORS } from './context';

/** POST /v1/auth/verify-tx: a signed, never-broadcast memo transaction (challenges requested with mode `tx`). */
export const verifyTx = apiKeyProcedure
  .meta(
    rest('POST', '/v1/auth/verify-tx', {
      summary: 'Verify a signed memo transaction',
      description:
        'One memo instruction carrying the challenge `memo`, fee payer and only signer the challenged wallet; legacy or v0; never broadcast.',
      tags: ['connect'],
      protect: true,
      errors: { ...API_KEY_ERRORS, ...PROOF_ERRORS, BAD_REQUEST: '' },
    }),
  )
  .input(VerifyTxRequestSchema)
  .output(SessionSchema)
  .mutation(({ ctx, input }) => ctx.services.connect.verifyTx(ctx.apiKey.id, input));
