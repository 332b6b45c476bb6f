import { z } from 'zod';
import { RecoverInputSchema, RecoverResponseSchema, toMs } from '@sigil/contract/identity-events';
import { parseCoded, withFieldCodes } from '@sigil/contract/parse';
import { RotateSecretResponseSchema } from '@sigil/contract/webhooks';
import { OwnerWebhookParamsSchema, OwnerWebhookSchema } from '@sigil/contract/owner-webhooks';
import { rest } from '../../trpc/meta';
import { sessionProcedure } from '../../trpc/procedures';
import { OWNER_WEBHOOK_ERRORS, ownerOf, ownerWebhook, streamService, TAGS } from './context';

/** POST …/{webhookId}/disable: no deliveries until enabled (state `disabled`). */
export const disable = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/disable', {
      summary: 'Disable one of your webhooks',
      description:
        'It gets no deliveries until `enable`: events that happen meanwhile are not queued for it and are never ' +
        'delivered to it (not after `enable`, not by `recover`); deliveries already queued wait, pending. `status` ' +
        '`paused`, `paused_reason` `disabled: by the owner`, `state` `disabled`. From `active` or `auto_paused`; a ' +
        'disabled or `scope_changed` webhook is answered as it is. `resume` does not lift it. No request body needed.',
      tags: TAGS,
      protect: true,
      errors: OWNER_WEBHOOK_ERRORS,
    }),
  )
  .input(OwnerWebhookParamsSchema)
  .output(OwnerWebhookSchema)
  .mutation(async ({ ctx, input }) =>
    ownerWebhook(
      input.stream,
      await streamService(ctx, input.stream).disable(await ownerOf(ctx, input.id), input.webhookId),
    ),
  );

/** POST …/{webhookId}/enable: a disabled webhook is active again. */
export const enable = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/enable', {
      summary: 'Enable one of your webhooks you disabled',
      description:
        'Active again (the dead-letter streak restarts): events from now on are delivered, and so are the deliveries ' +
        'that were already queued (before the disable, or since by `test`, `redeliver` or `recover`). Events that ' +
        'happened while it was disabled were never queued for it and are not delivered. Only a `disabled` webhook: ' +
        'anything else is 409 NOT_DISABLED (an auto-paused one resumes with `resume`). No request body needed.',
      tags: TAGS,
      protect: true,
      errors: { ...OWNER_WEBHOOK_ERRORS, NOT_DISABLED: 'the webhook is not disabled' },
    }),
  )
  .input(OwnerWebhookParamsSchema)
  .output(OwnerWebhookSchema)
  .mutation(async ({ ctx, input }) =>
    ownerWebhook(
      input.stream,
      await streamService(ctx, input.stream).enable(await ownerOf(ctx, input.id), input.webhookId),
    ),
  );

/** POST …/{webhookId}/resume: an auto-paused webhook is active again. */
export const resume = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/resume', {
      summary: 'Resume one of your auto-paused webhooks',
      description: 'As `POST /v1/pay/webhooks/{id}/resume`: only `auto_paused`. No request body needed.',
      tags: TAGS,
      protect: true,
      errors: { ...OWNER_WEBHOOK_ERRORS, NOT_RESUMABLE: 'the webhook is not auto-paused' },
    }),
  )
  .input(OwnerWebhookParamsSchema)
  .output(OwnerWebhookSchema)
  .mutation(async ({ ctx, input }) =>
    ownerWebhook(
      input.stream,
      await streamService(ctx, input.stream).resume(await ownerOf(ctx, input.id), input.webhookId),
    ),
  );

/** POST …/{webhookId}/rotate-secret: a new secret (shown once); the old one signs beside it for 24 h. */
export const rotateSecret = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/rotate-secret', {
      summary: "Rotate one of your webhooks' secret",
      description: 'The new secret appears only here; the replaced one keeps signing beside it for 24 hours.',
      tags: TAGS,
      protect: true,
      errors: OWNER_WEBHOOK_ERRORS,
    }),
  )
  .input(OwnerWebhookParamsSchema)
  .output(RotateSecretResponseSchema)
  .mutation(async ({ ctx, input }) =>
    streamService(ctx, input.stream).rotateSecret(await ownerOf(ctx, input.id), input.webhookId),
  );

/** POST …/{webhookId}/recover `{since, until?}`: dead (and failed pending) deliveries of a window, queued again. */
export const recover = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/webhooks/{stream}/{webhookId}/recover', {
      summary: "Recover one of your webhooks' failed deliveries",
      description:
        'As `POST /v1/pay/webhooks/{id}/recover`: every dead delivery, and every pending one that already failed, created in ' +
        '[since, until) (ISO 8601 or unix seconds; until defaults to now) is due now with fresh attempts. Idempotent.',
      tags: TAGS,
      protect: true,
      errors: { ...OWNER_WEBHOOK_ERRORS, BAD_REQUEST: 'since/until malformed, or until not after since' },
    }),
  )
  .input(
    withFieldCodes(
      z.object({
        ...OwnerWebhookParamsSchema.shape,
        since: RecoverInputSchema.shape.since,
        until: RecoverInputSchema.shape.until,
      }),
      { fields: {} },
    ),
  )
  .output(RecoverResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const window = parseCoded(RecoverInputSchema, { id: input.webhookId, since: input.since, until: input.until });
    return streamService(ctx, input.stream).recover(await ownerOf(ctx, input.id), input.webhookId, {
      since: toMs(window.since),
      ...(window.until === undefined ? {} : { until: toMs(window.until) }),
    });
  });
