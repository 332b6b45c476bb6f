import { IdentityWebhookCreatedSchema, IdentityWebhookCreateRequestSchema } from '@sigil/contract/identity-events';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_WEBHOOK_ERRORS } from './context';

/** POST /v1/identity/webhooks: `{scope, url, event_types?, description?}` → 201 the webhook with its secret (once). */
export const create = apiKeyProcedure
  .meta(
    rest('POST', '/v1/identity/webhooks', {
      summary: 'Create an identity webhook',
      description:
        '`scope`: an `@name` (top-level; it need not be registered yet), a wallet address, or `*` (the whole registry, ' +
        'partner keys). No wallet proof: identity events are public chain state. `event_types`: event types, families ' +
        '(`record`, `record.*`, also the market families `offer`, `listing`, `auction`, `gift`, `lease`, `recovery`) or `*`; ' +
        'empty or absent: all, including types added later. Delivery starts with the next event (`from_sequence`); the log ' +
        'serves earlier ones. The `secret` appears only here.',
      tags: ['identity events'],
      protect: true,
      successStatus: 201,
      errors: {
        ...IDENTITY_WEBHOOK_ERRORS,
        INVALID_SCOPE: '',
        INVALID_URL: '',
        INVALID_EVENT_TYPES: '',
        URL_REJECTED: 'the destination is not a public HTTPS endpoint',
        BAD_REQUEST: '',
        PARTNER_TIER_REQUIRED: 'scope `*` with a key below the partner tier',
        LIMIT_REACHED: 'the account already holds 25 identity webhooks',
      },
    }),
  )
  .input(IdentityWebhookCreateRequestSchema)
  .output(IdentityWebhookCreatedSchema)
  .mutation(({ ctx, input }) => ctx.services.identityEvents.create(callerOf(ctx.apiKey), input));
