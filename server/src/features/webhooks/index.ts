// The webhook engine (docs/webhooks.md "One engine, two streams"): subscriptions, challenges, signing, attempts,
// retries, the per-minute budget, auto-pause, rotation, redeliver, recover, test events and the delivery worker,
// for every stream that registers (stream.ts). It knows no event of its own: pay webhooks and identity webhooks
// are streams. No routes of its own; the streams' features route to it.
export { createQueueSignal } from './queue-signal';
export type { QueueSignal } from './queue-signal';
export type { StoredEvent, WebhookStream } from './stream';
export { TEST_SIGNATURE, testEventChain } from './stream';
export { createWebhookStreamService } from './service';
export type { WebhookStreamVerbs } from './service';
export {
  checkRoomFor,
  deleteWebhook,
  insertWithinCap,
  listDeliveries,
  ownRow,
  updateWebhook,
  newSubscriptionRow,
  newWebhookSecret,
  vetWebhookUrl,
  type WebhookCaller,
} from './subscriptions';
export type { ProvenScope, SubscriptionRow } from './subscription-queries';
export { insertSubscriptions } from './subscription-queries';
export { changeUrlByChallenge, issueChallenge, registerByChallenge } from './registration';
export { seconds } from './records';
export { newDeliveryRow, signedHeaders } from './attempts';
export { startDeliveryWorker } from './delivery-worker';
export {
  countDeadDeliveries,
  countPendingDeliveries,
  deleteDeliveriesOfEvents,
  insertDeliveries,
  oldestPendingCreatedAt,
} from './delivery-queries';
export type { DeliveryWorker, DeliveryWorkerOptions } from './delivery-worker';
