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
import { dialectOf, postgresRelaxedOf, sqliteControlOf, sqliteFileOf, type SqliteControl } from './connect';

/**
 * Runs `work` with synchronous=NORMAL (SQLite) or synchronous_commit=off (Postgres). `work` MUST use the `db` it is
 * given (the outer handle would wait for the connection held here), must not open a transaction (it already runs
 * inside one), and should only touch the database (it holds the process's one connection while it runs).
 *
 * Group commit: the writes requested in the same event-loop turn run in ONE transaction, each inside its own
 * savepoint, so a write that throws is undone alone and rejects alone, and the others still commit. Every caller
 * is answered after that single COMMIT. Under load this replaces one commit per write (each re-writing the WAL
 * frames of the pages it touched: the rate-limit row, the table and index pages) by one per turn: the measured
 * main cost of a sign-in's writes. The control statements run on the native connection while Kysely's connection
 * lock is held.
 */
export function withoutFsync<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  // Postgres: the same write on a connection with synchronous_commit=off (crash-safe; a server crash may forget the
  // last fraction of a second of such commits). Each statement of `work` commits alone there: a write of several
  // statements that must commit together takes withoutFsyncTogether. A transaction or derived handle keeps its own
  // setting.
  if (dialectOf(db) !== 'sqlite') return work(postgresRelaxedOf(db) ?? db);
  return joinBatch(db, () => ({ work: work as PendingWrite['work'] }));
}

/**
 * `withoutFsync` for a write of several statements that commit together or not at all. SQLite already gives each
 * write of the group commit its own savepoint; on Postgres, where `withoutFsync` would commit each statement alone,
 * `work` runs in a transaction of its own on the relaxed connections (inside a caller's transaction: in that one).
 */
export function withoutFsyncTogether<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  if (dialectOf(db) === 'sqlite' || db.isTransaction) return withoutFsync(db, work);
  return (postgresRelaxedOf(db) ?? db).transaction().execute(work);
}

