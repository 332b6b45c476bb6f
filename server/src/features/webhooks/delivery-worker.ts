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
  sendAttempt,
  type AttemptOutcome,
  type DeliveryDeps,
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

  const finishDelivered = createDeliveredFinisher(options.db, holder);
  const free = () => concurrency - queue.size - queue.pending;
  // Claim when a quarter of the slots are free: one claim per several attempts, and the pipeline never runs dry.
  const claimAt = Math.max(1, Math.floor(concurrency / 4));

  /**
   * One claim round: claims only as many rows as there are free slots, so every claimed attempt starts at once
   * (no waiting line: the secret read with the claim is the secret at attempt time). Returns the outcomes.
   */
  async function claimRound(): Promise<Promise<AttemptOutcome>[]> {
    const room = free();
    if (room <= 0) return [];
    const { ready, settled } = await claimReadyAttempts(options.db, deps, room);
    return [
      ...settled.map((outcome) => Promise.resolve(outcome)),
      ...ready.map(
        (attempt) =>
          queue.add(async () => {
            try {
              return await sendAttempt(options.db, deps, attempt, finishDelivered);
            } catch (err) {
              options.log?.error({ err, delivery: attempt.claim.id }, 'delivery attempt failed unexpectedly');
              return 'lost' as const; // the lease expires and the row is claimed again
            }
          }) as Promise<AttemptOutcome>,
      ),
    ];
  }

  /** Resolves once `claimAt` slots are free (or everything finished). */
  function room(): Promise<void> {
    if (free() >= claimAt || queue.pending === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (free() >= claimAt || queue.pending === 0) {
          queue.off('next', check);
          resolve();
        }
      };
      queue.on('next', check);
    });
  }

  async function runOnce(): Promise<AttemptOutcome[]> {
    const attempts: Promise<AttemptOutcome>[] = [];
    for (;;) {
      const round = await claimRound();
      attempts.push(...round);
      if (round.length > 0) {
        // Keep the pipeline full: claim again as soon as there is room, not when the batch ends.
        await room();
        continue;
      }
      if (queue.size + queue.pending === 0) break;
      await queue.onIdle();
    }
    return Promise.all(attempts);
  }

  // A full round means more may be due: claim again once there is room instead of sleeping, so one process
  // sustains more than one batch per poll interval.
  const worker = startWorkerLoop(
    {
      name: 'delivery',
      pass: async () => {
        const busy = (await claimRound()).length > 0;
        if (busy) await room();
        return busy;
      },
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
