import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { readKv, writeKv } from './index';

describeEachDialect('kv', (ctx) => {
  it('reads what was written, overwrites in place, and is undefined for a missing key', async () => {
    expect(await readKv(ctx.db, 'cursor')).toBeUndefined();
    await writeKv(ctx.db, 'cursor', '{"slot":1}', 10);
    await writeKv(ctx.db, 'cursor', '{"slot":2}', 20);
    expect(await readKv(ctx.db, 'cursor')).toBe('{"slot":2}');
    expect(await ctx.db.selectFrom('kv').selectAll().where('key', '=', 'cursor').execute()).toEqual([
      { key: 'cursor', value: '{"slot":2}', updated_at: 20 },
    ]);
  });
});
