// The delivery worker: an in-process p-queue of attempts fed by lease claims (features/webhooks/delivery.ts).
// Several workers (processes or replicas) on one database never attempt the same delivery at once: a row is
// claimed in one statement and finished only by its holder. A crash leaves claimed rows behind; their lease
// expires and any worker claims them again (at least once).
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import PQueue from 'p-queue';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/index';
import type { Logger } from '../platform/log';
import { attemptDelivery, claimDueDeliveries, type AttemptOutcome, type DeliveryDeps } from '../features/webhooks/delivery';

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
  /** Wake the poller now (the indexer calls it after queueing deliveries). */
  kick(): void;
  stop(): Promise<void>;
  readonly holder: string;
}

export function startDeliveryWorker(options: DeliveryWorkerOptions, { loop = true } = {}): DeliveryWorker {
  const holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const deps: DeliveryDeps = { ...options, holder };
  const concurrency = options.concurrency ?? 16;
  const queue = new PQueue({ concurrency });
  const now = () => options.now?.() ?? Date.now();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  /** One claim round: claims what fits in the queue and enqueues it. Returns the attempts' promises. */
  async function claimRound(): Promise<Promise<AttemptOutcome>[]> {
    const room = concurrency * 2 - queue.size - queue.pending;
    if (room <= 0) return [];
    const claims = await claimDueDeliveries(options.db, holder, room, now(), options.leaseMs);
    return claims.map((claim) =>
      queue.add(async () => {
        try {
          return await attemptDelivery(options.db, deps, claim);
        } catch (err) {
          options.log?.error({ err, delivery: claim.id }, 'delivery attempt failed unexpectedly');
          return 'lost' as const; // the lease expires and the row is claimed again
        }
      }) as Promise<AttemptOutcome>,
    );
  }

  async function runOnce(): Promise<AttemptOutcome[]> {
    const attempts: Promise<AttemptOutcome>[] = [];
    for (;;) {
      const round = await claimRound();
      attempts.push(...round);
      if (round.length > 0) {
        // Keep the pipeline full: claim the next batch as soon as the waiting line is empty, not when the batch ends.
        await queue.onEmpty();
        continue;
      }
      if (queue.size + queue.pending === 0) break;
      await queue.onIdle();
    }
    return Promise.all(attempts);
  }

  async function cycle() {
    while (!stopped) {
      let busy = false;
      try {
        // A full round means more may be due: claim again once the waiting line empties instead of sleeping, so
        // one process sustains more than one batch per poll interval.
        busy = (await claimRound()).length > 0 || queue.size > 0;
      } catch (err) {
        options.log?.warn({ err }, 'delivery claim failed');
      }
      if (stopped) break;
      if (busy) {
        await queue.onEmpty();
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, options.intervalMs ?? 500);
      });
    }
  }
  const running = loop ? cycle() : Promise.resolve();

  return {
    holder,
    runOnce,
    kick: () => wake?.(),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await running;
      await queue.onIdle();
    },
  };
}
