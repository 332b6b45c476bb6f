/// <reference path="./better-sqlite3-napi.d.ts" />
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import BetterSqlite3Napi from 'better-sqlite3-napi';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  sql,
  type LogEvent,
  type SqliteDatabase,
} from 'kysely';
import pg from 'pg';
import { checkpointInBackground, SAFETY_NET_PAGES } from './checkpoint';
import { serverPreparingPool } from './server-prepared';
import type { Database } from './schema';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Closes the pool / file. Idempotent. */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…` / `postgresql://…` → Postgres; `sqlite:<path>` → SQLite at that path. */
  url?: string;
  /** SQLite file used when `url` is absent (`:memory:` allowed). Default: `<repo>/data/sigil.sqlite`. */
  sqliteFile?: string;
  /** Postgres pool size (default 10). */
  poolSize?: number;
  /** Called after every statement (begin/commit included): benchmarks count statements per operation with it. */
  onQuery?: (event: LogEvent) => void;
}

/**
 * The SQLite driver this Node runs. better-sqlite3 12 wraps its objects in Node's own `ObjectWrap`, which from Node 24
 * registers an environment cleanup hook per object: a statement the garbage collector frees once the environment is
 * gone asserts in `RemoveEnvironmentCleanupHook` and aborts the process (SIGABRT, exit 134, on a plain SIGTERM).
 * better-sqlite3 13 is built on node-addon-api, without that hook, but needs Node 22 (its prebuilt addon crashes on
 * Node 20). Both are installed, 13 under the alias `better-sqlite3-napi`, and each loads its addon only when a
 * database is opened; same API, same SQLite file format.
 */
const NAPI_DRIVER = Number(process.versions.node.split('.')[0]) >= 22;
export const SqliteDriver: typeof BetterSqlite3 = NAPI_DRIVER ? BetterSqlite3Napi : BetterSqlite3;
/** The module SqliteDriver comes from (the checkpoint worker opens its connections with the same one). */
const SQLITE_DRIVER_MODULE = NAPI_DRIVER ? 'better-sqlite3-napi' : 'better-sqlite3';

/** Where the SQLite file lives when nothing is configured: `data/` at the repository root. */
export const DEFAULT_SQLITE_FILE = fileURLToPath(new URL('../../../../data/sigil.sqlite', import.meta.url));

/** How long a SQLite writer waits for another process's write lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

const PG_INT8_OID = 20;

/**
 * int8 (bigint, count(*)) comes back from pg as a string by default. Our bigints are epoch ms and counts,
 * which fit a JS number, so read them as numbers — the same type better-sqlite3 gives. A value beyond
 * 2^53 fails the query loudly instead of silently losing precision (amounts are decimal strings, never int8).
 */
export function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`int8 value ${text} does not fit a JS number; store it as a decimal string`);
  }
  return value;
}

// Per-pool parsers, so we never mutate pg's process-wide type registry.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8_OID && format !== 'binary') return parseInt8;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

export type DatabaseTarget = { dialect: 'postgres'; url: string } | { dialect: 'sqlite'; file: string };

