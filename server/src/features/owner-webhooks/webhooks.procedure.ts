import { z } from 'zod';
import {
  OwnerStreamParamsSchema,
  OwnerWebhookListSchema,
  OwnerWebhookParamsSchema,
  OwnerWebhookPatchSchema,
  OwnerWebhookSchema,
  UrlChallengeRequestSchema,
} from '@sigil/contract/owner-webhooks';
import {
  webhookChallengeOf,
  WebhookChallengeRequestSchema,
  WebhookChallengeResponseSchema,
  WebhookCreatedSchema,
  WebhookRegisterRequestSchema,
} from '@sigil/contract/webhooks';
import { IdentityWebhookCreatedSchema, IdentityWebhookCreateRequestSchema } from '@sigil/contract/identity-events';
import { parseCoded, withFieldCodes } from '@sigil/contract/parse';
import { rest } from '../../trpc/meta';
import { sessionProcedure } from '../../trpc/procedures';
import { OWNER_ERRORS, OWNER_WEBHOOK_ERRORS, ownerOf, ownerWebhook, streamService, TAGS } from './context';

const keyId = z.string().min(1).max(128);
// The routes of one stream answer only that stream's switch.
const { IDENTITY_WEBHOOKS_DISABLED: _identity, ...PAY_ONLY } = OWNER_ERRORS;
const { PAY_WEBHOOKS_DISABLED: _pay, ...IDENTITY_ONLY } = OWNER_ERRORS;

/** GET /v1/keys/{id}/webhooks/{stream}: the account's webhooks of the stream, each with its state. */
export const list = sessionProcedure
  .meta(
    rest('GET', '/v1/keys/{id}/webhooks/{stream}', {
      summary: "List your account's webhooks of a stream",
      description:
        '`stream`: `pay` or `identity`. A webhook belongs to the account of the key that registered it; every active key of ' +
        'the account lists the same ones. `state` says whether it gets deliveries and, if not, why: `disabled` (by you), ' +
        '`auto_paused` (50 dead letters in a row), `scope_changed` (register again). Never a secret.',
      tags: TAGS,
      protect: true,
      errors: OWNER_ERRORS,
    }),
  )
  .input(OwnerStreamParamsSchema)
  .output(OwnerWebhookListSchema)
  .query(async ({ ctx, input }) => {
    const { webhooks } = await streamService(ctx, input.stream).list(await ownerOf(ctx, input.id));
    return { webhooks: webhooks.map((w) => ownerWebhook(input.stream, w)) };
  });

/** GET /v1/keys/{id}/webhooks/{stream}/{webhookId}. */
export const get = sessionProcedure
  .meta(
    rest('GET', '/v1/keys/{id}/webhooks/{stream}/{webhookId}', {
      summary: 'Read one of your webhooks',
      description:
        "The stream's webhook shape with `stream` and `state` (why it gets no deliveries, if it does not). Never a secret.",
      tags: TAGS,
      protect: true,
      errors: OWNER_WEBHOOK_ERRORS,
    }),
  )
  .input(OwnerWebhookParamsSchema)
  .output(OwnerWebhookSchema)
  .query(async ({ ctx, input }) =>
    ownerWebhook(
      input.stream,
      await streamService(ctx, input.stream).get(await ownerOf(ctx, input.id), input.webhookId),
    ),
  );

const ChallengeInputSchema = withFieldCodes(z.object({ id: keyId, ...WebhookChallengeRequestSchema.shape }), {
  fields: { scope: 'INVALID_SCOPE', wallet: 'INVALID_WALLET', url: 'INVALID_URL', event_types: 'INVALID_EVENT_TYPES' },
});

