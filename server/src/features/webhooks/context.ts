// What the pay webhook procedures share: the feature's services (absent when SIGIL_PAY_WEBHOOKS is off), the caller
// as the services know it, and the documented error rows every route has.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { ApiError } from '@sigil/contract/errors';
import type { Database } from '../../platform/db/index';
import type { RequestContext } from '../../trpc/context';
import type { ApiKeyIdentity } from '../../trpc/procedures';
import type { WebhookCaller, WebhookServiceDeps } from './service';

/** Process-wide pay webhook services (AppServices.payWebhooks), built by app.ts when the feature is on and a db exists. */
export interface PayWebhooks {
  db: Kysely<Database>;
  deps: WebhookServiceDeps;
  /** Tells the delivery worker that a procedure queued a delivery (test event, redeliver); main.ts listens. */
  queued: QueueSignal;
}

/** A wake-up line from the request path to the delivery worker. Without a listener (tests without workers) a no-op. */
export interface QueueSignal {
  notify(): void;
  listen(listener: () => void): () => void;
}

export function createQueueSignal(): QueueSignal {
  const listeners = new Set<() => void>();
  return {
    notify: () => listeners.forEach((listener) => listener()),
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The feature for this request, or 503 PAY_WEBHOOKS_DISABLED when the deployment turned it off. */
export function payWebhooksOf(ctx: Pick<RequestContext, 'services'>): PayWebhooks {
  const { payWebhooks, db } = ctx.services;
  if (payWebhooks) return payWebhooks;
  if (!db) throw new Error('pay webhooks: buildApp needs a db');
  throw new ApiError('PAY_WEBHOOKS_DISABLED', 'pay webhooks are turned off on this deployment');
}

/** A webhook belongs to the key's account; the key id is what the challenge message names. */
export const callerOf = (apiKey: ApiKeyIdentity): WebhookCaller => ({ keyId: apiKey.id, account: apiKey.account });

/** Error rows every webhook route documents (apiKeyProcedure + the feature switch). */
export const WEBHOOK_AUTH_ERRORS = {
  401: 'API_KEY_REQUIRED / INVALID_KEY',
  429: 'RATE_LIMITED (Retry-After)',
  503: 'PAY_WEBHOOKS_DISABLED (the deployment turned the feature off)',
} as const;

/** Error rows of the routes that address one webhook. */
export const WEBHOOK_ID_ERRORS = { ...WEBHOOK_AUTH_ERRORS, 400: 'BAD_REQUEST (malformed id)', 404: 'WEBHOOK_NOT_FOUND (no such webhook on this account)' } as const;

/** `{id}` of the routes under /v1/pay/webhooks/{id}: any string that could be an id; an unknown one is WEBHOOK_NOT_FOUND. */
export const WebhookIdParamsSchema = z.object({ id: z.string().min(1).max(128) });
