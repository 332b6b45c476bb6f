// The pay indexer worker: runs indexer passes (features/pay-webhooks/indexer.ts) under the `pay-indexer` db lease, so
// that of several replicas exactly one indexes at a time; RPC faults back off exponentially (1 s … 30 s) and are
// retried — progress is persisted per transaction, so nothing is lost or duplicated.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { acquireLease, releaseLease, renewLease, writeKv, type Database } from '../platform/db/index';
import type { Logger } from '../platform/log';
import { runIndexerPass, type IndexerDeps, type IndexerPassResult } from '../features/pay-webhooks/index';
import { identityConsumer, type IdentityPassResult } from '../features/identity-events/index';

export const INDEXER_LEASE = 'pay-indexer';
/** kv key: the finalized slot up to which the last completed indexer pass (any replica) indexed. */
export const INDEXED_SLOT_KEY = 'pay-indexer.indexed-slot';

/** The finalized slot, or undefined when the RPC does not say (the pass itself reports RPC faults). */
async function finalizedSlot(chain: IndexerDeps['chain']): Promise<bigint | undefined> {
  try {
    return await chain.getSlot('finalized');
  } catch {
    return undefined;
  }
}

export interface IndexerWorkerOptions extends IndexerDeps {
  db: Kysely<Database>;
  /**
   * The identity stream (docs/identity-events.md) is derived in the same passes, under the same lease (one writer
   * of its sequence): false turns it off; `backfillFromSlot` is where the log starts on its first run.
   */
  identity?: false | { backfillFromSlot?: number };
  log?: Logger;
  /** Pause between passes when caught up. Default 1000 ms. */
  intervalMs?: number;
  /** Lease lifetime; renewed every pass. Default 30 s. */
  leaseTtlMs?: number;
  /** Backoff bounds after a failed pass. */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  holder?: string;
}

export interface IndexerWorker {
  /** One pass now if the lease is ours (tests); resolves to null when another replica holds the lease. */
  runOnce(): Promise<(IndexerPassResult & { identity: IdentityPassResult | null }) | null>;
  stop(): Promise<void>;
}

export function startIndexerWorker(options: IndexerWorkerOptions, { loop = true } = {}): IndexerWorker {
  const { db, log } = options;
  const holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const ttl = options.leaseTtlMs ?? 30_000;
  const now = () => options.now?.() ?? Date.now();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let failures = 0;

  async function runOnce() {
    const mine =
      (await renewLease(db, INDEXER_LEASE, holder, ttl, now())) ||
      (await acquireLease(db, INDEXER_LEASE, holder, ttl, now()));
    if (!mine) return null;
    // The finalized tip before the pass: once the pass completes, everything up to it is indexed (slot lag metric).
    const tip = await finalizedSlot(options.chain);
    // One pass over the new finalized blocks feeds both streams, under one cursor (platform/chain/source/ingest.ts).
    const identity: IdentityPassResult | null =
      options.identity === false ? null : { transactions: 0, events: 0, deliveries: 0 };
    const consumers = identity ? [identityConsumer(db, { ...options, ...options.identity }, identity)] : [];
    const pay = await runIndexerPass(db, { ...options, tip }, consumers);
    if (tip !== undefined) await writeKv(db, INDEXED_SLOT_KEY, String(tip), now());
    return { ...pay, identity };
  }

  async function cycle() {
    while (!stopped) {
      let delay = options.intervalMs ?? 1000;
      try {
        const result = await runOnce();
        failures = 0;
        if (result && (result.transactions > 0 || (result.identity?.transactions ?? 0) > 0))
          log?.debug({ ...result }, 'indexer pass');
      } catch (err) {
        failures++;
        const min = options.backoffMinMs ?? 1000;
        delay = Math.min(options.backoffMaxMs ?? 30_000, min * 2 ** Math.min(failures - 1, 10));
        log?.warn({ err, failures, retryInMs: delay }, 'indexer pass failed; retrying');
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, delay);
      });
    }
  }

  if (loop) running = cycle();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await running.catch(() => {});
      await releaseLease(db, INDEXER_LEASE, holder).catch(() => {});
    },
  };
}
