// Deliveries to real local HTTPS receivers: signed with the Sigil-* headers (verified by the SDK's verifyWebhook),
// failures classified, retry → dead → auto-pause → resume with a controllable clock, the per-minute budget,
// rotation applying to retries, 64 KiB trim. Both dialects.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { verifyWebhook } from '@sigil/client-sdk/webhooks';
import { describeEachDialect } from '@sigil/test/support/db';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/client';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { startDeliveryWorker } from '../webhooks/index';
import { payWebhookStream } from './stream';
import { payWebhooksService, queueEvents, seedWebhook } from '@sigil/test/support/webhooks-world';

let client: OutboundClient;
let ok: HttpsReceiver;
let failing: HttpsReceiver;
let redirecting: HttpsReceiver;
let hanging: HttpsReceiver;
let slow: HttpsReceiver;

beforeAll(async () => {
  client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert, timeoutMs: 2000 }); // generous: a loaded CI machine must not turn a healthy receiver into a timeout
  ok = await startHttpsReceiver((_req, res) => res.writeHead(204).end());
  failing = await startHttpsReceiver((_req, res) => res.writeHead(500).end('nope'));
  redirecting = await startHttpsReceiver((_req, res) =>
    res.writeHead(302, { location: 'https://127.0.0.1:1/elsewhere' }).end(),
  );
  hanging = await startHttpsReceiver((req) => req.socket.destroy());
  slow = await startHttpsReceiver((_req, res) => setTimeout(() => res.writeHead(200).end(), 6000).unref());
});
afterAll(async () => {
  await client.close?.();
  for (const r of [ok, failing, redirecting, hanging, slow]) await r?.close();
});

const urlOf = (r: HttpsReceiver) => `https://127.0.0.1:${r.port}/hook`;

