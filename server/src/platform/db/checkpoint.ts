// WAL checkpoints off the event loop. SQLite checkpoints a WAL database by itself once the WAL holds 1,000 pages,
// inside whichever COMMIT crosses that mark, and a checkpoint fsyncs the WAL and then the database file: on this
// disk 1–35 ms during which better-sqlite3 blocks the process. Measured on the rate-limit upsert's group commit:
// p50 14.5 µs per commit, mean 45.7 µs, two thirds of all the time in the 1 % of commits that checkpointed. So the
// service's connection leaves checkpoints to one worker thread per process, which holds its own connection to each
// open database file and runs a PASSIVE checkpoint (never waits for a lock, never blocks a writer) every
// CHECKPOINT_INTERVAL_MS. Durability is unchanged: commits are durable in the WAL as before (docs/data.md), and a
// checkpoint syncs what it copies whichever connection runs it. The service's own automatic checkpoint stays as a
// safety net at a much larger WAL (SAFETY_NET_PAGES), should the worker fall behind.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints each open database. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** The service connection's own wal_autocheckpoint (pages; SQLite's default is 1,000). */
export const SAFETY_NET_PAGES = 20_000;

// The worker: a connection per database file (opened and closed on request), a PASSIVE checkpoint of each on a
// timer. Plain CommonJS, evaluated as is (no loader in a worker started from a string).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Driver = require(workerData.driver);
const open = new Map();
parentPort.on('message', ({ op, file, id }) => {
  try {
    if (op === 'open') {
      const entry = open.get(file);
      if (entry) entry.users += 1;
      else {
        const db = new Driver(file, { fileMustExist: true });
        db.pragma('busy_timeout = 0');
        open.set(file, { db, users: 1 });
      }
    } else {
      const entry = open.get(file);
      if (entry && --entry.users === 0) {
        open.delete(file);
        entry.db.close();
      }
    }
  } catch {
    // a file that cannot be opened here is simply not checkpointed by this worker (the safety net still is)
  }
  parentPort.postMessage(id);
});
setInterval(() => {
  for (const { db } of open.values()) {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy or gone: the next round tries again
    }
  }
}, workerData.intervalMs);
`;

let worker: Worker | undefined;
let users = 0;
let nextId = 0;
const pending = new Map<number, () => void>();

function send(op: 'open' | 'close', file: string): Promise<void> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker!.postMessage({ op, file, id });
  });
}

/**
 * Has the worker checkpoint `file` (started on the first file); the returned function stops that, resolving once the
 * worker's connection to it is closed (so the service's own connection closes last, and SQLite's last-close checkpoint
 * and WAL removal run there as before). `driver` is the module the service's connection was opened with.
 */
export function checkpointInBackground(file: string, driver: string): () => Promise<void> {
  if (!worker) {
    const resolved = createRequire(import.meta.url).resolve(driver);
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: resolved, intervalMs: CHECKPOINT_INTERVAL_MS },
    });
    worker.unref(); // never keeps the process alive
    worker.on('message', (id: number) => {
      pending.get(id)?.();
      pending.delete(id);
    });
    worker.on('error', () => {
      // The worker died: its databases fall back on the safety net; answer whoever waits.
      for (const resolve of pending.values()) resolve();
      pending.clear();
      worker = undefined;
    });
  }
  users += 1;
  const own = worker;
  const opened = send('open', file);
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= opened.then(async () => {
      if (worker !== own) return;
      await send('close', file);
      if (--users === 0 && worker === own) {
        worker = undefined;
        await own.terminate();
      }
    }));
}
