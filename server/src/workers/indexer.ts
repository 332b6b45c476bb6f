// The pay indexer worker: runs indexer passes (features/pay-webhooks/indexer.ts) in the one worker loop
// (platform/worker-loop.ts) under the `pay-indexer` db lease, so that of several replicas exactly one indexes at a
// time; RPC faults back off exponentially (1 s … 30 s) and are retried — progress is persisted per transaction, so
// nothing is lost or duplicated.
import type { Kysely } from 'kysely';
import { writeKv, type Database } from '../platform/db/index';
import type { Logger } from '../platform/log';
import { newHolderId, startWorkerLoop, type PassContext } from '../platform/worker-loop';
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
  /**
   * How long a scheduled pass stays at the finalized tip, handing each new block to the consumers as soon as the
   * source has it (finalized → delivered is then about one source poll, not the pause between passes). Must stay
   * well under the lease lifetime. `runOnce` passes end at the tip. Default 5000 ms.
   */
  followMs?: number;
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
  /** Starts the next pass now instead of after the pause (a gift notify: its event is wanted at once). */
  wake(): void;
  stop(): Promise<void>;
}

export function startIndexerWorker(options: IndexerWorkerOptions, { loop = true } = {}): IndexerWorker {
  const { db, log } = options;
  const now = () => options.now?.() ?? Date.now();

  async function pass({ signal, scheduled }: PassContext) {
    // The finalized tip before the pass: once the pass completes, everything up to it is indexed (slot lag metric).
    const tip = await finalizedSlot(options.chain);
    // One pass over the new finalized blocks feeds both streams, under one cursor (platform/chain/source/ingest.ts).
    const identity: IdentityPassResult | null =
      options.identity === false ? null : { transactions: 0, events: 0, deliveries: 0 };
    const consumers = identity ? [identityConsumer(db, { ...options, ...options.identity }, identity)] : [];
    const followMs = scheduled ? (options.followMs ?? 5000) : 0;
    const pay = await runIndexerPass(db, { ...options, tip, followMs, signal }, consumers);
    if (tip !== undefined) await writeKv(db, INDEXED_SLOT_KEY, String(tip), now());
    return { ...pay, identity };
  }

  const worker = startWorkerLoop(
    {
      name: 'indexer',
      pass,
      intervalMs: options.intervalMs ?? 1000,
      lease: { db, name: INDEXER_LEASE, holder: options.holder ?? newHolderId(), ttlMs: options.leaseTtlMs ?? 30_000 },
      backoff: { minMs: options.backoffMinMs ?? 1000, maxMs: options.backoffMaxMs ?? 30_000 },
      onPass: (result) => {
        if (result.transactions > 0 || (result.identity?.transactions ?? 0) > 0)
          log?.debug({ ...result }, 'indexer pass');
      },
      log,
      now,
    },
    { loop },
  );
  return {
    runOnce: worker.runOnce,
    wake: worker.wake,
    // The source may keep a stream open between passes (Yellowstone): it ends with the worker.
    stop: async () => {
      await worker.stop();
      options.source?.close?.();
    },
  };
}
