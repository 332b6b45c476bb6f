// Recording delivered attempts (delivery-queries.ts recordDelivered): the same rows on both dialects — each won
// delivery marked delivered, its attempt row exactly as given, the webhook's dead-letter streak reset — and nothing
// for a delivery whose lease is no longer ours.
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { queueEvents, seedWebhook } from '@sigil/test/support/webhooks-world';
import { prefixedId } from '../../platform/ids';
import type { WebhookAttemptsTable } from '../../platform/db/index';
import { claimDueDeliveries, recordDelivered } from './delivery-queries';

describeEachDialect('recording delivered attempts', (ctx) => {
  it('writes each won delivery and its attempt row as given; a delivery leased to another holder is left alone', async () => {
    const hook = await seedWebhook(ctx.db, 'https://receiver.example/hook');
    const now = Date.now();
    const ids = await queueEvents(ctx.db, hook.id, 3, now);
    await claimDueDeliveries(ctx.db, { holder: 'w', limit: 10, now, leaseMs: 60_000, streams: ['pay'] });
    const taken = ids[2]!;
    await ctx.db.updateTable('webhook_deliveries').set({ lease_holder: 'other' }).where('id', '=', taken).execute();
    await ctx.db.updateTable('webhook_subscriptions').set({ consecutive_dead: 3 }).where('id', '=', hook.id).execute();

    const attempts: WebhookAttemptsTable[] = ids.map((deliveryId, i) => ({
      id: prefixedId('whatt_', now + i),
      delivery_id: deliveryId,
      attempt: i + 1,
      attempted_at: now + i,
      status: 200 + i,
      error: null,
      duration_ms: 10 * (i + 1),
      headers: JSON.stringify({ 'sigil-delivery-id': deliveryId, n: String(i) }),
    }));
    const won = await recordDelivered(
      ctx.db,
      'w',
      attempts.map((attempt, i) => ({ attempt, at: now + 100 + i })),
    );
    expect(won).toEqual(new Set(ids.slice(0, 2)));

    const stored = await ctx.db.selectFrom('webhook_attempts').selectAll().orderBy('id').execute();
    expect(stored.map((r) => ({ ...r, attempted_at: Number(r.attempted_at) }))).toEqual(attempts.slice(0, 2));
    const deliveries = await ctx.db
      .selectFrom('webhook_deliveries')
      .select([
        'id',
        'status',
        'attempts',
        'last_status',
        'last_error',
        'response_ms',
        'delivered_at',
        'next_attempt_at',
        'lease_holder',
        'lease_expires_at',
      ])
      .orderBy('id')
      .execute();
    const plain = deliveries.map((d) => ({
      ...d,
      attempts: Number(d.attempts),
      delivered_at: d.delivered_at === null ? null : Number(d.delivered_at),
      next_attempt_at: d.next_attempt_at === null ? null : Number(d.next_attempt_at),
      lease_expires_at: d.lease_expires_at === null ? null : Number(d.lease_expires_at),
    }));
    const delivered = (i: number) => ({
      id: ids[i],
      status: 'delivered',
      attempts: i + 1,
      last_status: 200 + i,
      last_error: null,
      response_ms: 10 * (i + 1),
      delivered_at: now + 100 + i,
      next_attempt_at: null,
      lease_holder: null,
      lease_expires_at: null,
    });
    expect(plain).toEqual([
      delivered(0),
      delivered(1),
      {
        id: taken,
        status: 'pending',
        attempts: 0,
        last_status: null,
        last_error: null,
        response_ms: null,
        delivered_at: null,
        next_attempt_at: now,
        lease_holder: 'other',
        lease_expires_at: now + 60_000,
      },
    ]);
    const { consecutive_dead } = await ctx.db
      .selectFrom('webhook_subscriptions')
      .select('consecutive_dead')
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(Number(consecutive_dead)).toBe(0);
  });
});
