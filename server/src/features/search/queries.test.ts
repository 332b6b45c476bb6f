// The search SQL on both dialects: byte-wise name order (Postgres' column collation "C"), the prefix range, LIKE
// with its escape for `%`, `_` and `\`, the agent filter and the cursor.
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { applyIndexChanges, searchIndex, type SearchQuery } from './queries';

const NAMES = ['a.b', 'a_b', 'ab', 'abc', 'a0', 'b', 'b_', 'xa_b', 'xab', 'zz'];

describeEachDialect('handle index queries', (ctx) => {
  beforeAll(async () => {
    const rows = NAMES.map((name, i) => ({
      name,
      account: `acct${i}`,
      owner: `owner${i}`,
      handle_type: name === 'xab' ? 3 : 0,
      agent: name === 'xab' || name === 'a_b' ? 1 : 0,
      registered_slot: i + 1,
    }));
    await applyIndexChanges(ctx.db, rows, [], 1);
  });

  const find = async (query: Partial<SearchQuery> & { q: string }) =>
    (await searchIndex(ctx.db, { mode: 'prefix', agentOnly: false, take: 100, ...query })).map((r) => r.name);

  it('prefix is a byte-wise range: `.` and `_` sort by code point', async () => {
    expect(await find({ q: 'a' })).toEqual(['a.b', 'a0', 'a_b', 'ab', 'abc']);
    expect(await find({ q: 'a_' })).toEqual(['a_b']);
    expect(await find({ q: 'ab' })).toEqual(['ab', 'abc']);
    expect(await find({ q: 'b' })).toEqual(['b', 'b_']);
    expect(await find({ q: '%' })).toEqual([]);
  });

  it('substring takes %, _ and \\ literally', async () => {
    expect(await find({ q: '_b', mode: 'substring' })).toEqual(['a_b', 'xa_b']);
    expect(await find({ q: 'a_', mode: 'substring' })).toEqual(['a_b', 'xa_b']);
    expect(await find({ q: '%', mode: 'substring' })).toEqual([]);
    expect(await find({ q: '\\', mode: 'substring' })).toEqual([]);
    expect(await find({ q: 'b', mode: 'substring' })).toEqual(['a.b', 'a_b', 'ab', 'abc', 'b', 'b_', 'xa_b', 'xab']);
  });

  it('agent filter, cursor and take', async () => {
    expect(await find({ q: 'b', mode: 'substring', agentOnly: true })).toEqual(['a_b', 'xab']);
    expect(await find({ q: 'b', mode: 'substring', after: 'ab', take: 3 })).toEqual(['abc', 'b', 'b_']);
  });

  it('an upsert of the same rows is idempotent and a removal drops the row', async () => {
    const row = { name: 'zz', account: 'acct9', owner: 'new', handle_type: 0, agent: 0, registered_slot: 10 };
    await applyIndexChanges(ctx.db, [row], [], 2);
    await applyIndexChanges(ctx.db, [row], [], 3);
    const [stored] = await ctx.db.selectFrom('handle_index').selectAll().where('name', '=', 'zz').execute();
    expect(stored).toMatchObject({ owner: 'new', updated_at: 3 });
    await applyIndexChanges(ctx.db, [], ['zz'], 4);
    expect(await find({ q: 'zz' })).toEqual([]);
  });
});
