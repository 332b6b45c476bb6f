// Identity-change events: the sequenced log of every registry change, its indexer pass, and the identity stream
// of the webhook engine.
import type { IdentityEventsService } from './service';

export { identityEventsRouter } from './router';
export { createIdentityEventsService, pruneIdentityLog } from './service';
export { identityWebhookStream } from './stream';
export { identityConsumer, runIdentityPass } from './indexer';
export type { IdentityPassResult } from './indexer';
export { eventStatus, giftCreations, voucherFacts } from './gifts';
export type { GiftCreation } from './gifts';

declare module '../../trpc/context' {
  interface Services {
    identityEvents: IdentityEventsService;
  }
}
