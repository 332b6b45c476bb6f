// The pay webhook workers of one process, wired together: the indexer (under its db lease) queues deliveries and
// wakes the delivery worker at once (onQueued → kick), as do the procedures that queue one (test event, redeliver).
// Used by main.ts and by tests/benchmarks that run the whole pipeline. Stops are registered on the lifecycle.
import type { Kysely } from 'kysely';
import type { ChainReader } from '../platform/chain/types';
import type { Database } from '../platform/db/index';
import type { Lifecycle } from '../platform/lifecycle';
import type { Logger } from '../platform/log';
import type { OutboundClient } from '../platform/outbound/client';
import type { QueueSignal } from '../features/pay-webhooks/index';
import { startDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from './delivery-loop';
import { startIndexerWorker, type IndexerWorker, type IndexerWorkerOptions } from './indexer';

export interface PayWebhookWorkersOptions {
  db: Kysely<Database>;
  chain: ChainReader;
  /** The process's hardened outbound client (AppServices.outbound, built by compose.ts). */
  client: OutboundClient;
  log?: Logger;
  /** When given, both workers' stops are registered on it. */
  lifecycle?: Lifecycle;
  /** Services.payWebhooks.queued: request-path queueing wakes the delivery worker. */
  queued?: QueueSignal;
  indexer?: Partial<Omit<IndexerWorkerOptions, 'db' | 'chain' | 'onQueued'>>;
  delivery?: Partial<Omit<DeliveryWorkerOptions, 'db' | 'client'>>;
}

export interface PayWebhookWorkers {
  indexer: IndexerWorker;
  delivery: DeliveryWorker;
  /** Indexer first (nothing new is queued), then delivery (in-flight attempts finish). */
  stop(): Promise<void>;
}

export function startPayWebhookWorkers(options: PayWebhookWorkersOptions): PayWebhookWorkers {
  const { db, log } = options;
  const delivery = startDeliveryWorker({ ...options.delivery, db, client: options.client, log });
  const indexer = startIndexerWorker({
    ...options.indexer,
    db,
    chain: options.chain,
    log,
    onQueued: () => delivery.kick(),
  });
  const unlisten = options.queued?.listen(() => delivery.kick());
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      unlisten?.();
      await indexer.stop();
      await delivery.stop();
    })());
  // One entry: the lifecycle runs stops last-registered-first, and the outbound client (registered by composeServices,
  // earlier) must close after the last attempt.
  options.lifecycle?.onStop('pay webhook workers', stop);
  return { indexer, delivery, stop };
}
