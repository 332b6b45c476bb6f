// Pay webhooks: registration by wallet signature, management routes, and what the workers run.
import type { PayWebhooksService } from './service';

export { payWebhooksRouter } from './router';
export { createPayWebhooksService } from './service';
export { createQueueSignal } from './queue-signal';
export type { QueueSignal } from './queue-signal';
export { claimReadyAttempts, createDeliveredFinisher, newDeliveryRow, sendAttempt } from './attempts';
export {
  countWebhooks,
  deleteWebhook,
  insertWithinCap,
  limitReached,
  listDeliveries,
  newSubscriptionRow,
  newWebhookSecret,
  ownRow,
  recoverDeliveries,
  redeliver,
  resumeWebhook,
  rotateWebhookSecret,
  streamRows,
  TEST_SIGNATURE,
  testEventChain,
  vetWebhookUrl,
} from './service';
export type { WebhookCaller } from './service';
export type { AttemptOutcome, DeliveryDeps } from './attempts';
export { runIndexerPass } from './indexer';
export type { IndexerDeps, IndexerPassResult } from './indexer';

declare module '../../trpc/context' {
  interface Services {
    payWebhooks: PayWebhooksService;
  }
}