describeEachDialect('webhook delivery', (ctx) => {
  const hooks = (clock?: number) => payWebhooksService(ctx.db, clock === undefined ? {} : { now: () => clock });
  // Each test sees only its own queue (a worker claims every due row of the database).
  const clean = () => ctx.db.deleteFrom('webhook_deliveries').execute();
  beforeEach(clean);

  it('POSTs the exact signed body with every Sigil-* header; verifyWebhook accepts it; the log says delivered', async () => {
    const hook = await seedWebhook(ctx.db, urlOf(ok));
    const [deliveryId] = await queueEvents(ctx.db, hook.id, 1);
    const before = ok.requests.length;
    const worker = startDeliveryWorker({ db: ctx.db, client, streams: [payWebhookStream] }, { loop: false });
    expect(await worker.runOnce()).toEqual(['delivered']);
    const request = ok.requests.slice(before).find((r) => r.headers['sigil-delivery-id'] === deliveryId)!;
    const body = JSON.parse(request.body.toString('utf8'));
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['sigil-event-id']).toBe(body.id);
    expect(request.headers['sigil-event-type']).toBe('payment.received');
    expect(request.headers['sigil-subscription-id']).toBe(hook.id);
    expect(request.headers['sigil-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await verifyWebhook(request.body, request.headers['sigil-signature'] as string, hook.secret)).toMatchObject({
      ok: true,
      secretIndex: 0,
    });
    expect(await verifyWebhook(request.body, request.headers['sigil-signature'] as string, 'whsec_other')).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    const row = await ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', deliveryId!)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'delivered',
      attempts: 1,
      last_status: 204,
      last_error: null,
      lease_holder: null,
      next_attempt_at: null,
    });
  });

  it('classifies failures: 500 → http_status, redirect not followed → http_status 302, hang-up → connection_closed, slow → timeout', async () => {
    const cases: [HttpsReceiver, number | null, string][] = [
      [failing, 500, 'http_status'],
      [redirecting, 302, 'http_status'],
      [hanging, null, 'connection_closed'],
      [slow, null, 'timeout'],
    ];
    for (const [receiver, status, error] of cases) {
      await clean();
      const hook = await seedWebhook(ctx.db, urlOf(receiver));
      const [id] = await queueEvents(ctx.db, hook.id, 1);
      const clock = Date.now();
      const worker = startDeliveryWorker(
        { db: ctx.db, client, streams: [payWebhookStream], now: () => clock, rand: () => 0.5 },
        { loop: false },
      );
      expect(await worker.runOnce()).toEqual(['retry']);
      const row = await ctx.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', id!)
        .executeTakeFirstOrThrow();
      // First retry waits uniformly up to 10 s: rand 0.5 → 5000 ms.
      expect(row).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_status: status,
        last_error: error,
        next_attempt_at: clock + 5000,
      });
    }
    expect(redirecting.requests.every((r) => r.url === '/hook')).toBe(true);
  });

  it('retry → dead at the 6th failure → 50 consecutive dead letters auto-pause → resume; a success resets the streak', async () => {
    const hook = await seedWebhook(ctx.db, urlOf(failing), { account: 'acct_pause' });
    await queueEvents(ctx.db, hook.id, 50);
    let clock = Date.now();
    const worker = startDeliveryWorker(
      { db: ctx.db, client, streams: [payWebhookStream], now: () => clock, rand: () => 1 - Number.EPSILON },
      { loop: false },
    );
    const outcomes: string[] = [];
    for (let round = 0; round < 20; round++) {
      outcomes.push(...(await worker.runOnce()));
      clock += 6 * 60 * 60 * 1000; // past any retry wait and any minute window
    }
    expect(outcomes.filter((o) => o === 'dead')).toHaveLength(50);
    expect(outcomes.filter((o) => o === 'retry')).toHaveLength(250);
    const sub = await ctx.db
      .selectFrom('webhook_subscriptions')
      .select(['status', 'paused_reason', 'consecutive_dead'])
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(sub).toEqual({
      status: 'paused',
      paused_reason: 'auto-paused: 50 consecutive deliveries dead-lettered',
      consecutive_dead: 50,
    });
    const log = await hooks().deliveries({ keyId: 'k', account: 'acct_pause' }, hook.id, { limit: 200 });
    expect(
      log.deliveries.every(
        (d) => d.status === 'dead' && d.attempts === 6 && d.last_status === 500 && d.last_error === 'http_status',
      ),
    ).toBe(true);

    // Paused: nothing is attempted.
    await hooks(clock).sendTest({ keyId: 'k', account: 'acct_pause' }, hook.id);
    expect(await worker.runOnce()).toEqual([]);
    // Resume, point at a healthy receiver: the queued test event goes out and the streak resets.
    await ctx.db
      .updateTable('webhook_subscriptions')
      .set({ url: urlOf(ok) })
      .where('id', '=', hook.id)
      .execute();
    await hooks().resume({ keyId: 'k', account: 'acct_pause' }, hook.id);
    expect(await worker.runOnce()).toEqual(['delivered']);
  });

  it('retries are signed with the secret current at attempt time (rotation)', async () => {
    let answer = 500;
    const flaky = await startHttpsReceiver((_req, res) => res.writeHead(answer).end());
    try {
      const hook = await seedWebhook(ctx.db, urlOf(flaky), { account: 'acct_rot' });
      await queueEvents(ctx.db, hook.id, 1);
      let clock = Date.now();
      const worker = startDeliveryWorker(
        { db: ctx.db, client, streams: [payWebhookStream], now: () => clock, rand: () => 0.5 },
        { loop: false },
      );
      expect(await worker.runOnce()).toEqual(['retry']);
      const { secret } = await hooks().rotateSecret({ keyId: 'k', account: 'acct_rot' }, hook.id);
      answer = 200;
      clock += 5000;
      expect(await worker.runOnce()).toEqual(['delivered']);
      const [first, second] = flaky.requests;
      const sig = (r: typeof first) => r!.headers['sigil-signature'] as string;
      expect(
        await verifyWebhook(first!.body, sig(first), hook.secret, { now: Math.floor(clock / 1000) }),
      ).toMatchObject({
        ok: true,
      });
      expect(await verifyWebhook(second!.body, sig(second), secret, { now: Math.floor(clock / 1000) })).toMatchObject({
        ok: true,
      });
      // Within the rotation overlap (24 h) the replaced secret signs beside the new one: two v1 entries.
      expect(
        sig(second)
          .split(',')
          .filter((p) => p.startsWith('v1=')),
      ).toHaveLength(2);
      expect(second!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
      expect(
        await verifyWebhook(second!.body, sig(second), hook.secret, { now: Math.floor(clock / 1000) }),
      ).toMatchObject({
        ok: true,
      });
      expect(second!.headers['sigil-event-id']).toBe(first!.headers['sigil-event-id']);
      // After the overlap only the new secret signs.
      clock += 24 * 60 * 60 * 1000;
      await queueEvents(ctx.db, hook.id, 1, clock - 1);
      expect(await worker.runOnce()).toEqual(['delivered']);
      const third = flaky.requests[2]!;
      expect(
        sig(third)
          .split(',')
          .filter((p) => p.startsWith('v1=')),
      ).toHaveLength(1);
      expect(await verifyWebhook(third.body, sig(third), secret, { now: Math.floor(clock / 1000) })).toMatchObject({
        ok: true,
      });
      expect(await verifyWebhook(third.body, sig(third), hook.secret, { now: Math.floor(clock / 1000) })).toEqual({
        ok: false,
        reason: 'signature_mismatch',
      });
    } finally {
      await flaky.close();
    }
  });

  it('60 deliveries per webhook per minute: the 61st waits for the next minute (not a failure)', async () => {
    const hook = await seedWebhook(ctx.db, urlOf(ok));
    let clock = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
    const ids = await queueEvents(ctx.db, hook.id, 61, clock - 61);
    const worker = startDeliveryWorker(
      { db: ctx.db, client, streams: [payWebhookStream], now: () => clock },
      { loop: false },
    );
    const first = await worker.runOnce();
    expect(first.filter((o) => o === 'delivered')).toHaveLength(60);
    expect(first.filter((o) => o === 'deferred')).toHaveLength(1);
    const waiting = await ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', hook.id)
      .where('status', '=', 'pending')
      .execute();
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ attempts: 0, last_error: null, next_attempt_at: clock - 1000 + 60_000 });
    clock += 60_000;
    expect(await worker.runOnce()).toEqual(['delivered']);
    expect(ids).toHaveLength(61);
  });

  it('bodies over 64 KiB are trimmed: memo and references dropped, truncated true, still verifiable', async () => {
    const hook = await seedWebhook(ctx.db, urlOf(ok));
    const [id] = await queueEvents(ctx.db, hook.id, 1, Date.now(), 'm'.repeat(70_000));
    const worker = startDeliveryWorker({ db: ctx.db, client, streams: [payWebhookStream] }, { loop: false });
    expect(await worker.runOnce()).toEqual(['delivered']);
    const request = ok.requests.find((r) => r.headers['sigil-delivery-id'] === id)!;
    expect(request.body.length).toBeLessThanOrEqual(65_536);
    const body = JSON.parse(request.body.toString('utf8'));
    expect(body.truncated).toBe(true);
    expect(body.payment).not.toHaveProperty('memo');
    expect(body.payment).not.toHaveProperty('references');
    expect(body.payment.reference).toBe(null);
    expect(await verifyWebhook(request.body, request.headers['sigil-signature'] as string, hook.secret)).toMatchObject({
      ok: true,
    });
  });
});