/** Decides the dialect from the options. Exported so config validation can reuse the same rule. */
export function resolveDatabaseTarget(options: DatabaseOptions = {}): DatabaseTarget {
  const { url } = options;
  if (url !== undefined && url !== '') {
    if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgres', url };
    if (/^sqlite:/i.test(url)) {
      const file = url.replace(/^sqlite:(\/\/)?/i, '');
      if (file === '') throw new Error('DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:data/sigil.sqlite');
      return { dialect: 'sqlite', file: file === ':memory:' ? file : resolve(file) };
    }
    throw new Error('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
  }
  const file = options.sqliteFile ?? DEFAULT_SQLITE_FILE;
  return { dialect: 'sqlite', file: file === ':memory:' ? file : resolve(file) };
}

/**
 * Opens the database. Does not migrate: call `migrateToLatest(db)` after (main.ts does, at start).
 * One handle per process: on SQLite, Kysely serializes everything through one connection, which is what
 * makes in-process use safe (see docs/data.md on why a second in-process connection is a trap).
 */
export function createDatabase(options: DatabaseOptions = {}): DatabaseHandle {
  const target = resolveDatabaseTarget(options);
  let db: Kysely<Database>;
  let stopCheckpoints: (() => Promise<void>) | undefined;
  if (target.dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.url, max: options.poolSize ?? 10, types: pgTypes });
    // An idle client losing its server (restart, failover) emits 'error' on the pool; without a listener that
    // would crash the process. The next checkout gets a fresh connection.
    pool.on('error', () => {});
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: serverPreparingPool(pool) }),
      ...(options.onQuery ? { log: options.onQuery } : {}),
    });
    // The writes withoutFsync admits (rate-limit counters, new challenge and session rows) commit without waiting
    // for the WAL flush: a hot key's counter row stays locked for the statement only, not for a disk flush.
    const relaxedPool = new pg.Pool({
      connectionString: target.url,
      max: options.poolSize ?? 10,
      types: pgTypes,
      options: '-c synchronous_commit=off',
    });
    relaxedPool.on('error', () => {});
    const relaxed = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: serverPreparingPool(relaxedPool) }),
      ...(options.onQuery ? { log: options.onQuery } : {}),
    });
    relaxedHandles.set(db, relaxed);
  } else {
    if (target.file !== ':memory:') mkdirSync(dirname(target.file), { recursive: true });
    const sqlite = new SqliteDriver(target.file);
    const journal = sqlite.pragma('journal_mode = WAL', { simple: true }); // readers never block the writer, and vice versa
    // The durability barrier fsyncs the WAL file: a file database that is not in WAL mode must not start.
    if (target.file !== ':memory:' && journal !== 'wal') {
      sqlite.close();
      throw new Error(`SQLite could not switch ${target.file} to WAL mode (journal_mode is ${String(journal)})`);
    }
    sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`); // other processes' writes: wait, don't fail
    sqlite.pragma('synchronous = FULL'); // every commit fsynced; withoutFsync (durability.ts) relaxes chosen writes
    sqlite.pragma('foreign_keys = ON'); // off by default in SQLite; Postgres always enforces them
    if (target.file !== ':memory:') {
      // Checkpoints run in a worker thread (checkpoint.ts); this connection's own only past a far larger WAL.
      sqlite.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
      stopCheckpoints = checkpointInBackground(mainFileOf(sqlite), SQLITE_DRIVER_MODULE);
    }
    const statements = statementCache(sqlite);
    db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: { prepare: statements, close: () => void sqlite.close() } }),
      ...(options.onQuery ? { log: options.onQuery } : {}),
    });
    sqliteHandles.set(db, {
      file: target.file === ':memory:' ? target.file : mainFileOf(sqlite),
      control: controlFor(sqlite, statements, options.onQuery),
    });
  }
  let closing: Promise<void> | undefined;
  return {
    db,
    dialect: target.dialect,
    close: () =>
      (closing ??= (async () => {
        await stopCheckpoints?.();
        await Promise.all([db.destroy(), relaxedHandles.get(db)?.destroy()]);
      })()),
  };
}

/** Distinct SQL texts kept prepared (the service issues a few dozen; dynamic IN-lists may add more). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver calls `prepare(sql)` for every statement, and compiling a statement costs about as much
 * as running it: keep the prepared statements by SQL text. Safe because Kysely runs one statement at a time on
 * the single connection (a cached statement is never in use twice at once), and SQLite re-prepares a statement
 * by itself after a schema change. SqliteControl.query shares the cache, under the same connection lock.
 */
function statementCache(sqlite: BetterSqlite3.Database): (source: string) => ReturnType<SqliteDatabase['prepare']> {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return (source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = sqlite.prepare(parametersOutOfPlanning(source));
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, statement);
    }
    return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
  };
}

/** The closing character of each way SQLite quotes a literal or a name. */
const QUOTE_CLOSERS: Record<string, string> = { "'": "'", '"': '"', '`': '`', '[': ']' };

/**
 * The SQL text SQLite prepares for `source`: each `?` parameter written `+?`. From SQLite 3.54 (better-sqlite3 13,
 * the driver on Node 22 and later), the planner of a join reads the value bound to an equality's parameter and marks
 * the statement to be compiled again whenever that parameter's binding changes; better-sqlite3 clears the bindings
 * after every run, so such a statement was compiled again on every run: the OpenID Connect read-ahead (six tables)
 * took 32–63 µs instead of 4, and a two-table read 10–16 µs instead of 3. `+?` is the same value (unary plus is a no-op on
 * every type and, like a bare parameter, carries no affinity) in the same plan, but the planner does not read it,
 * so the statement is compiled once. Nothing in this schema has a plan a bound value could improve (no LIKE on an
 * indexed column, no partial index, no ANALYZE statistics). String literals, quoted names and comments are copied
 * unchanged. `connect.test.ts` pins the text, the answers and the compile-once behaviour.
 */
export function parametersOutOfPlanning(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const end = endOfQuotedOrComment(source, i);
    if (end > i) {
      out += source.slice(i, end);
      i = end;
    } else {
      out += source[i] === '?' ? '+?' : source[i];
      i++;
    }
  }
  return out;
}

/**
 * Where the quoted literal, quoted name or comment starting at `i` ends (just past its closing mark; the end of the
 * text when it is not closed), or `i` when none starts there. A doubled quote inside a literal (its escape) needs no
 * case of its own: the literal ends at the first quote, and the second starts the next one.
 */
function endOfQuotedOrComment(source: string, i: number): number {
  const past = (close: string, from: number) => {
    const at = source.indexOf(close, from);
    return at === -1 ? source.length : at + close.length;
  };
  const quote = Object.hasOwn(QUOTE_CLOSERS, source[i]!) ? QUOTE_CLOSERS[source[i]!] : undefined;
  if (quote !== undefined) return past(quote, i + 1);
  if (source.startsWith('--', i)) return past('\n', i + 2);
  if (source.startsWith('/*', i)) return past('*/', i + 2);
  return i;
}

/** Connection control on a SQLite handle's native connection (durability.ts: synchronous switches, group commit). */
export interface SqliteControl {
  /** `PRAGMA synchronous` through exec: a prepared PRAGMA would apply when prepared, not when run. */
  setSynchronous(mode: 'NORMAL' | 'FULL'): void;
  /** BEGIN IMMEDIATE: the write lock up front, so a batch that reads first cannot fail on a stale snapshot. */
  begin(): void;
  commit(): void;
  rollback(): void;
  savepoint(): void;
  release(): void;
  rollbackToSavepoint(): void;
  inTransaction(): boolean;
  /**
   * Runs one statement (SQLite text, `?` parameters) straight on the native connection and returns its rows, without
   * Kysely's per-statement work (building, compiling, a promise per step): for the few statements every keyed request
   * runs. Prepared once per text (the cache Kysely's statements use) and reported to `onQuery` like Kysely's own.
   */
  query<R>(source: string, parameters: readonly unknown[]): R[];
}

function controlFor(
  sqlite: BetterSqlite3.Database,
  prepare: (source: string) => ReturnType<SqliteDatabase['prepare']>,
  onQuery: DatabaseOptions['onQuery'],
): SqliteControl {
  const prepared = (source: string) => {
    const statement = sqlite.prepare(source);
    return () => void statement.run();
  };
  return {
    setSynchronous: (mode) => void sqlite.exec(`PRAGMA synchronous = ${mode}`),
    begin: prepared('BEGIN IMMEDIATE'),
    commit: prepared('COMMIT'),
    rollback: prepared('ROLLBACK'),
    savepoint: prepared('SAVEPOINT without_fsync_write'),
    release: prepared('RELEASE without_fsync_write'),
    rollbackToSavepoint: prepared('ROLLBACK TO without_fsync_write'),
    inTransaction: () => sqlite.inTransaction,
    query<R>(source: string, parameters: readonly unknown[]): R[] {
      const started = onQuery ? performance.now() : 0;
      const statement = prepare(source) as unknown as BetterSqlite3.Statement;
      const rows = statement.reader ? (statement.all(...parameters) as R[]) : (statement.run(...parameters), []);
      onQuery?.({
        level: 'query',
        query: CompiledQuery.raw(source, [...parameters]),
        queryDurationMillis: performance.now() - started,
      });
      return rows;
    },
  };
}

/** The main database file as SQLite opened it (symlinks resolved): its `-wal` file lives beside it. */
function mainFileOf(sqlite: BetterSqlite3.Database): string {
  const main = (sqlite.pragma('database_list') as { name: string; file: string }[]).find((d) => d.name === 'main');
  if (!main?.file) throw new Error('SQLite did not report the main database file');
  return main.file;
}

/** Per Postgres handle createDatabase opened: the same database on connections with synchronous_commit=off. */
const relaxedHandles = new WeakMap<Kysely<any>, Kysely<any>>();

/**
 * The Postgres handle whose commits do not wait for the WAL flush (durability.ts `withoutFsync`), for a handle made
 * by createDatabase; undefined otherwise.
 */
export function postgresRelaxedOf<DB>(db: Kysely<DB>): Kysely<DB> | undefined {
  return relaxedHandles.get(db) as Kysely<DB> | undefined;
}

/** The SQLite file and connection control behind each handle createDatabase opened (see durability.ts). */
const sqliteHandles = new WeakMap<Kysely<any>, { file: string; control: SqliteControl }>();

/** The file of a SQLite handle made by createDatabase, as SQLite resolved it (`:memory:` for an in-memory one). */
export function sqliteFileOf(db: Kysely<any>): string | undefined {
  return sqliteHandles.get(db)?.file;
}

/**
 * Connection control (synchronous switches, transaction and savepoint control) on the native connection of a
 * SQLite handle made by createDatabase; undefined otherwise. Run them only while holding
 * Kysely's connection (`db.connection()`), which serializes everything on that one connection.
 */
export function sqliteControlOf(db: Kysely<any>): SqliteControl | undefined {
  return sqliteHandles.get(db)?.control;
}

/** Which dialect a Kysely instance talks to (for the few statements that differ). */
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Resolves when the database answers one trivial statement (the readiness probe's database check). */
export async function pingDatabase(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}
