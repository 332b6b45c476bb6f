// The management verbs of one registered stream, bound to the db, the stream, its switch and the queue signal.
// A stream's own service spreads these and adds its own verbs (registration, its log). Turned off, every verb
// answers the stream's `disabled()` error and touches nothing.
import type { Kysely } from 'kysely';
import type { DeliveryRecord } from '@sigil/contract/webhooks';
import type { Database } from '../../platform/db/index';
import type { QueueSignal } from './queue-signal';
import type { WebhookStream } from './stream';
import type { DeliveryPageQuery } from '@sigil/contract/owner-webhooks';
import {
  attemptPage,
  deleteWebhook,
  deliveryDetail,
  deliveryPage,
  disableWebhook,
  enableWebhook,
  updateWebhook,
  listDeliveries,
  listWebhooks,
  ownRow,
  recoverDeliveries,
  redeliver,
  resumeWebhook,
  rotateWebhookSecret,
  sendTestEvent,
  type WebhookCaller,
} from './subscriptions';

export interface WebhookStreamServiceDeps<W> {
  db: Kysely<Database>;
  stream: WebhookStream<W>;
  /** False when the deployment turned the stream off: every verb answers `stream.disabled()`. */
  enabled: boolean;
  /** Told whenever a verb queued a delivery (test event, redeliver, recover) so the delivery worker wakes. */
  queued: QueueSignal;
  now?: () => number;
}

/** The management verbs a stream's service spreads into its own (all but `on`, the switch it wraps its verbs in). */
export type WebhookStreamVerbs<W> = Omit<ReturnType<typeof createWebhookStreamService<W>>, 'on'>;

export function createWebhookStreamService<W>(deps: WebhookStreamServiceDeps<W>) {
  const { db, stream, queued } = deps;
  const now = () => deps.now?.() ?? Date.now();
  /** The verb while the stream is on; its `disabled()` error while it is off. */
  const on =
    <A extends unknown[], R>(verb: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      deps.enabled ? verb(...args) : Promise.reject(stream.disabled());
  return {
    enabled: deps.enabled,
    queued,
    on,
    list: on((caller: WebhookCaller) => listWebhooks(db, stream, caller)),
    get: on(async (caller: WebhookCaller, id: string) => stream.toWebhook(await ownRow(db, stream, caller, id))),
    deliveries: on((caller: WebhookCaller, id: string, query?: { limit?: unknown }) =>
      listDeliveries(db, stream, caller, id, query),
    ),
    rotateSecret: on((caller: WebhookCaller, id: string) => rotateWebhookSecret(db, stream, caller, id, now())),
    resume: on(async (caller: WebhookCaller, id: string) =>
      stream.toWebhook(await resumeWebhook(db, stream, caller, id, now())),
    ),
    remove: on((caller: WebhookCaller, id: string) => deleteWebhook(db, stream, caller, id)),
    redeliver: on(async (caller: WebhookCaller, id: string, deliveryId: string): Promise<DeliveryRecord> => {
      const record = await redeliver(db, stream, caller, { id, deliveryId }, now());
      queued.notify();
      return record;
    }),
    sendTest: on(async (caller: WebhookCaller, id: string, type?: string): Promise<DeliveryRecord> => {
      const record = await sendTestEvent(db, stream, caller, id, now(), type);
      queued.notify();
      return record;
    }),
    update: on(
      async (caller: WebhookCaller, id: string, patch: { description?: string | null; event_types?: string[] }) =>
        stream.toWebhook(await updateWebhook(db, stream, caller, id, patch, now())),
    ),
    disable: on(async (caller: WebhookCaller, id: string) =>
      stream.toWebhook(await disableWebhook(db, stream, caller, id, now())),
    ),
    enable: on(async (caller: WebhookCaller, id: string) =>
      stream.toWebhook(await enableWebhook(db, stream, caller, id, now())),
    ),
    deliveryPage: on((caller: WebhookCaller, id: string, query: DeliveryPageQuery) =>
      deliveryPage(db, stream, caller, id, query),
    ),
    deliveryDetail: on((caller: WebhookCaller, id: string, deliveryId: string) =>
      deliveryDetail(db, stream, caller, { id, deliveryId }),
    ),
    attempts: on((caller: WebhookCaller, id: string, deliveryId: string, query: { limit: number; cursor?: string }) =>
      attemptPage(db, stream, caller, { id, deliveryId }, query),
    ),
    recover: on(async (caller: WebhookCaller, id: string, window: { since: number; until?: number }) => {
      const result = await recoverDeliveries(db, stream, caller, id, window, now());
      if (result.requeued > 0) queued.notify();
      return result;
    }),
  };
}
