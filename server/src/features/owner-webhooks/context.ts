// What the session webhook procedures share: the caller from the session and the path's key, the stream's
// service by name, the webhook as these routes show it, and the codes every route may answer.
import { webhookState, type OwnerWebhook } from '@sigil/contract/owner-webhooks';
import type { WebhookStreamName } from '@sigil/contract/event-catalog';
import type { RequestContext, SessionIdentity } from '../../trpc/context';
import type { ErrorRows } from '../../trpc/meta';
import { SESSION_ERRORS } from '../../trpc/procedures';

type SessionContext = RequestContext & { session: SessionIdentity };

/** The owner's active key `id` as the streams' caller (KEY_NOT_FOUND otherwise). */
export const ownerOf = (ctx: SessionContext, keyId: string) =>
  ctx.services.ownerWebhooks.caller(ctx.session.address, keyId);

/** The service of a stream by its path name: both carry the webhook engine's verbs. */
export function streamService(ctx: RequestContext, stream: WebhookStreamName) {
  const services = { pay: ctx.services.payWebhooks, identity: ctx.services.identityEvents };
  return services[stream];
}

/** A stream's webhook with its stream and state. */
export function ownerWebhook(
  stream: WebhookStreamName,
  webhook: { status: 'active' | 'paused'; paused_reason: string | null },
): OwnerWebhook {
  return { ...webhook, stream, state: webhookState(webhook) } as OwnerWebhook;
}

/** The codes of every route here: the session, the key, either stream's switch. */
export const OWNER_ERRORS = {
  ...SESSION_ERRORS,
  KEY_NOT_FOUND: 'not one of your active keys',
  BAD_REQUEST: 'a malformed parameter',
  PAY_WEBHOOKS_DISABLED: 'pay webhooks are turned off on this deployment',
  IDENTITY_WEBHOOKS_DISABLED: 'identity webhooks are turned off on this deployment',
} as const satisfies ErrorRows;

/** The codes of the routes that address one webhook. */
export const OWNER_WEBHOOK_ERRORS = {
  ...OWNER_ERRORS,
  WEBHOOK_NOT_FOUND: 'no such webhook of this stream on your account',
} as const satisfies ErrorRows;

export const OWNER_DELIVERY_ERRORS = {
  ...OWNER_WEBHOOK_ERRORS,
  DELIVERY_NOT_FOUND: 'no such delivery of this webhook',
} as const satisfies ErrorRows;

export const TAGS = ['webhooks (signed in)'];
