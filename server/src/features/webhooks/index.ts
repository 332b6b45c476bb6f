// Pay webhooks: registration by wallet signature, management routes, and what the workers run.
import type { PayWebhooksService } from './pay-webhooks';

export { payWebhooksRouter } from './router';
export { createPayWebhooksService, createQueueSignal } from './pay-webhooks';
export type { PayWebhooksService, QueueSignal } from './pay-webhooks';
export { claimReadyAttempts, createDeliveredFinisher, sendAttempt } from './attempts';
export type { AttemptOutcome, DeliveryDeps } from './attempts';
export { runIndexerPass } from './indexer';
export type { IndexerDeps, IndexerPassResult } from './indexer';

declare module '../../trpc/context' {
  interface Services {
    payWebhooks: PayWebhooksService;
  }
}
