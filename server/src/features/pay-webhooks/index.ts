// Pay webhooks: the pay stream of the webhook engine — registration by wallet signature, its routes, its
// indexer pass, and its stream definition the delivery worker sends through.
import type { PayWebhooksService } from './service';

export { payWebhooksRouter } from './router';
export { createPayWebhooksService } from './service';
export { payWebhookStream } from './stream';
export { runIndexerPass } from './indexer';
export type { IndexerDeps, IndexerPassResult } from './indexer';

declare module '../../trpc/context' {
  interface Services {
    payWebhooks: PayWebhooksService;
  }
}
