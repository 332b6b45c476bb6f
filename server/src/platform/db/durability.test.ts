import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { describeEachDialect, freshDatabase, type FreshDatabase } from '../../../../test/support/db';
import { createDurabilityBarrier, DURABILITY_BARRIER_KV_KEY, withoutFsync } from './durability';

const synchronous = async (db: FreshDatabase['db']) => (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db)).rows[0]!.synchronous;

let open: FreshDatabase | undefined;
afterEach(async () => {
  await open?.close();
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

it('SQLite: a barrier is ONE write shared by the callers of the same moment; a later caller gets a new one', async () => {
  open = await freshDatabase('sqlite');
  const { db } = open;
  const barrier = createDurabilityBarrier(db);
  const before = Date.now();
  const waiting = Array.from({ length: 5 }, () => barrier());
  expect(new Set(waiting).size).toBe(1); // five callers, one pending write
  await Promise.all(waiting);
  const first = await db.selectFrom('kv').selectAll().where('key', '=', DURABILITY_BARRIER_KV_KEY).executeTakeFirstOrThrow();
  expect(first.updated_at).toBeGreaterThanOrEqual(before);

  // A caller arriving after that write was queued is not covered by it: it gets a new barrier (a new write).
  await new Promise((r) => setTimeout(r, 5));
  const later = barrier();
  expect(waiting).not.toContain(later);
  await later;
  const second = await db.selectFrom('kv').selectAll().where('key', '=', DURABILITY_BARRIER_KV_KEY).executeTakeFirstOrThrow();
  expect(second.updated_at).toBeGreaterThan(first.updated_at);
});

describeEachDialect('durability helpers on every dialect', (ctx) => {
  it('withoutFsync commits the work (readable after), and the barrier resolves', async () => {
    await withoutFsync(ctx.db, (conn) => conn.insertInto('kv').values({ key: 'k', value: 'v', updated_at: 1 }).execute());
    await createDurabilityBarrier(ctx.db)();
    expect(await ctx.db.selectFrom('kv').select('value').where('key', '=', 'k').executeTakeFirst()).toEqual({ value: 'v' });
  });
});
