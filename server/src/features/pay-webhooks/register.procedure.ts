import { WebhookCreatedSchema, WebhookRegisterRequestSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ERRORS } from './context';

/** POST /v1/pay/webhooks: `{nonce, signature}` → 201 the webhook with its secret (shown once). */
export const register = apiKeyProcedure
  .meta(
    rest('POST', '/v1/pay/webhooks', {
      summary: 'Register a webhook',
      description:
        'The base58 signature of the challenge message, raw or in the off-chain-message envelope, by the scope wallet (wallet ' +
        "scope) or by the `@name`'s owner / NFT holder / live verified payment address. The `secret` appears only here.",
      tags: ['pay webhooks'],
      protect: true,
      successStatus: 201,
      errors: {
        ...WEBHOOK_ERRORS,
        CHALLENGE_INVALID: 'unknown, used, expired, or issued to another key',
        BAD_REQUEST: '',
        SIGNATURE_INVALID: '',
        WALLET_MISMATCH: '',
        NOT_CONTROLLER: '',
        CONTROL_UNPROVEN: '',
        NOT_FOUND: 'the @name is not registered',
        LIMIT_REACHED: 'the account already holds the most webhooks it may',
        RPC_ERROR: 'chain read failed; the nonce is not consumed, retry',
      },
    }),
  )
  .input(WebhookRegisterRequestSchema)
  .output(WebhookCreatedSchema)
  .mutation(({ ctx, input }) => ctx.services.payWebhooks.register(callerOf(ctx.apiKey), input));
