// Per-write durability on SQLite (docs/data.md "Durability"). The connection runs with synchronous=FULL: every
// commit waits for an fsync of the WAL (measured here: 2.5–10 ms under load, during which better-sqlite3 blocks
// the event loop). `withoutFsync` lets a write that may be LOST on a power cut commit with synchronous=NORMAL:
// still atomic and crash-safe (a killed process loses nothing; WAL + NORMAL never corrupts), only not yet on the
// platter. The next FULL commit (any ordinary write) syncs the WAL, and with it everything before it.
//
// Use it only for writes whose loss fails closed or is harmless: a rate-limit counter (a power cut forgets the
// last moment's counts), a new challenge row (lost: CHALLENGE_NOT_FOUND), a new session row (lost: the token is
// refused). Never for a write whose loss re-opens something: a consumed nonce, a revocation, a payment.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from './connect';

/**
 * Runs `work` on the single SQLite connection with synchronous=NORMAL, restoring FULL after. `work` MUST use the
 * `db` it is given (the outer handle would wait for the connection held here). Postgres: `work(db)` unchanged.
 */
export async function withoutFsync<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'sqlite') return work(db);
  return db.connection().execute(async (conn) => {
    await sql`PRAGMA synchronous = NORMAL`.execute(conn);
    try {
      return await work(conn);
    } finally {
      await sql`PRAGMA synchronous = FULL`.execute(conn);
    }
  });
}

/** The kv row a durability barrier rewrites (its value is meaningless; the write is what syncs the WAL). */
export const DURABILITY_BARRIER_KV_KEY = 'db.durability_barrier';

/**
 * Group commit for writes that MUST survive a power cut but are frequent (a consumed challenge): commit them in
 * `withoutFsync`, then `await barrier()` before acting on them. The barrier is ONE write with synchronous=FULL
 * whose fsync covers every commit before it, shared by every caller that arrived while it was waiting its turn
 * (the callers of one event-loop turn, or of one fsync's duration under load). Postgres commits are durable
 * already (synchronous_commit on): the barrier is a no-op there.
 */
export function createDurabilityBarrier<DB>(db: Kysely<DB>): () => Promise<void> {
  if (dialectOf(db) !== 'sqlite') return () => Promise.resolve();
  let next: Promise<void> | undefined;
  return () => {
    next ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      // From here on, a new caller (whose commit may come after this write is queued) waits for the next barrier.
      next = undefined;
      return sql`INSERT INTO kv (key, value, updated_at) VALUES (${DURABILITY_BARRIER_KV_KEY}, '', ${Date.now()})
        ON CONFLICT (key) DO UPDATE SET updated_at = excluded.updated_at`
        .execute(db)
        .then(() => undefined);
    });
    return next;
  };
}
