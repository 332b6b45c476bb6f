// recover {since, until?} (both streams share it): exactly the failed and dead deliveries created in the window go
// back in the queue, due now with a fresh budget, and are delivered by the next worker round; deliveries outside
// the window, delivered ones and other webhooks' are untouched; a repeat changes nothing. Controlled clock, both
// dialects.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { loopbackTestClient, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { payWebhooksService, queueEvents, seedWebhook } from '@sigil/test/support/webhooks-world';
import type { OutboundClient } from '../../platform/outbound/client';
import { startDeliveryWorker } from '../webhooks/index';
import { payWebhookStream } from './stream';

let client: OutboundClient;
let receiver: HttpsReceiver;
let answer = 500;

beforeAll(async () => {
  client = loopbackTestClient({ timeoutMs: 2000 });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(answer).end());
});
afterAll(async () => {
  await client.close?.();
  await receiver?.close();
});

describeEachDialect('recover', (ctx) => {
  const hooks = (clock: number) => payWebhooksService(ctx.db, { now: () => clock });
  beforeEach(async () => {
    await ctx.db.deleteFrom('webhook_deliveries').execute();
    answer = 500;
    receiver.requests.length = 0;
  });

  it('re-delivers exactly the failed window; idempotent', async () => {
    const account = 'acct_recover';
    const url = `https://127.0.0.1:${receiver.port}/hook`;
    const hook = await seedWebhook(ctx.db, url, { account });
    const other = await seedWebhook(ctx.db, url, { account });
    const T = Date.UTC(2026, 10, 24, 3, 0, 0);
    const before = await queueEvents(ctx.db, hook.id, 2, T - 60_000);
    const inWindow = await queueEvents(ctx.db, hook.id, 3, T);
    const after = await queueEvents(ctx.db, hook.id, 2, T + 60_000);
    const otherHook = await queueEvents(ctx.db, other.id, 1, T);

    let clock = T + 120_000;
    const worker = startDeliveryWorker(
      { db: ctx.db, client, streams: [payWebhookStream], now: () => clock, rand: () => 0.99 },
      { loop: false },
    );
    expect(await worker.runOnce()).toEqual(Array(8).fill('retry')); // every one failed once, next try ~10 s later
    answer = 200;
    clock += 1000; // not yet due: nothing would be sent now without recover
    expect(await worker.runOnce()).toEqual([]);

    const caller = { keyId: 'k', account };
    expect(await hooks(clock).recover(caller, hook.id, { since: T, until: T + 60_000 })).toEqual({
      requeued: 3,
      pending: 3,
    });
    // Idempotent: they are pending with no attempts now.
    expect(await hooks(clock).recover(caller, hook.id, { since: T, until: T + 60_000 })).toEqual({
      requeued: 0,
      pending: 3,
    });
    receiver.requests.length = 0;
    expect(await worker.runOnce()).toEqual(['delivered', 'delivered', 'delivered']);
    const sent = new Set(receiver.requests.map((r) => r.headers['sigil-delivery-id']));
    expect(sent).toEqual(new Set(inWindow));

    const rows = await ctx.db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts']).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of inWindow) expect(byId.get(id)).toMatchObject({ status: 'delivered', attempts: 1 });
    for (const id of [...before, ...after, ...otherHook])
      expect(byId.get(id)).toMatchObject({ status: 'pending', attempts: 1 });

    // Delivered ones are not recovered (redeliver is for those); another account cannot recover this webhook.
    expect(await hooks(clock).recover(caller, hook.id, { since: T, until: T + 60_000 })).toEqual({
      requeued: 0,
      pending: 0,
    });
    await expect(
      hooks(clock).recover({ keyId: 'k', account: 'acct_other' }, hook.id, { since: 0 }),
    ).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
  });

  it('dead deliveries of the window come back with a fresh attempt budget', async () => {
    const account = 'acct_recover_dead';
    const hook = await seedWebhook(ctx.db, `https://127.0.0.1:${receiver.port}/dead`, { account });
    const T = Date.UTC(2026, 10, 24, 4, 0, 0);
    const [id] = await queueEvents(ctx.db, hook.id, 1, T);
    await ctx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'dead', attempts: 6, next_attempt_at: null })
      .execute();
    answer = 200;
    const clock = T + 10_000;
    expect(await hooks(clock).recover({ keyId: 'k', account }, hook.id, { since: T - 1 })).toEqual({
      requeued: 1,
      pending: 1,
    });
    const worker = startDeliveryWorker(
      { db: ctx.db, client, streams: [payWebhookStream], now: () => clock },
      { loop: false },
    );
    expect(await worker.runOnce()).toEqual(['delivered']);
    const row = await ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id!)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});