/** POST /v1/keys/{id}/webhooks/pay/challenge: the registration challenge, issued to this key. */
export const payChallenge = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/pay/challenge', {
      summary: 'Request a pay webhook registration challenge (signed in)',
      description:
        'As `POST /v1/pay/webhooks/challenge`, for the key `{id}` (the message names it) without its secret. Sign the ' +
        'message with the scope wallet and register with `POST /v1/keys/{id}/webhooks/pay`.',
      tags: TAGS,
      protect: true,
      errors: {
        ...PAY_ONLY,
        INVALID_SCOPE: '',
        INVALID_WALLET: '',
        INVALID_URL: '',
        INVALID_EVENT_TYPES: '',
        URL_REJECTED: 'the destination is not a public HTTPS endpoint',
        WALLET_MISMATCH: 'a wallet scope signed by another wallet',
        LIMIT_REACHED: 'the account already holds the most webhooks it may',
      },
    }),
  )
  .input(ChallengeInputSchema)
  .output(WebhookChallengeResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const { id, ...body } = input;
    const request = webhookChallengeOf(parseCoded(WebhookChallengeRequestSchema, body));
    return ctx.services.payWebhooks.issueChallenge(await ownerOf(ctx, id), request);
  });

/** POST /v1/keys/{id}/webhooks/pay: registers with the signed challenge (201, the secret once). */
export const payRegister = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/pay', {
      summary: 'Register a pay webhook (signed in)',
      description:
        'As `POST /v1/pay/webhooks`, with a challenge issued to the key `{id}`. The `secret` appears only here.',
      tags: TAGS,
      protect: true,
      successStatus: 201,
      errors: {
        ...PAY_ONLY,
        CHALLENGE_INVALID: 'unknown, used, expired, or issued to another key',
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
  .input(
    withFieldCodes(z.object({ id: keyId, ...WebhookRegisterRequestSchema.shape }), {
      fields: { nonce: 'CHALLENGE_INVALID', signature: 'SIGNATURE_INVALID' },
    }),
  )
  .output(WebhookCreatedSchema)
  .mutation(async ({ ctx, input }) =>
    ctx.services.payWebhooks.register(await ownerOf(ctx, input.id), {
      nonce: input.nonce,
      signature: input.signature,
    }),
  );

/** POST /v1/keys/{id}/webhooks/identity: creates an identity webhook (201, the secret once). */
export const identityCreate = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/identity', {
      summary: 'Create an identity webhook (signed in)',
      description: 'As `POST /v1/identity/webhooks`, under the key `{id}` (its tier decides scope `*`).',
      tags: TAGS,
      protect: true,
      successStatus: 201,
      errors: {
        ...IDENTITY_ONLY,
        INVALID_SCOPE: '',
        INVALID_URL: '',
        INVALID_EVENT_TYPES: '',
        URL_REJECTED: 'the destination is not a public HTTPS endpoint',
        PARTNER_TIER_REQUIRED: 'scope `*` with a key below the partner tier',
        LIMIT_REACHED: 'the account already holds 25 identity webhooks',
      },
    }),
  )
  .input(
    withFieldCodes(z.object({ id: keyId, ...IdentityWebhookCreateRequestSchema.shape }), {
      fields: { scope: 'INVALID_SCOPE', url: 'INVALID_URL', event_types: 'INVALID_EVENT_TYPES' },
    }),
  )
  .output(IdentityWebhookCreatedSchema)
  .mutation(async ({ ctx, input }) => {
    const { id, ...body } = input;
    const request = parseCoded(IdentityWebhookCreateRequestSchema, body);
    return ctx.services.identityEvents.create(await ownerOf(ctx, id), request);
  });

