// The webhook workers of one process, wired together: the indexer (under its db lease) queues deliveries of both
// streams and wakes the engine's delivery worker at once (onQueued → kick), as do the procedures that queue one
// (test event, redeliver, recover). Each stream is switched alone (SIGIL_PAY_WEBHOOKS, SIGIL_IDENTITY_WEBHOOKS):
// a stream that is off is neither indexed (pay) nor delivered. Used by main.ts and by tests/benchmarks that run the
// whole pipeline. Stops are registered on the lifecycle.
import type { Kysely } from 'kysely';
import type { ChainReader } from '../platform/chain/types';
import type { Database } from '../platform/db/index';
import type { Lifecycle } from '../platform/lifecycle';
import type { Logger } from '../platform/log';
import type { OutboundClient } from '../platform/outbound/client';
import {
  startDeliveryWorker,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
  type QueueSignal,
} from '../features/webhooks/index';
import { payWebhookStream } from '../features/pay-webhooks/index';
import { identityWebhookStream } from '../features/identity-events/index';
import { startIndexerWorker, type IndexerWorker, type IndexerWorkerOptions } from './indexer';

export interface PayWebhookWorkersOptions {
  db: Kysely<Database>;
  chain: ChainReader;
  /** The process's hardened outbound client (AppServices.outbound, built by compose.ts). */
  client: OutboundClient;
  log?: Logger;
  /** When given, both workers' stops are registered on it. */
  lifecycle?: Lifecycle;
  /** The queue signal of the services: request-path queueing wakes the delivery worker. */
  queued?: QueueSignal;
  /** The ingest signal of the services: a request that wants the next finalized blocks now wakes the indexer. */
  ingest?: QueueSignal;
  /** Which streams are on (default both). */
  streams?: { pay: boolean; identity: boolean };
  indexer?: Partial<Omit<IndexerWorkerOptions, 'db' | 'chain' | 'onQueued' | 'pay'>>;
  delivery?: Partial<Omit<DeliveryWorkerOptions, 'db' | 'client' | 'streams'>>;
}

export interface PayWebhookWorkers {
  indexer: IndexerWorker;
  delivery: DeliveryWorker;
  /** Indexer first (nothing new is queued), then delivery (in-flight attempts finish). */
  stop(): Promise<void>;
}

export function startPayWebhookWorkers(options: PayWebhookWorkersOptions): PayWebhookWorkers {
  const { db, log } = options;
  const on = options.streams ?? { pay: true, identity: true };
  const streams = [...(on.pay ? [payWebhookStream] : []), ...(on.identity ? [identityWebhookStream] : [])];
  const delivery = startDeliveryWorker({ ...options.delivery, db, client: options.client, log, streams });
  const indexer = startIndexerWorker({
    ...options.indexer,
    db,
    chain: options.chain,
    log,
    pay: on.pay,
    onQueued: () => delivery.kick(),
  });
  const unlisten = options.queued?.listen(() => delivery.kick());
  const unlistenIngest = options.ingest?.listen(() => indexer.wake());
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      unlisten?.();
      unlistenIngest?.();
      await indexer.stop();
      await delivery.stop();
    })());
  // One entry: the lifecycle runs stops last-registered-first, and the outbound client (registered by composeServices,
  // earlier) must close after the last attempt.
  options.lifecycle?.onStop('webhook workers', stop);
  return { indexer, delivery, stop };
}
