import { beforeEach, expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { runTogether } from '@sigil/test/support/db-children';
import {
  consumeToken,
  consumeTokenReadThenWrite,
  createTokensTable,
  tokenRows,
} from '@sigil/test/support/consume-once';

// The pattern every single-use thing follows (docs/data.md): one conditional UPDATE, row count decides.
describeEachDialect('consume once', (ctx) => {
  const consumers = Array.from({ length: 50 }, (_, i) => `c${i}`);

  beforeEach(async () => {
    await createTokensTable(ctx.db, ['t1', 't2', 't3', 't4', 't5']);
  });

  it('gives one winner among 50 concurrent consumers in this process', async () => {
    const won = await Promise.all(consumers.map((c) => consumeToken(ctx.db, 't1', c, 111)));
    const winners = consumers.filter((_, i) => won[i]);
    expect(winners).toHaveLength(1);
    expect((await tokenRows(ctx.db))[0]).toEqual({ id: 't1', used_at: 111, used_by: winners[0] });
  });

  it('refuses a token that was already used, and an unknown one', async () => {
    expect(await consumeToken(ctx.db, 't2', 'first', 1)).toBe(true);
    expect(await consumeToken(ctx.db, 't2', 'second', 2)).toBe(false);
    expect(await consumeToken(ctx.db, 'no-such-token', 'x', 3)).toBe(false);
    expect((await tokenRows(ctx.db))[1]).toEqual({ id: 't2', used_at: 1, used_by: 'first' });
  });

  it('control: the same race catches read-then-write (several "winners")', async () => {
    // Proves the race above is real: this harness does interleave consumers between statements.
    const won = await Promise.all(consumers.map((c) => consumeTokenReadThenWrite(ctx.db, 't3', c)));
    expect(won.filter(Boolean).length).toBeGreaterThan(1);
  });

  it('gives one winner per token among 50 consumers per token in two processes', async () => {
    const ids = ['t1', 't2', 't3', 't4', 't5'];
    const results = await runTogether<{ id: string; consumer: string }[]>([
      { kind: 'consume', url: ctx.url, ids, consumersPerId: 25, tag: 'p' },
      { kind: 'consume', url: ctx.url, ids, consumersPerId: 25, tag: 'q' },
    ]);
    const wins = results.flat();
    expect(wins.map((w) => w.id).sort()).toEqual(ids);
    const rows = await tokenRows(ctx.db);
    for (const win of wins) expect(rows.find((r) => r.id === win.id)?.used_by).toBe(win.consumer);
  });
});