/** POST /v1/keys/{id}/webhooks/pay/{webhookId}/challenge: the challenge that proves a new URL. */
export const urlChallenge = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/pay/{webhookId}/challenge', {
      summary: "Request the challenge for a pay webhook's new URL",
      description:
        "The registration message (`sigil-pay-webhook:v1`) for the webhook's own scope and event types and the new `url`, " +
        "naming the key `{id}`; single use, 10 minutes, good only for changing this webhook's URL with `PATCH`. `wallet`: " +
        'which controller will sign (optional, as at registration).',
      tags: TAGS,
      protect: true,
      errors: {
        ...PAY_ONLY,
        WEBHOOK_NOT_FOUND: 'no such pay webhook on your account',
        INVALID_URL: '',
        INVALID_WALLET: '',
        URL_REJECTED: 'the destination is not a public HTTPS endpoint',
      },
    }),
  )
  .input(
    withFieldCodes(z.object({ id: keyId, webhookId: keyId, ...UrlChallengeRequestSchema.shape }), {
      fields: { url: 'INVALID_URL', wallet: 'INVALID_WALLET' },
    }),
  )
  .output(WebhookChallengeResponseSchema)
  .mutation(async ({ ctx, input }) =>
    ctx.services.payWebhooks.urlChallenge(await ownerOf(ctx, input.id), input.webhookId, {
      url: input.url,
      wallet: input.wallet,
    }),
  );

/** PATCH /v1/keys/{id}/webhooks/{stream}/{webhookId}: description, event types, URL (a pay URL with its proof). */
export const edit = sessionProcedure
  .meta(
    rest('PATCH', '/v1/keys/{id}/webhooks/{stream}/{webhookId}', {
      summary: 'Edit one of your webhooks',
      description:
        "Any of `description` (null or blank clears it), `event_types` (the stream's grammar) and `url`. A pay webhook's new " +
        '`url` is proven exactly as a registration: `nonce` from `POST …/pay/{webhookId}/challenge` for that url and ' +
        "`signature`, the scope wallet's signature of its message; an identity webhook's needs neither. Delivery state, " +
        'secret and watch position are unchanged.',
      tags: TAGS,
      protect: true,
      errors: {
        ...OWNER_WEBHOOK_ERRORS,
        INVALID_URL: '',
        INVALID_EVENT_TYPES: '',
        URL_REJECTED: 'the destination is not a public HTTPS endpoint',
        CHALLENGE_INVALID: "no nonce with a new url, or not an open challenge of this key for this webhook's new url",
        SIGNATURE_INVALID: 'no signature with a new url, or it does not verify for the scope',
        WALLET_MISMATCH: '',
        NOT_CONTROLLER: '',
        CONTROL_UNPROVEN: '',
        NOT_FOUND: 'the @name is no longer registered',
        RPC_ERROR: 'chain read failed; the nonce is not consumed, retry',
      },
    }),
  )
  .input(
    withFieldCodes(z.object({ ...OwnerWebhookParamsSchema.shape, ...OwnerWebhookPatchSchema.shape }), {
      fields: {
        url: 'INVALID_URL',
        event_types: 'INVALID_EVENT_TYPES',
        nonce: 'CHALLENGE_INVALID',
        signature: 'SIGNATURE_INVALID',
      },
    }),
  )
  .output(OwnerWebhookSchema)
  .mutation(async ({ ctx, input }) => {
    const { id, stream, webhookId, ...body } = input;
    const patch = parseCoded(OwnerWebhookPatchSchema, body);
    return ownerWebhook(stream, await streamService(ctx, stream).edit(await ownerOf(ctx, id), webhookId, patch));
  });

/** DELETE /v1/keys/{id}/webhooks/{stream}/{webhookId}: 204; its delivery log goes with it. */
export const remove = sessionProcedure
  .meta(
    rest('DELETE', '/v1/keys/{id}/webhooks/{stream}/{webhookId}', {
      summary: 'Delete one of your webhooks',
      description: 'Its delivery log goes with it. 204 without a body.',
      tags: TAGS,
      protect: true,
      successStatus: 204,
      errors: OWNER_WEBHOOK_ERRORS,
    }),
  )
  .input(OwnerWebhookParamsSchema)
  .output(z.object({ id: z.string(), deleted: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    await streamService(ctx, input.stream).remove(await ownerOf(ctx, input.id), input.webhookId);
    return { id: input.webhookId, deleted: true as const };
  });
