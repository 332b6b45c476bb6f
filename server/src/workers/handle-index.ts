// The handle index worker: every `intervalMs` one pass of features/search (scan the registry's handles, update
// handle_index) in the one worker loop (platform/worker-loop.ts) under the `handle-index` db lease, so that of several replicas one scans at a time. A failed pass
// (RPC down) is logged and retried on the next tick: every pass rebuilds the whole picture, nothing is lost.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/index';
import type { Lifecycle } from '../platform/lifecycle';
import type { Logger } from '../platform/log';
import { newHolderId, startWorkerLoop } from '../platform/worker-loop';
import { runHandleIndexPass, type HandleIndexDeps, type HandleIndexPassResult } from '../features/search/index';

export const HANDLE_INDEX_LEASE = 'handle-index';

export interface HandleIndexWorkerOptions extends HandleIndexDeps {
  db: Kysely<Database>;
  log?: Logger;
  /** Pause between passes (SIGIL_HANDLE_INDEX_INTERVAL_MS). Default 10 s. */
  intervalMs?: number;
  /** Lease lifetime, renewed every pass. Default: three intervals, at least 30 s (a pass may take a while). */
  leaseTtlMs?: number;
  holder?: string;
  /** When given, the worker's stop is registered on it. */
  lifecycle?: Lifecycle;
}

export interface HandleIndexWorker {
  /** One pass now if the lease is ours; null when another replica holds it. */
  runOnce(): Promise<HandleIndexPassResult | null>;
  stop(): Promise<void>;
}

export function startHandleIndexWorker(options: HandleIndexWorkerOptions, { loop = true } = {}): HandleIndexWorker {
  const { db, log } = options;
  const intervalMs = options.intervalMs ?? 10_000;
  const holder = options.holder ?? newHolderId();
  const worker = startWorkerLoop(
    {
      name: 'handle index',
      // A failed pass (RPC down) is retried on the next tick: every pass rebuilds the whole picture.
      pass: () => runHandleIndexPass(db, options),
      intervalMs,
      lease: { db, name: HANDLE_INDEX_LEASE, holder, ttlMs: options.leaseTtlMs ?? Math.max(30_000, 3 * intervalMs) },
      onPass: (result) => {
        if (result.added + result.changed + result.removed > 0) log?.debug({ ...result }, 'handle index pass');
        if (result.undecodable > 0) log?.warn({ ...result }, 'handle index: undecodable registry accounts');
      },
      log,
      now: options.now,
    },
    { loop },
  );
  const handleIndex: HandleIndexWorker = { runOnce: worker.runOnce, stop: worker.stop };
  options.lifecycle?.onStop('handle index worker', () => handleIndex.stop());
  return handleIndex;
}
