/**
 * The dialect matrix. Every suite that touches the database runs twice: on a fresh SQLite temp file and on a
 * fresh Postgres database (`sigil_t_<random>` on the test server, dropped afterwards). See docs/data.md.
 *
 *   describeEachDialect('leases', (ctx) => {
 *     it('…', async () => { await acquireLease(ctx.db, …) });
 *   });
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { createDatabase, migrateToLatest, type DatabaseHandle, type Dialect } from '../../server/src/platform/db/index';
import { POSTGRES_ADMIN_URL, postgresRequired, probePostgres, requiredFailure, skipLine } from './postgres';

export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

export interface FreshDatabase extends DatabaseHandle {
  /** A DATABASE_URL that opens this same database (`sqlite:/tmp/…` or `postgres://…/sigil_t_…`): give it to a server or child process. */
  url: string;
  /** The SQLite file (sqlite only). */
  sqliteFile?: string;
  /** Closes the handle, then deletes the file / drops the database. Idempotent. */
  drop(): Promise<void>;
}

/** Whether this run has a Postgres to use: the global setup decided once; without it, probe here. */
async function decidePostgres(): Promise<boolean> {
  const provided = inject('postgresReachable');
  if (typeof provided === 'boolean') return provided;
  const reason = await probePostgres();
  if (reason === undefined) return true;
  if (postgresRequired()) throw new Error(requiredFailure(reason));
  console.log(skipLine(reason));
  return false;
}

export const postgresReachable: boolean = await decidePostgres();

/** Creates an empty database of that dialect, migrated to latest unless `migrate: false`. */
export async function freshDatabase(dialect: Dialect, options: { migrate?: boolean } = {}): Promise<FreshDatabase> {
  const fresh = dialect === 'postgres' ? await freshPostgres() : freshSqlite();
  if (options.migrate !== false) {
    try {
      await migrateToLatest(fresh.db);
    } catch (error) {
      await fresh.drop();
      throw error;
    }
  }
  return fresh;
}

function freshSqlite(): FreshDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'sigil-t-'));
  const sqliteFile = join(dir, 'sigil.sqlite');
  const handle = createDatabase({ sqliteFile });
  let dropping: Promise<void> | undefined;
  return {
    ...handle,
    url: `sqlite:${sqliteFile}`,
    sqliteFile,
    drop: () => (dropping ??= handle.close().then(() => rmSync(dir, { recursive: true, force: true }))),
  };
}

async function freshPostgres(): Promise<FreshDatabase> {
  if (!postgresReachable) throw new Error(skipLine('probe failed') + ': freshDatabase("postgres") cannot run');
  const name = `sigil_t_${randomBytes(6).toString('hex')}`; // [0-9a-f] only: safe to splice as an identifier
  await adminQuery(`create database ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const handle = createDatabase({ url: url.toString() });
  let dropping: Promise<void> | undefined;
  return {
    ...handle,
    url: url.toString(),
    // FORCE: a child process or a leaked pool may still be connected; the database must go anyway.
    drop: () => (dropping ??= handle.close().then(() => adminQuery(`drop database if exists ${name} with (force)`))),
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end().catch(() => {});
  }
}

/** What a matrix suite sees. `db` and friends exist from the suite's beforeAll on (use them inside tests/hooks). */
export interface DialectContext {
  readonly dialect: Dialect;
  readonly db: FreshDatabase['db'];
  readonly url: string;
  readonly database: FreshDatabase;
}

/**
 * Runs `body` as two suites, `<title> [sqlite]` and `<title> [postgres]`, each with its own fresh, migrated
 * database shared by the suite's tests (use distinct keys per test, or call freshDatabase() for isolation).
 * Postgres suites are skipped (visibly, with one line printed per run) when the server does not answer, and
 * the run fails instead when CI=true or SIGIL_REQUIRE_POSTGRES=1.
 */
export function describeEachDialect(
  title: string,
  body: (ctx: DialectContext) => void,
  options: { migrate?: boolean } = {},
): void {
  for (const dialect of DIALECTS) {
    const run = dialect === 'postgres' && !postgresReachable ? describe.skip : describe;
    run(`${title} [${dialect}]`, () => {
      let database: FreshDatabase | undefined;
      const ready = (): FreshDatabase => {
        if (!database) throw new Error('the matrix database exists only inside tests and hooks (after beforeAll)');
        return database;
      };
      beforeAll(async () => {
        database = await freshDatabase(dialect, options);
      });
      afterAll(async () => {
        await database?.drop();
      });
      body({
        dialect,
        get db() {
          return ready().db;
        },
        get url() {
          return ready().url;
        },
        get database() {
          return ready();
        },
      });
    });
  }
}
