// Per-write durability on SQLite (docs/data.md "Durability"). The connection runs with synchronous=FULL: every
// commit waits for an fsync of the WAL (measured here: 2.5–10 ms under load, during which better-sqlite3 blocks
// the event loop). `withoutFsync` lets a write that may be LOST on a power cut commit with synchronous=NORMAL:
// still atomic and crash-safe (a killed process loses nothing; WAL + NORMAL never corrupts), only not yet on the
// platter. The next FULL commit (any ordinary write) syncs the WAL, and with it everything before it.
//
// Use it only for writes whose loss fails closed or is harmless: a rate-limit counter (a power cut forgets the
// last moment's counts), a new challenge row (lost: CHALLENGE_NOT_FOUND), a new session row (lost: the token is
// refused). Never for a write whose loss re-opens something: a consumed nonce, a revocation, a payment.
import { open } from 'node:fs/promises';
import { sql, type Kysely } from 'kysely';
import { dialectOf, synchronousSwitchesOf, sqliteFileOf } from './connect';

/**
 * Runs `work` on the single SQLite connection with synchronous=NORMAL, restoring FULL after. `work` MUST use the
 * `db` it is given (the outer handle would wait for the connection held here). Postgres: `work(db)` unchanged.
 * The switches are set on the native connection while Kysely's connection lock is held (two PRAGMA statements
 * through Kysely cost more than the write they wrap); a handle not made by createDatabase uses statements.
 */
export async function withoutFsync<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'sqlite') return work(db);
  const switches = synchronousSwitchesOf(db);
  const set = (mode: 'NORMAL' | 'FULL', conn: Kysely<DB>) =>
    switches ? switches[mode].run() : sql`PRAGMA synchronous = ${sql.raw(mode)}`.execute(conn);
  return db.connection().execute(async (conn) => {
    await set('NORMAL', conn);
    try {
      return await work(conn);
    } finally {
      await set('FULL', conn);
    }
  });
}

/** Flushes a file to stable storage (fsync on a fresh descriptor, in libuv's thread pool: off the event loop). */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Group commit for writes that MUST survive a power cut but are frequent (a consumed challenge): commit them in
 * `withoutFsync`, then `await barrier()` before acting on them. The barrier fsyncs the database's WAL file once
 * for every caller that arrived before that fsync started, and it does so OFF the event loop (a FULL commit would
 * block the whole process for the fsync: ~0.1–10 ms here, most of a sign-in's wall time under load).
 *
 * Why an fsync of the WAL file is enough: in WAL mode a commit is durable once its WAL frames are on disk, and a
 * commit made with synchronous=NORMAL has already written its frames (and the WAL header) to the file, only not
 * synced them. An fsync on any descriptor of that file flushes them. If a checkpoint ran in between, SQLite synced
 * the WAL before it and the database file after it (NORMAL does both), so the commit is durable there; a WAL
 * restart reuses the same file. At most one fsync runs at a time: callers arriving meanwhile share the next one.
 *
 * Postgres commits are durable already (synchronous_commit on), and an in-memory SQLite database has no disk to
 * reach: the barrier is a no-op for both. `sync` is injectable for tests.
 */
export function createDurabilityBarrier<DB>(db: Kysely<DB>, sync: (path: string) => Promise<void> = syncFile): () => Promise<void> {
  if (dialectOf(db) !== 'sqlite') return () => Promise.resolve();
  const file = sqliteFileOf(db);
  // Fail closed: a handle we cannot trace to its file (a transaction, a derived instance) must not skip the fsync.
  if (file === undefined) throw new Error('createDurabilityBarrier needs the SQLite handle createDatabase returned');
  if (file === ':memory:') return () => Promise.resolve();
  const wal = `${file}-wal`;
  /** The next fsync, not started yet: new callers join it. */
  let pending: Promise<void> | undefined;
  /** The latest fsync (running or pending): the next one starts after it. */
  let latest: Promise<void> = Promise.resolve();
  return () => {
    if (pending) return pending;
    const previous = latest;
    const barrier = (async () => {
      await new Promise<void>((resolve) => setImmediate(resolve)); // gather the callers of this event-loop turn
      await previous.catch(() => undefined);
      pending = undefined; // from here on, a new caller's commit may be later than this fsync's start
      await sync(wal);
    })();
    pending = latest = barrier;
    return barrier;
  };
}
