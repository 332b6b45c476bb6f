// The delivery worker: an in-process p-queue of attempts fed by lease claims (attempts.ts), run by the one worker
// loop (platform/worker-loop.ts). Several workers (processes or replicas) on one database never attempt the same
// delivery at once: a row is claimed in one statement and finished only by its holder. A crash leaves claimed rows
// behind; their lease expires and any worker claims them again (at least once). No db lease: every replica sends.
import PQueue from 'p-queue';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/index';
import type { Logger } from '../../platform/log';
import { newHolderId, startWorkerLoop } from '../../platform/worker-loop';
import {
  claimReadyAttempts,
  createDeliveredFinisher,
  finishAttempt,
  postAttempt,
  type AttemptOutcome,
  type DeliveryDeps,
  type ReadyAttempt,
} from './attempts';

export interface DeliveryWorkerOptions extends Omit<DeliveryDeps, 'holder'> {
  db: Kysely<Database>;
  holder?: string;
  log?: Logger;
  /** Attempts in flight at once. Default 16. */
  concurrency?: number;
  /** Poll interval when idle. Default 500 ms. */
  intervalMs?: number;
}

export interface DeliveryWorker {
  /** Claims and attempts everything due now, until nothing is due; resolves with the outcomes (tests, bench). */
  runOnce(): Promise<AttemptOutcome[]>;
  /** Wake the poller now (a stream calls it after queueing deliveries). */
  kick(): void;
  stop(): Promise<void>;
  readonly holder: string;
}

export function startDeliveryWorker(options: DeliveryWorkerOptions, { loop = true } = {}): DeliveryWorker {
  const holder = options.holder ?? newHolderId();
  const deps: DeliveryDeps = { ...options, holder };
  const concurrency = options.concurrency ?? 16;
  const queue = new PQueue({ concurrency });

  /** Delivered attempts whose outcome is being written now: their slots are free once it is. */
  let recording = 0;
  const finishDelivered = createDeliveredFinisher(options.db, holder, (change) => {
    recording += change;
    if (change > 0) wake();
  });
  // A slot counts as free from the moment its delivered outcome starts being written: the claim for it is requested
  // in the same turn, so on SQLite both join one group commit (durability.ts) — one BEGIN/COMMIT per batch instead of
  // two — and on Postgres the claim's round trip overlaps the recording's. The claimed rows are queued when the
  // claim commits (on SQLite with the recording; on Postgres possibly before it); p-queue starts each once a slot is
  // really free, so no more than `concurrency` attempts run at once. A row being recorded is still leased to us: no
  // claim takes it.
  const free = () => concurrency - queue.size - queue.pending + recording;
  // Claim when half the slots are free: one claim (and, with the batched finishing, one commit or round trip) per
  // several attempts, while the other half keeps the pipeline busy.
  const claimAt = Math.max(1, Math.floor(concurrency / 2));

  /** Resolves when a slot is freed (an attempt ends, or a recording starts); one promise however many wait. */
  let freed: { promise: Promise<void>; resolve: () => void } | undefined;
  const wake = () => {
    const waiting = freed;
    freed = undefined;
    waiting?.resolve();
  };
  queue.on('next', wake);
  const slotFreed = () => {
    if (!freed) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      freed = { promise, resolve };
    }
    return freed.promise;
  };

  /** One attempt in a slot: its POST, then its outcome recorded under the lease. */
  async function attempt(ready: ReadyAttempt): Promise<AttemptOutcome> {
    try {
      return await queue.add(async () =>
        finishAttempt(options.db, deps, ready, await postAttempt(deps, ready), finishDelivered),
      );
    } catch (err) {
      options.log?.error({ err, delivery: ready.claim.id }, 'delivery attempt failed unexpectedly');
      return 'lost'; // the lease expires and the row is claimed again
    }
  }

  /**
   * Claims until a claim finds nothing more due (or `signal` aborts: the worker is stopping), whenever `claimAt`
   * slots are free, as many rows as there are free slots: every claimed attempt starts at once (no waiting line: the
   * secret read with the claim is the secret at attempt time). Resolves once nothing more is due; the attempts may
   * still be running.
   */
  async function fill(signal?: AbortSignal): Promise<Promise<AttemptOutcome>[]> {
    const outcomes: Promise<AttemptOutcome>[] = [];
    while (!signal?.aborted) {
      const room = free();
      if (room < claimAt) {
        await slotFreed(); // an attempt always ends: its deadline bounds it
        continue;
      }
      const { ready, settled, claimed } = await claimReadyAttempts(options.db, deps, room);
      outcomes.push(...settled.map((outcome) => Promise.resolve(outcome)), ...ready.map(attempt));
      if (claimed < room) break; // fewer rows than asked for: nothing more is due now
    }
    return outcomes;
  }

  async function runOnce(): Promise<AttemptOutcome[]> {
    const attempts: Promise<AttemptOutcome>[] = [];
    for (;;) {
      const round = await fill();
      attempts.push(...round);
      if (round.length === 0 && queue.size + queue.pending === 0) break;
      await queue.onIdle();
    }
    return Promise.all(attempts);
  }

  // A pass that claimed anything means more may be due: the next pass starts at once instead of after the interval,
  // so one process sustains more than one batch per poll interval.
  const worker = startWorkerLoop(
    {
      name: 'delivery',
      pass: async ({ signal }) => (await fill(signal)).length > 0,
      again: (busy) => busy,
      intervalMs: options.intervalMs ?? 500,
      log: options.log,
    },
    { loop },
  );

  return {
    holder,
    runOnce,
    kick: () => worker.wake(),
    async stop() {
      await worker.stop();
      await queue.onIdle();
    },
  };
}
