// Recording a failed attempt (attempts.ts finishAttempt): its outcome and its attempt row commit together on both
// dialects. When the attempt row cannot be written (here the database refuses it, as a crash between the two writes
// would leave it unwritten), the delivery stays as the claim left it: still leased, its count unchanged, so the
// history never misses an attempt that the count includes.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect, type DialectContext } from '@sigil/test/support/db';
import { queueEvents, seedWebhook } from '@sigil/test/support/webhooks-world';
import type { OutboundClient } from '../../platform/outbound/client';
import { payWebhookStream } from '../pay-webhooks/index';
import { claimReadyAttempts, createDeliveredFinisher, finishAttempt, type DeliveryDeps } from './attempts';

/** Makes the database refuse every new attempt row until `allow` runs. */
async function refuseAttemptRows(ctx: DialectContext): Promise<{ allow: () => Promise<void> }> {
  if (ctx.dialect === 'sqlite') {
    await sql`create trigger refuse_attempts before insert on webhook_attempts
      begin select raise(abort, 'attempt rows refused'); end`.execute(ctx.db);
    return { allow: async () => void (await sql`drop trigger refuse_attempts`.execute(ctx.db)) };
  }
  await sql`alter table webhook_attempts add constraint refuse_attempts check (attempt < 0) not valid`.execute(ctx.db);
  return {
    allow: async () => void (await sql`alter table webhook_attempts drop constraint refuse_attempts`.execute(ctx.db)),
  };
}

describeEachDialect('recording a failed attempt', (ctx) => {
  it('its outcome and its attempt row commit together: when the row cannot be written, the delivery is unchanged', async () => {
    const hook = await seedWebhook(ctx.db, 'https://receiver.example/hook');
    const now = Date.now();
    const [deliveryId] = await queueEvents(ctx.db, hook.id, 1, now);
    // Nothing is sent here: the attempt's outcome is given to finishAttempt directly.
    const deps: DeliveryDeps = {
      client: {} as OutboundClient,
      holder: 'w',
      streams: [payWebhookStream],
      now: () => now,
    };
    const {
      ready: [attempt],
    } = await claimReadyAttempts(ctx.db, deps, 1);
    const failed = { status: 500, error: 'http_status' as const, ms: 7, endedAt: now + 7 };

    const refused = await refuseAttemptRows(ctx);
    try {
      await expect(
        finishAttempt(ctx.db, deps, attempt!, failed, createDeliveredFinisher(ctx.db, deps.holder)),
      ).rejects.toThrow();
    } finally {
      await refused.allow();
    }

    const delivery = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'last_status', 'lease_holder'])
      .where('id', '=', deliveryId!)
      .executeTakeFirstOrThrow();
    expect(delivery).toEqual({ status: 'pending', attempts: 0, last_status: null, lease_holder: 'w' });
    expect(await ctx.db.selectFrom('webhook_attempts').select('id').execute()).toEqual([]);

    // Written once the database takes the row: the outcome and its row, together.
    expect(await finishAttempt(ctx.db, deps, attempt!, failed, createDeliveredFinisher(ctx.db, deps.holder))).toBe(
      'retry',
    );
    const history = await ctx.db.selectFrom('webhook_attempts').select(['delivery_id', 'attempt', 'status']).execute();
    expect(history).toEqual([{ delivery_id: deliveryId, attempt: 1, status: 500 }]);
  });
});
