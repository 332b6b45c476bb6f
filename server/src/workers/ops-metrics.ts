// The gauges an operator alerts on that live in the database rather than in one process (docs/deploy.md "Metrics"):
// the webhook delivery backlog, its lag and dead letters, and the pay indexer's slot lag. Read at scrape time, so
// every replica reports the same shared figures.
import { Gauge } from 'prom-client';
import type { Kysely } from 'kysely';
import type { ChainReader } from '../platform/chain/types';
import { readKv, type Database } from '../platform/db/index';
import type { Metrics } from '../platform/metrics';
import { countDeadDeliveries, countPendingDeliveries, oldestPendingCreatedAt } from '../features/webhooks/index';
import { INDEXED_SLOT_KEY } from './indexer';

export interface OpsMetricsDeps {
  db: Kysely<Database>;
  chain: Pick<ChainReader, 'getSlot'>;
  now?: () => number;
}

export function registerOpsMetrics(metrics: Metrics, deps: OpsMetricsDeps): void {
  const { db, chain } = deps;
  const now = () => deps.now?.() ?? Date.now();
  const registers = [metrics.registry];
  new Gauge({
    name: 'sigil_webhook_delivery_backlog',
    help: 'Webhook deliveries waiting to be delivered (pending, test deliveries excluded).',
    registers,
    async collect() {
      this.set(await countPendingDeliveries(db));
    },
  });
  new Gauge({
    name: 'sigil_webhook_delivery_lag_seconds',
    help: 'Age in seconds of the oldest webhook delivery still pending (0 when none is).',
    registers,
    async collect() {
      const oldest = await oldestPendingCreatedAt(db);
      this.set(oldest === undefined ? 0 : Math.max(0, (now() - oldest) / 1000));
    },
  });
  new Gauge({
    name: 'sigil_webhook_dead_letters',
    help: 'Webhook deliveries that exhausted their retries (dead), test deliveries excluded.',
    registers,
    async collect() {
      this.set(await countDeadDeliveries(db));
    },
  });
  new Gauge({
    name: 'sigil_indexer_slot_lag',
    help: 'Finalized slots between the chain tip and what the pay indexer has indexed (0 until a pass completed).',
    registers,
    async collect() {
      const indexed = await readKv(db, INDEXED_SLOT_KEY);
      if (indexed === undefined) return;
      try {
        const tip = await chain.getSlot('finalized');
        this.set(Math.max(0, Number(tip - BigInt(indexed))));
      } catch {
        this.reset(); // tip unknown: no sample rather than a stale one (RPC errors have their own metric)
      }
    },
  });
}
