// Retention: pruneIdentityLog removes the events older than the retention and their deliveries (through the webhook
// engine), keeps newer ones and their deliveries, and answers how many events went. Both dialects.
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { newDeliveryRow, newSubscriptionRow, newWebhookSecret } from '../webhooks/index';
import { pruneIdentityLog } from './service';

const DAY = 24 * 60 * 60 * 1000;
const NOW = 1_700_000_000_000;

describeEachDialect('identity log retention', (ctx) => {
  it('events older than the retention go with their deliveries; newer ones and theirs stay', async () => {
    const hook = newSubscriptionRow(NOW, {
      account: 'acct_prune',
      key_id: 'key_prune',
      scope_type: 'registry',
      scope_value: '*',
      url: 'https://hooks.example.com/prune',
      event_types: '["*"]',
      description: null,
      secret: newWebhookSecret(),
      stream: 'identity',
    });
    await ctx.db.insertInto('webhook_subscriptions').values(hook).execute();
    const event = (sequence: number, createdAt: number) => ({
      sequence,
      id: `iev_prune_${sequence}`,
      type: 'handle.registered',
      signature: '1'.repeat(64),
      slot: sequence,
      handle_name: 'prune',
      payload: '{}',
      test: 0,
      created_at: createdAt,
    });
    const old = [event(1, NOW - 3 * DAY), event(2, NOW - 2 * DAY - 1)];
    const recent = event(3, NOW - DAY);
    await ctx.db
      .insertInto('identity_events')
      .values([...old, recent])
      .execute();
    const deliveries = [...old, recent].map((e) => newDeliveryRow(hook.id, e, false, e.created_at));
    await ctx.db.insertInto('webhook_deliveries').values(deliveries).execute();

    expect(await pruneIdentityLog(ctx.db, 2, NOW)).toBe(2);
    const events = await ctx.db.selectFrom('identity_events').select('id').orderBy('sequence').execute();
    expect(events.map((e) => e.id)).toEqual([recent.id]);
    const kept = await ctx.db.selectFrom('webhook_deliveries').select('event_id').execute();
    expect(kept.map((d) => d.event_id)).toEqual([recent.id]);
    expect(await pruneIdentityLog(ctx.db, 2, NOW)).toBe(0);
  });
});
