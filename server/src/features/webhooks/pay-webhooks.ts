// The pay webhooks service the procedures call: the registration and management functions of service.ts bound to
// their deps, plus the wake-up line to the delivery worker. A deployment that turned the feature off gets the same
// service answering 503 PAY_WEBHOOKS_DISABLED on every route.
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import type { Database } from '../../platform/db/index';
import {
  deleteWebhook,
  getWebhook,
  issueWebhookChallenge,
  listDeliveries,
  listWebhooks,
  redeliver,
  registerWebhook,
  resumeWebhook,
  rotateWebhookSecret,
  sendTestEvent,
  type WebhookCaller,
  type WebhookServiceDeps,
} from './service';

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

export interface PayWebhooksDeps extends WebhookServiceDeps {
  db: Kysely<Database>;
  /** False when the deployment turned pay webhooks off (SIGIL_PAY_WEBHOOKS). */
  enabled: boolean;
  queued: QueueSignal;
}

export function createPayWebhooksService(deps: PayWebhooksDeps) {
  const { db, queued } = deps;
  const on = <A extends unknown[], R>(verb: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      if (!deps.enabled) throw new ApiError('PAY_WEBHOOKS_DISABLED', 'pay webhooks are turned off on this deployment');
      return verb(...args);
    };
  return {
    enabled: deps.enabled,
    queued,
    issueChallenge: on((caller: WebhookCaller, body: unknown) => issueWebhookChallenge(db, deps, caller, body)),
    register: on((caller: WebhookCaller, body: unknown) => registerWebhook(db, deps, caller, body)),
    list: on((caller: WebhookCaller) => listWebhooks(db, caller)),
    get: on((caller: WebhookCaller, id: string) => getWebhook(db, caller, id)),
    deliveries: on((caller: WebhookCaller, id: string, query: { limit?: unknown }) => listDeliveries(db, caller, id, query)),
    rotateSecret: on((caller: WebhookCaller, id: string) => rotateWebhookSecret(db, caller, id)),
    resume: on((caller: WebhookCaller, id: string) => resumeWebhook(db, caller, id)),
    remove: on((caller: WebhookCaller, id: string) => deleteWebhook(db, caller, id)),
    redeliver: on(async (caller: WebhookCaller, id: string, deliveryId: string) => {
      const record = await redeliver(db, caller, id, deliveryId);
      queued.notify();
      return record;
    }),
    sendTest: on(async (caller: WebhookCaller, id: string) => {
      const record = await sendTestEvent(db, caller, id);
      queued.notify();
      return record;
    }),
  };
}

export type PayWebhooksService = ReturnType<typeof createPayWebhooksService>;
