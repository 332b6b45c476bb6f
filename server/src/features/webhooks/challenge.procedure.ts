import { parseWebhookChallengeRequest, WebhookChallengeRequestSchema, WebhookChallengeResponseSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { parsedBody } from '../connect/parse-input';
import { callerOf, WEBHOOK_AUTH_ERRORS } from './context';

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
        ...WEBHOOK_AUTH_ERRORS,
        400: 'INVALID_SCOPE / INVALID_WALLET / INVALID_URL / INVALID_EVENT_TYPES / URL_REJECTED / BAD_REQUEST',
        403: 'WALLET_MISMATCH (wallet scope signed by another wallet)',
        409: 'LIMIT_REACHED (25 webhooks per account)',
      },
    }),
  )
  .use(parsedBody(parseWebhookChallengeRequest))
  .input(WebhookChallengeRequestSchema)
  .output(WebhookChallengeResponseSchema)
  .mutation(({ ctx, input }) => ctx.services.payWebhooks.issueChallenge(callerOf(ctx.apiKey), input));
