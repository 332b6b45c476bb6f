// Identity-change events: the sequenced log of every registry change, its indexer pass, identity webhooks.
import type { IdentityEventsService } from './service';

export { identityEventsRouter } from './router';
export { createIdentityEventsService, pruneIdentityLog } from './service';
export { identityConsumer, runIdentityPass } from './indexer';
export type { IdentityPassResult } from './indexer';

declare module '../../trpc/context' {
  interface Services {
    identityEvents: IdentityEventsService;
  }
}
