// The shared operational gauges read from the database at scrape time, on both dialects.
import { afterEach, expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { queueEvents, seedWebhook } from '@sigil/test/support/webhooks-world';
import { writeKv } from '../platform/db/index';
import { createMetrics } from '../platform/metrics';
import { INDEXED_SLOT_KEY } from './indexer';
import { registerOpsMetrics } from './ops-metrics';

describeEachDialect('operational metrics', (ctx) => {
  const now = 1_700_000_100_000;
  let tip = 1000n;
  afterEach(() => {
    tip = 1000n;
  });
  const render = async () => {
    const metrics = createMetrics();
    registerOpsMetrics(metrics, { db: ctx.db, chain: { getSlot: async () => tip }, now: () => now });
    return metrics.render();
  };

  it('zero backlog, lag and dead letters on an empty database; indexer lag 0 before any pass', async () => {
    const text = await render();
    expect(text).toMatch(/^sigil_webhook_delivery_backlog 0$/m);
    expect(text).toMatch(/^sigil_webhook_delivery_lag_seconds 0$/m);
    expect(text).toMatch(/^sigil_webhook_dead_letters 0$/m);
    expect(text).toMatch(/^sigil_indexer_slot_lag 0$/m);
  });

  it('counts pending deliveries, ages the oldest, counts dead ones, and measures the indexer against the tip', async () => {
    const hook = await seedWebhook(ctx.db, 'https://receiver.example/hook');
    const ids = await queueEvents(ctx.db, hook.id, 3, now - 30_000);
    await ctx.db.updateTable('webhook_deliveries').set({ status: 'dead' }).where('id', '=', ids[2]!).execute();
    await writeKv(ctx.db, INDEXED_SLOT_KEY, '990');
    tip = 1002n;
    const text = await render();
    expect(text).toMatch(/^sigil_webhook_delivery_backlog 2$/m);
    expect(text).toMatch(/^sigil_webhook_delivery_lag_seconds 30$/m);
    expect(text).toMatch(/^sigil_webhook_dead_letters 1$/m);
    expect(text).toMatch(/^sigil_indexer_slot_lag 12$/m);
  });
});
