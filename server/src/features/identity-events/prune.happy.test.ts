// Retention: pruneIdentityLog removes the events older than the retention and their deliveries (through the webhook
// engine), keeps newer ones and their deliveries, and answers how many events went; both go in one transaction, so a
// prune that fails half-way keeps both. Both dialects.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect, type DialectContext } from '@sigil/test/support/db';
import { newDeliveryRow, newSubscriptionRow, newWebhookSecret } from '../webhooks/index';
import { pruneIdentityLog } from './service';

const DAY = 24 * 60 * 60 * 1000;
const NOW = 1_700_000_000_000;

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

/** Stores the events, an identity webhook and one delivery of each event to it. */
async function seedEvents(ctx: DialectContext, events: ReturnType<typeof event>[]): Promise<void> {
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
  await ctx.db.insertInto('identity_events').values(events).execute();
  const deliveries = events.map((e) => newDeliveryRow(hook.id, e, false, e.created_at));
  await ctx.db.insertInto('webhook_deliveries').values(deliveries).execute();
}

/** Makes every delete of identity events fail while `during` runs: the prune's second statement. */
async function refusingEventDeletes(ctx: DialectContext, during: () => Promise<void>): Promise<void> {
  const [create, drop] =
    ctx.dialect === 'sqlite'
      ? [
          [
            sql`create trigger refuse_prune before delete on identity_events begin select raise(abort, 'prune refused'); end`,
          ],
          [sql`drop trigger refuse_prune`],
        ]
      : [
          [
            sql`create function refuse_prune() returns trigger language plpgsql as $$ begin raise exception 'prune refused'; end $$`,
            sql`create trigger refuse_prune before delete on identity_events for each statement execute procedure refuse_prune()`,
          ],
          [sql`drop trigger refuse_prune on identity_events`, sql`drop function refuse_prune()`],
        ];
  for (const statement of create) await statement.execute(ctx.db);
  try {
    await during();
  } finally {
    for (const statement of drop) await statement.execute(ctx.db);
  }
}

describeEachDialect('identity log retention', (ctx) => {
  it('events older than the retention go with their deliveries; newer ones and theirs stay', async () => {
    const old = [event(1, NOW - 3 * DAY), event(2, NOW - 2 * DAY - 1)];
    const recent = event(3, NOW - DAY);
    await seedEvents(ctx, [...old, recent]);

    expect(await pruneIdentityLog(ctx.db, 2, NOW)).toBe(2);
    const events = await ctx.db.selectFrom('identity_events').select('id').orderBy('sequence').execute();
    expect(events.map((e) => e.id)).toEqual([recent.id]);
    const kept = await ctx.db.selectFrom('webhook_deliveries').select('event_id').execute();
    expect(kept.map((d) => d.event_id)).toEqual([recent.id]);
    expect(await pruneIdentityLog(ctx.db, 2, NOW)).toBe(0);
  });

  it('a prune whose delete of the events fails keeps their deliveries too', async () => {
    const old = event(10, NOW - 3 * DAY);
    await seedEvents(ctx, [old]);

    await refusingEventDeletes(ctx, async () => {
      await expect(pruneIdentityLog(ctx.db, 2, NOW)).rejects.toThrow(/prune refused/);
    });
    const kept = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('event_id', '=', old.id)
      .execute();
    expect(kept).toHaveLength(1);
    expect(await pruneIdentityLog(ctx.db, 2, NOW)).toBe(1);
    expect(await ctx.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', old.id).execute()).toEqual(
      [],
    );
  });
});
