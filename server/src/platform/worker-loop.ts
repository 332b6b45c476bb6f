// The one background worker loop (docs/data.md "Workers"): a pass, then a pause, until stopped. What every leased
// or polling worker shares lives here once — the optional db lease (one replica at a time), the timer, the wake-up
// that cuts a pause short, the exponential backoff after a failed pass, and a stop that waits for the running
// pass and frees the lease. What a worker does in a pass is the worker's own `pass` function.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { acquireLease, releaseLease, renewLease, type Database } from './db/index';
import type { Logger } from './log';

/** A lease holder id unique to this process and worker: host, pid and 4 random bytes. */
export const newHolderId = () => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

export interface WorkerLease {
  db: Kysely<Database>;
  /** The lease row's name: one holder among every replica on the database. */
  name: string;
  holder: string;
  /** Lifetime; renewed before every pass, so it must exceed the longest pass. */
  ttlMs: number;
}

export interface Backoff {
  minMs: number;
  maxMs: number;
}

export interface WorkerLoopOptions<R> {
  /** For log lines. */
  name: string;
  /** One pass of the worker's work (a long pass ends early when `signal` aborts: the worker is stopping). */
  pass: (context: PassContext) => Promise<R>;
  /** Pause after a pass that asked for none (`again`). */
  intervalMs: number;
  /** When set, a pass runs only while this process holds the lease; otherwise `runOnce` answers null. */
  lease?: WorkerLease;
  /** After failed passes the pause grows: minMs × 2^(failures−1), capped at maxMs. Default: the interval. */
  backoff?: Backoff;
  /** True when more work is due at once: the next pass starts without a pause. */
  again?: (result: R) => boolean;
  /** Called with each completed pass's result (logging). */
  onPass?: (result: R) => void;
  log?: Logger;
  now?: () => number;
}

export interface PassContext {
  /** Aborts when the worker stops. */
  signal: AbortSignal;
  /** True for the loop's own passes, false for `runOnce` (a pass asked for now, which should end promptly). */
  scheduled: boolean;
}

export interface WorkerLoop<R> {
  /** One pass now (under the lease when there is one); null when another holder has the lease. */
  runOnce(): Promise<R | null>;
  /** Cuts the current pause short; a wake during a pass makes the next pass start without a pause. */
  wake(): void;
  /** No new pass starts; waits for the running ones, then frees the lease. Idempotent. */
  stop(): Promise<void>;
}

/** The pause after `failures` failed passes in a row (failures ≥ 1). */
export function backoffDelay(backoff: Backoff, failures: number): number {
  // The exponent is capped so 2 ** n stays finite whatever the streak.
  return Math.min(backoff.maxMs, backoff.minMs * 2 ** Math.min(Math.max(0, failures - 1), 30));
}

export function startWorkerLoop<R>(options: WorkerLoopOptions<R>, { loop = true } = {}): WorkerLoop<R> {
  const { lease, log } = options;
  const now = () => options.now?.() ?? Date.now();
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;
  let woken = false;
  let timer: NodeJS.Timeout | undefined;
  let endPause: (() => void) | undefined;
  let failures = 0;
  const stopSignal = new AbortController();

  const holds = async (l: WorkerLease) =>
    (await renewLease(l.db, l.name, l.holder, l.ttlMs, now())) ||
    (await acquireLease(l.db, l.name, l.holder, l.ttlMs, now()));

  /**
   * A pass still running after half its lease is reported, and again each half-lease after: the lease is renewed only
   * between passes, so such a pass is about to lose it to another replica, and a pass that hangs (a read without an
   * answer, a lock never released) is otherwise silent.
   */
  function watch(started: Promise<unknown>, since: number): void {
    if (!lease || !log) return;
    const every = lease.ttlMs / 2;
    const timer = setInterval(() => {
      log.warn(
        { worker: options.name, runningMs: Math.round(performance.now() - since), leaseTtlMs: lease.ttlMs },
        'worker pass still running; its lease runs out unless it ends',
      );
    }, every);
    timer.unref();
    void started.finally(() => clearInterval(timer)).catch(() => {});
  }

  function run(scheduled: boolean): Promise<R | null> {
    const started = (async () => {
      if (lease && !(await holds(lease))) return null;
      return options.pass({ signal: stopSignal.signal, scheduled });
    })();
    inFlight.add(started);
    watch(started, performance.now());
    void started.then(
      () => inFlight.delete(started),
      () => inFlight.delete(started),
    );
    return started;
  }
  const runOnce = () => run(false);

  function pause(ms: number): Promise<void> {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      endPause = () => {
        clearTimeout(timer);
        endPause = undefined;
        resolve();
      };
      timer = setTimeout(endPause, ms);
    });
  }

  async function cycle() {
    while (!stopped) {
      let delay = options.intervalMs;
      try {
        const result = await run(true);
        failures = 0;
        if (result !== null) {
          options.onPass?.(result);
          if (options.again?.(result)) continue;
        }
      } catch (err) {
        failures++;
        delay = backoffDelay(options.backoff ?? { minMs: delay, maxMs: delay }, failures);
        log?.warn({ err, worker: options.name, failures, retryInMs: delay }, 'worker pass failed; retrying');
      }
      if (stopped) break;
      await pause(delay);
    }
  }

  const running = loop ? cycle() : Promise.resolve();
  let stopping: Promise<void> | undefined;
  return {
    runOnce,
    wake() {
      if (endPause) endPause();
      else woken = true;
    },
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        stopSignal.abort();
        endPause?.();
        await running;
        await Promise.allSettled([...inFlight]);
        if (lease) await releaseLease(lease.db, lease.name, lease.holder).catch(() => {});
      })()),
  };
}