interface PendingWrite {
  work: (db: Kysely<any>) => Promise<unknown>;
  /** A write that must be on disk when its caller is answered: its whole batch then commits with synchronous=FULL. */
  durable?: boolean;
  /** A write made only of native statements (native.ts): it can run without Kysely's connection, synchronously. */
  native?: (query: SqliteControl['query']) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * `withoutFsync` for a write made only of native statements (native.ts's `withoutFsyncNative`): the same batch, the
 * same rules. A batch of such writes alone runs synchronously, without taking Kysely's connection (see commitBatch).
 */
export function withoutFsyncNativeWrite<T>(db: Kysely<any>, native: (query: SqliteControl['query']) => T): Promise<T> {
  return joinBatch(db, (control) => ({ work: async () => native(control.query), native }));
}

/**
 * A native write that must survive a power cut before its caller acts on it, decided at once (a consume whose
 * winner must continue before later readers see the row: see docs/data.md "Durability"). It joins the same group
 * commit, and a batch holding such a write commits with synchronous=FULL: the fsync stays on the event loop, as a
 * lone FULL commit's does, but one serves every write of the batch — under load several consumes per fsync.
 */
export function durableNativeWrite<T>(db: Kysely<any>, native: (query: SqliteControl['query']) => T): Promise<T> {
  return joinBatch(db, (control) => ({ work: async () => native(control.query), native, durable: true }));
}

/**
 * Adds a write (made by `write` from the handle's connection control) to the handle's next group commit, which is
 * scheduled for the next turn by the first write of it; settles with that write's outcome.
 */
function joinBatch<T>(
  db: Kysely<any>,
  write: (control: SqliteControl) => Pick<PendingWrite, 'work' | 'native'>,
): Promise<T> {
  const control = sqliteControlOf(db);
  // Like the barrier: a handle we cannot trace to createDatabase (a transaction, a derived instance) is refused.
  if (!control) return Promise.reject(new Error('withoutFsync needs the SQLite handle createDatabase returned'));
  return new Promise<T>((resolve, reject) => {
    let batch = pendingWrites.get(db);
    if (!batch) {
      batch = [];
      pendingWrites.set(db, batch);
      setImmediate(() => void commitBatch(db, control));
    }
    batch.push({ ...write(control), resolve: resolve as PendingWrite['resolve'], reject });
  });
}

/** Writes waiting for the next group commit, per handle. */
const pendingWrites = new WeakMap<Kysely<any>, PendingWrite[]>();

/** Handles whose connection was left inside a transaction that could not be ended: nothing more is written. */
const brokenHandles = new WeakMap<Kysely<any>, Error>();

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Opens the batch's transaction: synchronous=NORMAL unless a write of it is durable (FULL stays), then BEGIN. */
function openBatch(control: SqliteControl, durable: boolean): void {
  if (!durable) control.setSynchronous('NORMAL');
  control.begin();
}

/**
 * After one write of the batch ran inside its savepoint: keeps it or undoes it alone. Some errors end the whole
 * transaction (disk full, I/O error, a trigger's RAISE(ROLLBACK)): then nothing of this batch is stored, and every
 * write of it fails with that error (thrown here).
 */
function settleWrite(control: SqliteControl, outcome: Outcome): void {
  if (!control.inTransaction()) throw outcome.ok ? new Error('the transaction ended during a write') : outcome.error;
  if (!outcome.ok) control.rollbackToSavepoint();
  control.release();
}

/** After the batch's transaction failed: rolls it back if it can. */
function abandonBatch(control: SqliteControl): void {
  try {
    if (control.inTransaction()) control.rollback();
  } catch {
    // still inside the transaction: handled by closeBatch
  }
}

/** Whatever happened: back to synchronous=FULL, or, if the transaction could not be ended, the handle refused. */
function closeBatch(db: Kysely<any>, control: SqliteControl): void {
  if (control.inTransaction()) {
    // COMMIT and ROLLBACK both failed: every later statement would run inside this transaction and never
    // commit. Refuse all further group-committed writes instead of losing them silently.
    brokenHandles.set(
      db,
      new Error('SQLite connection left inside a transaction that could not be ended; restart the process'),
    );
  } else {
    control.setSynchronous('FULL');
  }
}

/**
 * The batch's transaction, the same whichever way its writes run: opens it, then for each write its savepoint, the
 * write itself (yielded: the caller runs it and sends back its outcome), and its settling; then one COMMIT. If the
 * transaction itself fails it is abandoned; in every case it is closed (closeBatch). A generator, so that one text
 * serves a caller that runs the writes synchronously (commitNativeBatch: no await from BEGIN to COMMIT) and one that
 * awaits each (commitKyselyBatch). The caller sends an outcome for every write it is given, never throws into the
 * generator, and runs it to its end (a `throw` out of `next` means the batch failed and is already closed).
 */
function* batchTransaction(
  db: Kysely<any>,
  control: SqliteControl,
  batch: PendingWrite[],
): Generator<PendingWrite, Outcome[], Outcome> {
  const outcomes: Outcome[] = [];
  try {
    openBatch(
      control,
      batch.some((write) => write.durable),
    );
    try {
      for (const write of batch) {
        control.savepoint();
        const outcome = yield write;
        settleWrite(control, outcome);
        outcomes.push(outcome);
      }
      control.commit();
    } catch (error) {
      abandonBatch(control);
      throw error;
    }
  } finally {
    closeBatch(db, control);
  }
  return outcomes;
}

/**
 * A batch of native writes only, while no transaction is open on the connection: run from BEGIN to COMMIT without
 * one await, so nothing else (no Kysely statement of another caller) can run in between, and Kysely's connection
 * need not be taken — which costs several promise hops per batch. A Kysely caller between two of its statements
 * holds no transaction (else `inTransaction` would be true and the batch would wait for the connection as usual).
 */
function commitNativeBatch(db: Kysely<any>, control: SqliteControl, batch: PendingWrite[]): Outcome[] {
  const transaction = batchTransaction(db, control, batch);
  for (let step = transaction.next(); ;) {
    if (step.done) return step.value;
    let outcome: Outcome;
    try {
      outcome = { ok: true, value: step.value.native!(control.query) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    step = transaction.next(outcome);
  }
}

/** Any batch, on Kysely's connection: each write's `work` runs on it, awaited, inside the batch's transaction. */
function commitKyselyBatch(db: Kysely<any>, control: SqliteControl, batch: PendingWrite[]): Promise<Outcome[]> {
  return db.connection().execute(async (conn) => {
    const transaction = batchTransaction(db, control, batch);
    for (let step = transaction.next(); ;) {
      if (step.done) return step.value;
      let outcome: Outcome;
      try {
        outcome = { ok: true, value: await step.value.work(conn) };
      } catch (error) {
        outcome = { ok: false, error };
      }
      step = transaction.next(outcome);
    }
  });
}

async function commitBatch(db: Kysely<any>, control: SqliteControl): Promise<void> {
  const batch = pendingWrites.get(db)!;
  pendingWrites.delete(db); // writes requested from now on form the next batch
  let outcomes: Outcome[];
  try {
    const broken = brokenHandles.get(db);
    if (broken) throw broken;
    outcomes =
      batch.every((write) => write.native) && !control.inTransaction()
        ? commitNativeBatch(db, control, batch)
        : await commitKyselyBatch(db, control, batch);
  } catch (error) {
    // The transaction itself failed (BEGIN/COMMIT, e.g. a full disk, or the connection is broken): nothing of this
    // batch is stored.
    for (const write of batch) write.reject(error);
    return;
  }
  batch.forEach((write, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) write.resolve(outcome.value);
    else write.reject(outcome.error);
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
 * Postgres: `withoutFsync` commits with synchronous_commit=off, so such a commit may not be flushed yet when the
 * caller acts on it. The barrier there runs one committing transaction on the main pool (synchronous_commit on):
 * `select txid_current()` takes a transaction id, so its commit writes a commit record and waits for the WAL to be
 * flushed up to it. The WAL is one sequence, so every commit made before that record, relaxed ones included, is
 * flushed with it. Callers share it as they share the SQLite fsync.
 *
 * An in-memory SQLite database has no disk to reach: the barrier is a no-op there. `sync` is injectable for tests.
 */
export function createDurabilityBarrier<DB>(
  db: Kysely<DB>,
  sync: (path: string) => Promise<void> = syncFile,
): () => Promise<void> {
  if (dialectOf(db) !== 'sqlite') return sharedFlush(() => flushPostgresWal(db));
  const file = sqliteFileOf(db);
  // Fail closed: a handle we cannot trace to its file (a transaction, a derived instance) must not skip the fsync.
  if (file === undefined) throw new Error('createDurabilityBarrier needs the SQLite handle createDatabase returned');
  if (file === ':memory:') return () => Promise.resolve();
  const wal = `${file}-wal`;
  return sharedFlush(() => sync(wal));
}

/** One committing transaction on a synchronous connection: its flush covers every commit before it. */
async function flushPostgresWal(db: Kysely<any>): Promise<void> {
  await sql`select txid_current()`.execute(db);
}

/**
 * `flush`, shared: a caller joins the flush that has not started yet, or starts the next one once the running one
 * is done (a flush that already started may have missed the caller's commit). At most one runs at a time.
 */
function sharedFlush(flush: () => Promise<void>): () => Promise<void> {
  /** The next flush, not started yet: new callers join it. */
  let pending: Promise<void> | undefined;
  /** The latest flush (running or pending): the next one starts after it. */
  let latest: Promise<void> = Promise.resolve();
  return () => {
    if (pending) return pending;
    const previous = latest;
    const barrier = (async () => {
      await new Promise<void>((resolve) => setImmediate(resolve)); // gather the callers of this event-loop turn
      await previous.catch(() => undefined);
      pending = undefined; // from here on, a new caller's commit may be later than this flush's start
      await flush();
    })();
    pending = latest = barrier;
    return barrier;
  };
}
