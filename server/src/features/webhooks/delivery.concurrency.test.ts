// Crash safety and several workers: a claimed-but-unfinished delivery is delivered after its lease expires; a
// retention prune between a claim and the read of its bodies costs only the pruned events, and a claim left without
// its event is deleted; two workers with their own connection pools on one database never attempt the same delivery
// at once.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, freshDatabase, postgresReachable } from '@sigil/test/support/db';
import { createDatabase, withoutFsync } from '../../platform/db/index';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/client';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { startDeliveryWorker } from './delivery-worker';
import { payWebhookStream } from '../pay-webhooks/index';
import type { WebhookStream } from './stream';
import { claimDueDeliveries } from './delivery-queries';
import { queueEvents, seedWebhook } from '@sigil/test/support/webhooks-world';

let client: OutboundClient;
let receiver: HttpsReceiver;

beforeAll(async () => {
  client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert, timeoutMs: 2000 });
  // A little latency so that attempts of both workers overlap in time.
  receiver = await startHttpsReceiver((_req, res) => setTimeout(() => res.writeHead(200).end(), 15));
});
afterAll(async () => {
  await client.close();
  await receiver.close();
});

describeEachDialect('delivery crash safety', (ctx) => {
  it('a delivery claimed by a worker that died is delivered by another once the lease expires, not before', async () => {
    const hook = await seedWebhook(ctx.db, `https://127.0.0.1:${receiver.port}/crash`);
    const [id] = await queueEvents(ctx.db, hook.id, 1);
    let clock = Date.now();
    // "Worker A" claims and dies before attempting (kill -9 between claim and POST).
    expect(
      (
        await claimDueDeliveries(ctx.db, {
          holder: 'worker-a',
          limit: 10,
          now: clock,
          leaseMs: 60_000,
          streams: ['pay'],
        })
      ).map((c) => c.id),
    ).toEqual([id]);
    const b = startDeliveryWorker(
      { db: ctx.db, client, streams: [payWebhookStream], now: () => clock, leaseMs: 60_000, holder: 'worker-b' },
      { loop: false },
    );
    expect(await b.runOnce()).toEqual([]); // still leased to A
    clock += 60_000;
    expect(await b.runOnce()).toEqual(['delivered']);
    expect(receiver.requests.filter((r) => r.headers['sigil-delivery-id'] === id)).toHaveLength(1);
    const row = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'lease_holder'])
      .where('id', '=', id!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'delivered', attempts: 1, lease_holder: null });
  });

  it('a prune that takes a claimed event away before its body is read skips it; the rest of the batch is delivered', async () => {
    const path = `/pruned-${ctx.dialect}`;
    const hook = await seedWebhook(ctx.db, `https://127.0.0.1:${receiver.port}${path}`);
    const [pruned, kept] = await queueEvents(ctx.db, hook.id, 2);
    const { event_id: prunedEvent } = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('id', '=', pruned!)
      .executeTakeFirstOrThrow();
    // The stream's read of the bodies comes right after the claim: the prune commits in between (as a retention
    // prune does: the event's deliveries, then the event).
    const pruning: WebhookStream = {
      ...payWebhookStream,
      async loadEvents(db, ids) {
        await db.deleteFrom('webhook_deliveries').where('event_id', '=', prunedEvent).execute();
        await db.deleteFrom('pay_events').where('id', '=', prunedEvent).execute();
        return payWebhookStream.loadEvents(db, ids);
      },
    };
    const worker = startDeliveryWorker({ db: ctx.db, client, streams: [pruning] }, { loop: false });
    expect((await worker.runOnce()).sort()).toEqual(['delivered', 'skipped']);
    expect(receiver.requests.filter((r) => r.url === path).map((r) => r.headers['sigil-delivery-id'])).toEqual([kept]);
  });

  it('a claim whose event is gone but whose row was left is deleted, not left pending', async () => {
    const hook = await seedWebhook(ctx.db, `https://127.0.0.1:${receiver.port}/eventless-${ctx.dialect}`);
    const [eventless] = await queueEvents(ctx.db, hook.id, 2);
    const { event_id: prunedEvent } = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('id', '=', eventless!)
      .executeTakeFirstOrThrow();
    // Only the event goes: its row stays, as one written while a prune ran, after the prune deleted the deliveries.
    const pruning: WebhookStream = {
      ...payWebhookStream,
      async loadEvents(db, ids) {
        await db.deleteFrom('pay_events').where('id', '=', prunedEvent).execute();
        return payWebhookStream.loadEvents(db, ids);
      },
    };
    let clock = Date.now();
    const worker = startDeliveryWorker(
      { db: ctx.db, client, streams: [pruning], now: () => clock, leaseMs: 60_000 },
      { loop: false },
    );
    expect((await worker.runOnce()).sort()).toEqual(['delivered', 'skipped']);
    const pending = () =>
      ctx.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', hook.id)
        .where('status', '=', 'pending')
        .execute();
    expect(await pending()).toEqual([]);
    clock += 60_000;
    expect(await worker.runOnce()).toEqual([]); // nothing to claim again once the lease would have expired
  });
});

it.runIf(postgresReachable)(
  'two workers with separate pools on one Postgres deliver each of 120 events exactly once',
  async () => {
    const database = await freshDatabase('postgres');
    const second = createDatabase({ url: database.url });
    try {
      const hooks = [];
      for (let i = 0; i < 3; i++) hooks.push(await seedWebhook(database.db, `https://127.0.0.1:${receiver.port}/two`));
      const ids = (await Promise.all(hooks.map((h) => queueEvents(database.db, h.id, 40)))).flat();
      // Warm both handles' pools, the relaxed one the claims use included, so that neither worker starts late.
      for (const db of [database.db, second.db]) {
        await sql`select 1`.execute(db);
        await withoutFsync(db, (relaxed) => sql`select 1`.execute(relaxed));
      }
      const before = receiver.requests.length;
      const a = startDeliveryWorker(
        { db: database.db, client, streams: [payWebhookStream], holder: 'a', concurrency: 8 },
        { loop: false },
      );
      const b = startDeliveryWorker(
        { db: second.db, client, streams: [payWebhookStream], holder: 'b', concurrency: 8 },
        { loop: false },
      );
      const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
      expect(ra.length).toBeGreaterThan(0);
      expect(rb.length).toBeGreaterThan(0);
      expect(ra.length + rb.length).toBe(120);
      const seen = receiver.requests.slice(before).map((r) => r.headers['sigil-delivery-id'] as string);
      expect(seen.length).toBe(120);
      expect(new Set(seen).size).toBe(120);
      expect(new Set(seen)).toEqual(new Set(ids));
    } finally {
      await second.close();
      await database.drop();
    }
  },
);
