import { mkdtempSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { describeEachDialect, freshDatabase, postgresReachable, type FreshDatabase } from '@sigil/test/support/db';
import { createDatabase, sqliteControlOf, sqliteFileOf, type SqliteControl } from './connect';
import { createDurabilityBarrier, syncFile, withoutFsync } from './durability';
import { durableNative, withoutFsyncNative } from './native';

const synchronous = async (db: FreshDatabase['db']) =>
  (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db)).rows[0]!.synchronous;

let open: FreshDatabase | undefined;
afterEach(async () => {
  // drop, not close: the file's directory goes too (a test that closed the handle itself has it closed already).
  await open?.drop();
  open = undefined;
});

it('SQLite: the connection runs with synchronous=FULL (2); withoutFsync runs with NORMAL (1) and restores FULL, on error too', async () => {
  open = await freshDatabase('sqlite');
  const { db } = open;
  expect(await synchronous(db)).toBe(2);
  expect(await withoutFsync(db, (conn) => synchronous(conn))).toBe(1);
  expect(await synchronous(db)).toBe(2);
  await expect(withoutFsync(db, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(await synchronous(db)).toBe(2);
});

it('SQLite: the writes of one event-loop turn commit together (one WAL append), each in its own savepoint', async () => {
  open = await freshDatabase('sqlite');
  const { db } = open;
  const walBytes = () => statSync(`${sqliteFileOf(db)}-wal`).size;
  const put = (i: number) =>
    withoutFsync(db, (conn) =>
      sql`INSERT INTO kv (key, value, updated_at) VALUES ('group', ${String(i)}, ${i}) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`.execute(
        conn,
      ),
    );
  await put(0);
  const before = walBytes();
  await Promise.all(Array.from({ length: 8 }, (_, i) => put(i + 1))); // one turn: one commit
  const grouped = walBytes() - before;
  for (let i = 0; i < 8; i++) await put(100 + i); // eight turns: eight commits
  const separate = walBytes() - before - grouped;
  expect(grouped).toBeGreaterThan(0);
  expect(separate).toBeGreaterThanOrEqual(4 * grouped);
  expect(await db.selectFrom('kv').select('value').where('key', '=', 'group').executeTakeFirst()).toEqual({
    value: '107',
  });
});

it('SQLite: a write that throws in a group is undone and rejected alone; the others of its turn commit', async () => {
  open = await freshDatabase('sqlite');
  const { db } = open;
  const insert = (key: string) =>
    withoutFsync(db, (conn) => conn.insertInto('kv').values({ key, value: 'v', updated_at: 1 }).execute());
  const halfDone = withoutFsync(db, async (conn) => {
    await conn.insertInto('kv').values({ key: 'half', value: 'v', updated_at: 1 }).execute();
    throw new Error('fails after its first statement');
  });
  const results = await Promise.allSettled([insert('a'), insert('dup'), insert('dup'), halfDone, insert('b')]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
  const keys = (
    await db.selectFrom('kv').select('key').where('key', 'in', ['a', 'b', 'dup', 'half']).orderBy('key').execute()
  ).map((r) => r.key);
  expect(keys).toEqual(['a', 'b', 'dup']); // the failed savepoint's first statement ('half') is gone too
  expect(await synchronous(db)).toBe(2);
});

it('SQLite: native writes (withoutFsyncNative) keep the same rules: one batch, each in its own savepoint, NORMAL then FULL', async () => {
  open = await freshDatabase('sqlite');
  const { db } = open;
  const insertKv = 'INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?)';
  const insert = (key: string) =>
    withoutFsyncNative(
      db,
      (query) => query(insertKv, [key, 'v', 1]),
      () => Promise.reject(new Error('SQLite only')),
    );
  const halfDone = withoutFsyncNative(
    db,
    (query) => {
      query(insertKv, ['half', 'v', 1]);
      throw new Error('fails after its first statement');
    },
    () => Promise.reject(new Error('SQLite only')),
  );
  const mode = withoutFsyncNative(
    db,
    (query) => query<{ synchronous: number }>('PRAGMA synchronous', [])[0]!.synchronous,
    () => Promise.reject(new Error('SQLite only')),
  );
  const results = await Promise.allSettled([insert('na'), insert('ndup'), insert('ndup'), halfDone, mode]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
  expect((results[4] as PromiseFulfilledResult<number>).value).toBe(1);
  const keys = (
    await db.selectFrom('kv').select('key').where('key', 'in', ['na', 'ndup', 'half']).orderBy('key').execute()
  ).map((r) => r.key);
  expect(keys).toEqual(['na', 'ndup']);
  expect(await synchronous(db)).toBe(2);
});

it('SQLite: a native write never lands inside a Kysely transaction that is open across an await', async () => {
  open = await freshDatabase('sqlite');
  const { db } = open;
  let native: Promise<unknown> | undefined;
  await expect(
    db.transaction().execute(async (trx) => {
      await trx.insertInto('kv').values({ key: 'in-trx', value: 'v', updated_at: 1 }).execute();
      native = withoutFsyncNative(
        db,
        (query) => query('INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?)', ['native', 'v', 1]),
        () => Promise.reject(new Error('SQLite only')),
      );
      await new Promise((r) => setTimeout(r, 30)); // the native write's turn comes while this transaction is open
      throw new Error('roll the transaction back');
    }),
  ).rejects.toThrow('roll the transaction back');
  await native;
  const keys = (await db.selectFrom('kv').select('key').where('key', 'in', ['in-trx', 'native']).execute()).map(
    (r) => r.key,
  );
  expect(keys).toEqual(['native']); // committed on its own, after the rolled-back transaction
});

it('SQLite: on a reopened, already-migrated file the FIRST group commit runs with NORMAL and restores FULL', async () => {
  // A prepared `PRAGMA synchronous` would apply when prepared, not when run: this pins that the switches act on
  // every call, including the first after a restart (no migration in between).
  open = await freshDatabase('sqlite');
  const file = open.sqliteFile!;
  await open.close();
  const reopened = createDatabase({ sqliteFile: file });
  try {
    expect(await synchronous(reopened.db)).toBe(2);
    expect(await withoutFsync(reopened.db, (conn) => synchronous(conn))).toBe(1);
    expect(await synchronous(reopened.db)).toBe(2);
    expect(await withoutFsync(reopened.db, (conn) => synchronous(conn))).toBe(1);
  } finally {
    await reopened.close();
  }
});

it('SQLite: a write that ends the whole transaction fails its whole batch with its own error; nothing is stored', async () => {
  open = await freshDatabase('sqlite');
  const { db } = open;
  await sql`CREATE TABLE doomed (id INTEGER)`.execute(db);
  await sql`CREATE TRIGGER doomed_abort BEFORE INSERT ON doomed BEGIN SELECT RAISE(ROLLBACK, 'whole transaction rolled back'); END`.execute(
    db,
  );
  const insert = (key: string) =>
    withoutFsync(db, (conn) => conn.insertInto('kv').values({ key, value: 'v', updated_at: 1 }).execute());
  const results = await Promise.allSettled([
    insert('before'),
    withoutFsync(db, (conn) => sql`INSERT INTO doomed (id) VALUES (1)`.execute(conn)),
    insert('after'),
  ]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/whole transaction rolled back/);
  expect(await db.selectFrom('kv').select('key').where('key', 'in', ['before', 'after']).execute()).toEqual([]);
  // The connection is usable afterwards, back on FULL.
  await insert('next');
  expect(await synchronous(db)).toBe(2);
});

/**
 * A SQLite handle that records, in the order they run, the group commit's control statements (from its connection
 * control) and every other statement (from onQuery: Kysely's, failed ones marked, and native queries that ran).
 */
async function recordingSqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'sigil-t-'));
  const log: string[] = [];
  const handle = createDatabase({
    sqliteFile: join(dir, 'order.sqlite'),
    onQuery: (e) => void log.push(`${e.level === 'error' ? 'failed: ' : ''}${e.query.sql}`),
  });
  const control = sqliteControlOf(handle.db)!;
  const texts = {
    begin: 'BEGIN IMMEDIATE',
    commit: 'COMMIT',
    rollback: 'ROLLBACK',
    savepoint: 'SAVEPOINT',
    release: 'RELEASE',
    rollbackToSavepoint: 'ROLLBACK TO',
  } as const satisfies Partial<Record<keyof SqliteControl, string>>;
  for (const [name, text] of Object.entries(texts) as [keyof typeof texts, string][]) {
    const run = control[name];
    control[name] = () => {
      run();
      log.push(text);
    };
  }
  const setSynchronous = control.setSynchronous;
  control.setSynchronous = (mode) => {
    setSynchronous(mode);
    log.push(`PRAGMA synchronous = ${mode}`);
  };
  await sql`CREATE TABLE t (k TEXT PRIMARY KEY)`.execute(handle.db);
  await sql`CREATE TABLE doomed (id INTEGER)`.execute(handle.db);
  await sql`CREATE TRIGGER doomed_abort BEFORE INSERT ON doomed BEGIN SELECT RAISE(ROLLBACK, 'whole transaction rolled back'); END`.execute(
    handle.db,
  );
  type Write = 'native' | 'kysely' | 'durable';
  const insert = (how: Write, table: 't' | 'doomed', value: string) => {
    const text = table === 't' ? 'INSERT INTO t (k) VALUES (?)' : 'INSERT INTO doomed (id) VALUES (?)';
    if (how === 'durable') {
      return durableNative(
        handle.db,
        (query) => query(text, [value]),
        () => Promise.reject(new Error('SQLite only')),
      );
    }
    return how === 'native'
      ? withoutFsyncNative(
          handle.db,
          (query) => query(text, [value]),
          () => Promise.reject(new Error('SQLite only')),
        )
      : withoutFsync(handle.db, (conn) =>
          table === 't'
            ? sql`INSERT INTO t (k) VALUES (${value})`.execute(conn)
            : sql`INSERT INTO doomed (id) VALUES (${value})`.execute(conn),
        );
  };
  /** Runs the writes as one batch (one event-loop turn): their settled statuses and the statements of the batch. */
  const batch = async (writes: [Write, 't' | 'doomed', string][]) => {
    log.length = 0;
    const results = await Promise.allSettled(writes.map(([how, table, value]) => insert(how, table, value)));
    return { statuses: results.map((r) => r.status), statements: [...log] };
  };
  return {
    batch,
    close: async () => {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const ROW = 'INSERT INTO t (k) VALUES (?)';
/** Both batches below: the batch opens, its first write succeeds in its savepoint, the second write's savepoint. */
const UP_TO_SECOND_WRITE = ['PRAGMA synchronous = NORMAL', 'BEGIN IMMEDIATE', 'SAVEPOINT', ROW, 'RELEASE', 'SAVEPOINT'];

describe('SQLite: the statements of a group commit, in order', () => {
  let recording: Awaited<ReturnType<typeof recordingSqlite>> | undefined;
  afterEach(async () => {
    await recording?.close();
    recording = undefined;
  });

  for (const writes of ['native', 'kysely', 'mixed'] as const) {
    const how = (i: number) => (writes === 'mixed' ? (i % 2 ? 'kysely' : 'native') : writes);
    it(`${writes} writes, one failing among successful ones: it alone rolls back to its savepoint, then one COMMIT`, async () => {
      recording = await recordingSqlite();
      const { statuses, statements } = await recording.batch([
        [how(0), 't', 'a'],
        [how(1), 't', 'a'], // the primary key is taken: this write fails
        [how(2), 't', 'b'],
      ]);
      expect(statuses).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      // A native statement that throws never reaches onQuery; a Kysely one is reported as failed.
      const failing = how(1) === 'native' ? [] : [`failed: ${ROW}`];
      expect(statements).toEqual([
        ...UP_TO_SECOND_WRITE,
        ...failing,
        'ROLLBACK TO',
        'RELEASE',
        'SAVEPOINT',
        ROW,
        'RELEASE',
        'COMMIT',
        'PRAGMA synchronous = FULL',
      ]);
    });

    it(`${writes} writes, one ending the whole transaction: no RELEASE, COMMIT or ROLLBACK after it, back to FULL`, async () => {
      recording = await recordingSqlite();
      const { statuses, statements } = await recording.batch([
        [how(0), 't', 'c'],
        [how(1), 'doomed', '1'],
        [how(2), 't', 'd'],
      ]);
      expect(statuses).toEqual(['rejected', 'rejected', 'rejected']);
      const failing = how(1) === 'native' ? [] : ['failed: INSERT INTO doomed (id) VALUES (?)'];
      expect(statements).toEqual([...UP_TO_SECOND_WRITE, ...failing, 'PRAGMA synchronous = FULL']);
    });
  }
});

describe('SQLite: a durable write in a group commit', () => {
  let recording: Awaited<ReturnType<typeof recordingSqlite>> | undefined;
  afterEach(async () => {
    await recording?.close();
    recording = undefined;
  });

  it('makes its whole batch commit with synchronous=FULL (no NORMAL before BEGIN), one COMMIT for every write', async () => {
    recording = await recordingSqlite();
    const { statuses, statements } = await recording.batch([
      ['native', 't', 'e'],
      ['durable', 't', 'f'],
      ['kysely', 't', 'g'],
    ]);
    expect(statuses).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const write = ['SAVEPOINT', ROW, 'RELEASE'];
    expect(statements).toEqual([
      'BEGIN IMMEDIATE',
      ...write,
      ...write,
      ...write,
      'COMMIT',
      'PRAGMA synchronous = FULL',
    ]);
  });

  it('fails alone like any write of the batch; the next batch without one is relaxed again', async () => {
    recording = await recordingSqlite();
    const first = await recording.batch([
      ['durable', 't', 'h'],
      ['durable', 't', 'h'], // the primary key is taken: this write fails
    ]);
    expect(first.statuses).toEqual(['fulfilled', 'rejected']);
    expect(first.statements[0]).toBe('BEGIN IMMEDIATE');
    expect(first.statements.at(-2)).toBe('COMMIT');
    const next = await recording.batch([['native', 't', 'i']]);
    expect(next.statements.slice(0, 2)).toEqual(['PRAGMA synchronous = NORMAL', 'BEGIN IMMEDIATE']);
  });
});

it('SQLite: a database opened through a symlink fsyncs the WAL where SQLite put it (beside the real file)', async () => {
  open = await freshDatabase('sqlite');
  const real = open.sqliteFile!;
  await open.close();
  const linkDir = mkdtempSync(join(tmpdir(), 'sigil-link-'));
  const link = join(linkDir, 'linked.sqlite');
  symlinkSync(real, link);
  const linked = createDatabase({ sqliteFile: link });
  try {
    expect(sqliteFileOf(linked.db)).toBe(realpathSync(real));
    await withoutFsync(linked.db, (conn) =>
      conn.insertInto('kv').values({ key: 'k', value: 'v', updated_at: 1 }).execute(),
    );
    await expect(createDurabilityBarrier(linked.db)()).resolves.toBeUndefined(); // the real fsync, no ENOENT
  } finally {
    await linked.close();
    rmSync(linkDir, { recursive: true, force: true });
  }
});

it('SQLite: a barrier is ONE fsync of the WAL file shared by the callers of the same moment; a later caller gets a new one', async () => {
  open = await freshDatabase('sqlite');
  const { db } = open;
  const synced: string[] = [];
  const barrier = createDurabilityBarrier(db, async (path) => {
    synced.push(path);
    await syncFile(path); // the real fsync, so a missing WAL file would fail the test
  });
  await withoutFsync(db, (conn) => conn.insertInto('kv').values({ key: 'k', value: 'v', updated_at: 1 }).execute());
  const waiting = Array.from({ length: 5 }, () => barrier());
  expect(new Set(waiting).size).toBe(1); // five callers, one pending fsync
  await Promise.all(waiting);
  expect(synced).toEqual([`${sqliteFileOf(db)}-wal`]);

  // A caller arriving after that fsync started is not covered by it: it gets a new one.
  const later = barrier();
  expect(waiting).not.toContain(later);
  await later;
  expect(synced).toHaveLength(2);
});

it('SQLite: at most one fsync at a time; callers arriving during it share the next one, which starts after it', async () => {
  open = await freshDatabase('sqlite');
  const events: string[] = [];
  let release!: () => void;
  let calls = 0;
  const barrier = createDurabilityBarrier(open.db, async () => {
    const n = ++calls;
    events.push(`start ${n}`);
    if (n === 1) await new Promise<void>((resolve) => (release = resolve));
    events.push(`end ${n}`);
  });
  const first = barrier();
  await new Promise((r) => setTimeout(r, 5)); // the first fsync is running (held open)
  const during = [barrier(), barrier(), barrier()];
  expect(new Set(during).size).toBe(1);
  expect(during[0]).not.toBe(first);
  await new Promise((r) => setTimeout(r, 5));
  expect(events).toEqual(['start 1']); // the second has not started while the first runs
  release();
  await Promise.all([first, ...during]);
  expect(events).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
});

it('SQLite: a failing fsync fails its callers (nothing is acted on), and the next barrier tries again', async () => {
  open = await freshDatabase('sqlite');
  let fail = true;
  const barrier = createDurabilityBarrier(open.db, async () => {
    if (fail) throw new Error('EIO');
  });
  await expect(barrier()).rejects.toThrow('EIO');
  fail = false;
  await expect(barrier()).resolves.toBeUndefined();
});

it('SQLite: a handle that cannot be traced to createDatabase is refused (barrier and withoutFsync) rather than left without fsync', async () => {
  open = await freshDatabase('sqlite');
  await open.db.transaction().execute(async (trx) => {
    expect(() => createDurabilityBarrier(trx as unknown as NonNullable<typeof open>['db'])).toThrow(/createDatabase/);
    await expect(withoutFsync(trx as unknown as NonNullable<typeof open>['db'], async () => 1)).rejects.toThrow(
      /createDatabase/,
    );
  });
});

describeEachDialect('durability helpers on every dialect', (ctx) => {
  it('withoutFsync commits the work (readable after), and the barrier resolves', async () => {
    await withoutFsync(ctx.db, (conn) =>
      conn.insertInto('kv').values({ key: 'k', value: 'v', updated_at: 1 }).execute(),
    );
    await createDurabilityBarrier(ctx.db)();
    expect(await ctx.db.selectFrom('kv').select('value').where('key', '=', 'k').executeTakeFirst()).toEqual({
      value: 'v',
    });
  });
});

describe.skipIf(!postgresReachable)('Postgres: the barrier flushes what withoutFsync committed without waiting', () => {
  it('one committing statement on the synchronous pool, shared by the callers of a moment', async () => {
    const fresh = await freshDatabase('postgres');
    const statements: string[] = [];
    const counted = createDatabase({ url: fresh.url, onQuery: (e) => void statements.push(e.query.sql) });
    try {
      // The relaxed writes really skip the flush, and the barrier's own connection really waits for it.
      const relaxed = await withoutFsync(counted.db, (conn) =>
        sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(conn),
      );
      expect(relaxed.rows[0]!.synchronous_commit).toBe('off');
      const main = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(counted.db);
      expect(main.rows[0]!.synchronous_commit).toBe('on');
      await withoutFsync(counted.db, (conn) =>
        conn.insertInto('kv').values({ key: 'flushed', value: 'v', updated_at: 1 }).execute(),
      );
      const barrier = createDurabilityBarrier(counted.db);
      statements.length = 0;
      await Promise.all(Array.from({ length: 5 }, () => barrier()));
      // txid_current() takes a transaction id: the commit writes a record and, synchronous_commit on, waits for the
      // WAL flush up to it, which covers every earlier commit.
      expect(statements).toStrictEqual(['select txid_current()']);
    } finally {
      await counted.close();
      await fresh.drop();
    }
  });
});
