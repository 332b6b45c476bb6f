// The handle index worker: every `intervalMs` one pass of features/search (scan the registry's handles, update
// handle_index) under the `handle-index` db lease, so that of several replicas one scans at a time. A failed pass
// (RPC down) is logged and retried on the next tick: every pass rebuilds the whole picture, nothing is lost.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { acquireLease, releaseLease, renewLease, type Database } from '../platform/db/index';
import type { Lifecycle } from '../platform/lifecycle';
import type { Logger } from '../platform/log';
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
  const holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const intervalMs = options.intervalMs ?? 10_000;
  const ttl = options.leaseTtlMs ?? Math.max(30_000, 3 * intervalMs);
  const now = () => options.now?.() ?? Date.now();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let running: Promise<unknown> = Promise.resolve();

  async function runOnce(): Promise<HandleIndexPassResult | null> {
    const mine =
      (await renewLease(db, HANDLE_INDEX_LEASE, holder, ttl, now())) ||
      (await acquireLease(db, HANDLE_INDEX_LEASE, holder, ttl, now()));
    if (!mine) return null;
    return runHandleIndexPass(db, options);
  }

  async function cycle() {
    while (!stopped) {
      try {
        const result = await runOnce();
        if (result && result.added + result.changed + result.removed > 0)
          log?.debug({ ...result }, 'handle index pass');
        if (result && result.undecodable > 0) log?.warn({ ...result }, 'handle index: undecodable registry accounts');
      } catch (err) {
        log?.warn({ err, retryInMs: intervalMs }, 'handle index pass failed; retrying');
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, intervalMs);
      });
    }
  }

  if (loop) running = cycle();
  const worker: HandleIndexWorker = {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await running.catch(() => {});
      await releaseLease(db, HANDLE_INDEX_LEASE, holder).catch(() => {});
    },
  };
  options.lifecycle?.onStop('handle index worker', () => worker.stop());
  return worker;
}
