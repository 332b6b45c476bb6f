import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { withoutFsync } from './durability';
import { withoutFsyncNative } from './native';
import { prepared, type Slots } from './prepared';
import type { Database } from './schema';

// A prepared statement is compiled once and filled with each call's values: a slot used twice gets its value
// twice, constants stay, and a derived handle (a group commit's connection) runs it too.
const upsert = prepared((db: Kysely<Database>, v: Slots<{ key: string; value: string; at: number }>) =>
  db
    .insertInto('kv')
    .values({ key: v.key, value: v.value, updated_at: v.at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: v.value, updated_at: v.at })),
);
const find = prepared((db: Kysely<Database>, v: Slots<{ key: string }>) =>
  db.selectFrom('kv').select(['value', 'updated_at']).where('key', '=', v.key).where('value', '<>', 'hidden'),
);

describeEachDialect('prepared statements', (ctx) => {
  it('runs with each call’s values, the same slot filled everywhere it is used', async () => {
    await upsert(ctx.db, { key: 'p1', value: 'one', at: 1 });
    await upsert(ctx.db, { key: 'p2', value: 'two', at: 2 });
    await upsert(ctx.db, { key: 'p1', value: 'uno', at: 3 });
    expect((await find(ctx.db, { key: 'p1' })).rows).toEqual([{ value: 'uno', updated_at: 3 }]);
    expect((await find(ctx.db, { key: 'p2' })).rows).toEqual([{ value: 'two', updated_at: 2 }]);
    expect((await find(ctx.db, { key: 'absent' })).rows).toEqual([]);
  });

  it('keeps the constants of the statement', async () => {
    await upsert(ctx.db, { key: 'p3', value: 'hidden', at: 4 });
    expect((await find(ctx.db, { key: 'p3' })).rows).toEqual([]);
  });

  it('runs on a group commit’s connection', async () => {
    await withoutFsync(ctx.db, (conn) => upsert(conn, { key: 'p4', value: 'four', at: 5 }));
    expect((await find(ctx.db, { key: 'p4' })).rows).toEqual([{ value: 'four', updated_at: 5 }]);
  });

  it('never reads what another caller’s open transaction wrote (on SQLite the read waits for the connection)', async () => {
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const rolledBack = ctx.db
      .transaction()
      .execute(async (trx) => {
        await upsert(trx, { key: 'p6', value: 'uncommitted', at: 7 });
        opened();
        await held;
        throw new Error('rolled back');
      })
      .catch((error: Error) => error.message);
    await open;
    const read = find(ctx.db, { key: 'p6' });
    release();
    expect((await read).rows).toEqual([]);
    expect(await rolledBack).toBe('rolled back');
  });

  it('binds its text and values for a native statement inside the group commit', async () => {
    await withoutFsyncNative(
      ctx.db,
      (query) => {
        const { text, parameters } = upsert.bind(ctx.db, { key: 'p7', value: 'seven', at: 8 });
        query(text, parameters);
      },
      async (conn) => void (await upsert(conn, { key: 'p7', value: 'seven', at: 8 })),
    );
    expect((await find(ctx.db, { key: 'p7' })).rows).toEqual([{ value: 'seven', updated_at: 8 }]);
    expect(upsert.bind(ctx.db, { key: 'p8', value: 'eight', at: 9 }).parameters).toEqual([
      'p8',
      'eight',
      9,
      'eight',
      9,
    ]);
  });

  it('refuses a call without a value for a slot, and a builder that spreads the slots', async () => {
    await expect(find(ctx.db, {} as { key: string })).rejects.toThrow('no value for key');
    const spread = prepared((db: Kysely<Database>, v: Slots<{ key: string; value: string; at: number }>) =>
      db.insertInto('kv').values({ ...v, updated_at: 0 }),
    );
    await expect(spread(ctx.db, { key: 'p5', value: 'five', at: 6 })).rejects.toThrow('cannot be spread');
  });
});
