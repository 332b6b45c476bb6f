import {
  webhookChallengeOf,
  WebhookChallengeRequestSchema,
  WebhookChallengeResponseSchema,
} from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, WEBHOOK_ERRORS } from './context';

/** POST /v1/pay/webhooks/challenge: the `sigil-pay-webhook:v1` message the scope's wallet signs (docs/webhooks.md). */
export const challenge = apiKeyProcedure
  .meta(
    rest('POST', '/v1/pay/webhooks/challenge', {
      summary: 'Request a webhook registration challenge',
      description:
        '`scope` is an `@name` (top-level) or a wallet address; `wallet` names the signer (for a wallet scope, that wallet). ' +
        'The url must be https on port 443, without credentials, and resolve only to public addresses. `event_types`: event ' +
        'types, `payment.*`, `invoice.*`, `payment`, `invoice` or `*` (empty or absent: all). Single use, 10 minutes.',
      tags: ['pay webhooks'],
      protect: true,
      errors: {
        ...WEBHOOK_ERRORS,
        INVALID_SCOPE: '',
        INVALID_WALLET: '',
        INVALID_URL: '',
        INVALID_EVENT_TYPES: '',
        URL_REJECTED: 'the destination is not a public HTTPS endpoint',
        BAD_REQUEST: '',
        WALLET_MISMATCH: 'a wallet scope signed by another wallet',
        LIMIT_REACHED: 'the account already holds the most webhooks it may',
      },
    }),
  )
  .input(WebhookChallengeRequestSchema)
  .output(WebhookChallengeResponseSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.payWebhooks.issueChallenge(callerOf(ctx.apiKey), webhookChallengeOf(input)),
  );
