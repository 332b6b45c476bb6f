// The engine's owner verbs on a real delivery path: every attempt is recorded (time, status or error class,
// duration, headers) and a delivery's detail shows the body exactly as the receiver got it; the delivery log pages
// by cursor and filters by status and event type; disable / enable are distinct from auto-pause; edits; test events
// of a chosen type. Both dialects, a real local HTTPS receiver.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PayEventSchema } from '@sigil/contract/pay-events';
import { AttemptPageSchema, DeliveryDetailSchema, DISABLED_REASON } from '@sigil/contract/owner-webhooks';
import { describeEachDialect } from '@sigil/test/support/db';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { queueEvents, seedWebhook } from '@sigil/test/support/webhooks-world';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/client';
import { payWebhookStream } from '../pay-webhooks/index';
import { createQueueSignal, createWebhookStreamService, startDeliveryWorker } from './index';

let client: OutboundClient;
let receiver: HttpsReceiver;
/** What the receiver answers next: a queue of statuses (204 once it is empty). */
let answers: number[] = [];

beforeAll(async () => {
  client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert, timeoutMs: 5000 });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(answers.shift() ?? 204).end());
});
afterAll(async () => {
  await client.close?.();
  await receiver?.close();
});

const url = () => `https://127.0.0.1:${receiver.port}/hook`;
const caller = { keyId: 'key_seed', account: 'acct_seed' };

describeEachDialect('webhook owner verbs', (ctx) => {
  beforeEach(async () => {
    answers = [];
    await ctx.db.deleteFrom('webhook_deliveries').execute();
    await ctx.db.deleteFrom('webhook_subscriptions').execute();
  });

  const service = () =>
    createWebhookStreamService({ db: ctx.db, stream: payWebhookStream, enabled: true, queued: createQueueSignal() });
  const worker = () => startDeliveryWorker({ db: ctx.db, client, streams: [payWebhookStream] }, { loop: false });
  const dueNow = (id: string) =>
    ctx.db.updateTable('webhook_deliveries').set({ next_attempt_at: 0 }).where('id', '=', id).execute();

  describe('delivery detail', () => {
    it('records each attempt; the detail body is byte for byte what the receiver got; headers are the last attempt’s', async () => {
      const hook = await seedWebhook(ctx.db, url());
      const [deliveryId] = await queueEvents(ctx.db, hook.id, 1);
      answers = [500];
      const before = receiver.requests.length;
      expect(await worker().runOnce()).toEqual(['retry']);
      await dueNow(deliveryId!);
      expect(await worker().runOnce()).toEqual(['delivered']);
      const [first, second] = receiver.requests.slice(before);

      const hooks = service();
      const page = (await hooks.attempts(caller, hook.id, deliveryId!, { limit: 50 })).toJSON();
      expect(page.next_cursor).toBeNull();
      expect(page.attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
        [2, 204, null],
        [1, 500, 'http_status'],
      ]);
      const signed = ['content-type', 'sigil-signature', 'sigil-event-id', 'sigil-delivery-id', 'webhook-signature'];
      const pick = (h: Record<string, unknown>) => Object.fromEntries(signed.map((k) => [k, h[k]]));
      expect(pick(lower(page.attempts[0]!.headers))).toEqual(pick(second!.headers));
      expect(pick(lower(page.attempts[1]!.headers))).toEqual(pick(first!.headers));
      for (const a of page.attempts) {
        expect(a.duration_ms).toBeGreaterThanOrEqual(0);
        expect(JSON.stringify(a.headers)).not.toContain(hook.secret);
      }
      expect(page.attempts[0]!.attempted_at).toBeGreaterThanOrEqual(page.attempts[1]!.attempted_at);

      const detail = (await hooks.deliveryDetail(caller, hook.id, deliveryId!)).toJSON();
      expect(Buffer.from(detail.body, 'utf8').equals(second!.body)).toBe(true);
      expect(detail.headers).toEqual(page.attempts[0]!.headers);
      expect(detail.delivery).toMatchObject({ id: deliveryId, status: 'delivered', attempts: 2, last_status: 204 });

      // Redeliver: attempts count from one again; the history keeps all three.
      await hooks.redeliver(caller, hook.id, deliveryId!);
      expect(await worker().runOnce()).toEqual(['delivered']);
      const all = (await hooks.attempts(caller, hook.id, deliveryId!, { limit: 2 })).toJSON();
      expect(all.attempts.map((a) => a.attempt)).toEqual([1, 2]);
      const rest = (
        await hooks.attempts(caller, hook.id, deliveryId!, { limit: 2, cursor: all.next_cursor! })
      ).toJSON();
      expect(rest).toMatchObject({ next_cursor: null });
      expect(rest.attempts.map((a) => a.attempt)).toEqual([1]);
    });

    it('detail and attempt pages are served as stored, byte for byte what validating and serializing them gave', async () => {
      const hook = await seedWebhook(ctx.db, url());
      const [deliveryId] = await queueEvents(ctx.db, hook.id, 1);
      answers = [500, 502];
      for (const outcome of ['retry', 'retry', 'delivered']) {
        expect(await worker().runOnce()).toEqual([outcome]);
        await dueNow(deliveryId!);
      }
      const hooks = service();
      // The former answers: the route's output parser over the value, then JSON.stringify.
      const former = (schema: { parse(v: unknown): unknown }, stored: { toJSON(): unknown }) =>
        JSON.stringify(schema.parse(stored.toJSON()));
      const detail = await hooks.deliveryDetail(caller, hook.id, deliveryId!);
      expect(detail.text).toBe(former(DeliveryDetailSchema, detail));
      const pages = [await hooks.attempts(caller, hook.id, deliveryId!, { limit: 2 })];
      pages.push(
        await hooks.attempts(caller, hook.id, deliveryId!, { limit: 2, cursor: pages[0]!.toJSON().next_cursor! }),
      );
      for (const page of pages) expect(page.text).toBe(former(AttemptPageSchema, page));
      expect(pages.flatMap((p) => p.toJSON().attempts.map((a) => a.status))).toEqual([204, 502, 500]);
      expect(detail.bytes().equals(Buffer.from(detail.text))).toBe(true);
    });

    it('before the first attempt: no headers, no attempts; unknown delivery and bad cursors are refused', async () => {
      const hook = await seedWebhook(ctx.db, url());
      const [deliveryId] = await queueEvents(ctx.db, hook.id, 1);
      const hooks = service();
      const detail = (await hooks.deliveryDetail(caller, hook.id, deliveryId!)).toJSON();
      expect(detail.headers).toBeNull();
      expect(PayEventSchema.parse(JSON.parse(detail.body)).type).toBe('payment.received');
      expect((await hooks.attempts(caller, hook.id, deliveryId!, { limit: 50 })).toJSON()).toEqual({
        attempts: [],
        next_cursor: null,
      });
      await expect(hooks.deliveryDetail(caller, hook.id, 'whdel_nope')).rejects.toMatchObject({
        code: 'DELIVERY_NOT_FOUND',
      });
      await expect(hooks.attempts(caller, hook.id, deliveryId!, { limit: 5, cursor: 'x' })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
      await expect(hooks.deliveryPage(caller, hook.id, { limit: 5, cursor: '1.nope' })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
      // Another account's webhook looks missing.
      await expect(
        hooks.deliveryDetail({ ...caller, account: 'acct_other' }, hook.id, deliveryId!),
      ).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
    });

    it('deleting the webhook removes its deliveries’ attempts too', async () => {
      const hook = await seedWebhook(ctx.db, url());
      await queueEvents(ctx.db, hook.id, 1);
      expect(await worker().runOnce()).toEqual(['delivered']);
      await service().remove(caller, hook.id);
      const left = await ctx.db.selectFrom('webhook_attempts').select('id').execute();
      expect(left).toEqual([]);
    });
  });

  describe('delivery log pages', () => {
    it('newest first, by cursor, filtered by status and event type', async () => {
      const hook = await seedWebhook(ctx.db, url());
      const ids = await queueEvents(ctx.db, hook.id, 5, Date.now() + 60_000); // not due: stays pending
      await ctx.db
        .updateTable('webhook_deliveries')
        .set({ status: 'dead', next_attempt_at: null })
        .where('id', 'in', [ids[1]!, ids[3]!])
        .execute();
      const hooks = service();
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await hooks.deliveryPage(caller, hook.id, { limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.deliveries.length).toBeLessThanOrEqual(2);
        seen.push(...page.deliveries.map((d) => d.id));
        if (page.next_cursor === null) break;
        cursor = page.next_cursor;
      }
      expect(seen).toEqual([...ids].reverse());
      const dead = await hooks.deliveryPage(caller, hook.id, { limit: 50, status: 'dead' });
      expect(dead.deliveries.map((d) => d.id)).toEqual([ids[3], ids[1]]);
      const pending = await hooks.deliveryPage(caller, hook.id, { limit: 1, status: 'pending' });
      expect(pending.deliveries.map((d) => d.id)).toEqual([ids[4]]);
      expect(pending.next_cursor).not.toBeNull();
      const byType = await hooks.deliveryPage(caller, hook.id, { limit: 50, event_type: 'payment.received' });
      expect(byType.deliveries).toHaveLength(5);
      const none = await hooks.deliveryPage(caller, hook.id, { limit: 50, event_type: 'invoice.paid' });
      expect(none).toEqual({ deliveries: [], next_cursor: null });
    });
  });

  describe('disable and enable', () => {
    it('a disabled webhook gets no deliveries; resume does not lift it, enable does; enable of an active one is NOT_DISABLED', async () => {
      const hook = await seedWebhook(ctx.db, url());
      const hooks = service();
      const disabled = await hooks.disable(caller, hook.id);
      expect(disabled).toMatchObject({ status: 'paused', paused_reason: DISABLED_REASON });
      expect(DISABLED_REASON).toBe('disabled: by the owner');
      // Disabling again changes nothing.
      expect(await hooks.disable(caller, hook.id)).toMatchObject({ paused_reason: DISABLED_REASON });
      const [deliveryId] = await queueEvents(ctx.db, hook.id, 1);
      expect(await worker().runOnce()).toEqual([]);
      await expect(hooks.resume(caller, hook.id)).rejects.toMatchObject({ code: 'NOT_RESUMABLE' });
      expect(await hooks.enable(caller, hook.id)).toMatchObject({ status: 'active', paused_reason: null });
      expect(await worker().runOnce()).toEqual(['delivered']);
      expect((await hooks.deliveryDetail(caller, hook.id, deliveryId!)).toJSON().delivery.status).toBe('delivered');
      await expect(hooks.enable(caller, hook.id)).rejects.toMatchObject({
        code: 'NOT_DISABLED',
        message: 'webhook is active, not disabled',
      });
    });

    it('disable overrides an auto-pause (enable then reactivates); a scope-changed webhook stays as it is', async () => {
      const hook = await seedWebhook(ctx.db, url());
      const hooks = service();
      const pause = (reason: string) =>
        ctx.db
          .updateTable('webhook_subscriptions')
          .set({ status: 'paused', paused_reason: reason, consecutive_dead: 50 })
          .where('id', '=', hook.id)
          .execute();
      await pause('auto-paused: 50 consecutive deliveries dead-lettered');
      await expect(hooks.enable(caller, hook.id)).rejects.toMatchObject({
        code: 'NOT_DISABLED',
        message: 'webhook is auto-paused, not disabled',
      });
      expect(await hooks.disable(caller, hook.id)).toMatchObject({ paused_reason: DISABLED_REASON });
      expect(await hooks.enable(caller, hook.id)).toMatchObject({ status: 'active' });
      const row = await ctx.db
        .selectFrom('webhook_subscriptions')
        .select('consecutive_dead')
        .where('id', '=', hook.id)
        .executeTakeFirstOrThrow();
      expect(Number(row.consecutive_dead)).toBe(0);

      await pause('scope_changed: @x changed owner');
      expect(await hooks.disable(caller, hook.id)).toMatchObject({
        status: 'paused',
        paused_reason: 'scope_changed: @x changed owner',
      });
      await expect(hooks.enable(caller, hook.id)).rejects.toMatchObject({ code: 'NOT_DISABLED' });
    });
  });

  describe('edits and test events', () => {
    it('description and event types are stored normalized; an unknown type is INVALID_EVENT_TYPES', async () => {
      const hook = await seedWebhook(ctx.db, url());
      const hooks = service();
      const edited = await hooks.update(caller, hook.id, {
        description: 'shop',
        event_types: ['invoice', 'payment.received'],
      });
      expect(edited).toMatchObject({
        description: 'shop',
        event_types: ['payment.received', 'invoice.paid', 'invoice.created', 'invoice.cancelled', 'invoice.closed'],
      });
      expect(await hooks.update(caller, hook.id, { description: '  ' })).toMatchObject({ description: null });
      await expect(hooks.update(caller, hook.id, { event_types: ['payment.nope'] })).rejects.toMatchObject({
        code: 'INVALID_EVENT_TYPES',
      });
      await expect(
        hooks.update({ ...caller, account: 'acct_other' }, hook.id, { description: 'x' }),
      ).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
    });

    it('a test event of a chosen type is that type’s example for this webhook’s wallet, test: true, schema-valid', async () => {
      const hook = await seedWebhook(ctx.db, url());
      const hooks = service();
      const queued = await hooks.sendTest(caller, hook.id, 'invoice.closed');
      expect(queued).toMatchObject({ event_type: 'invoice.closed', test: true, status: 'pending' });
      const detail = (await hooks.deliveryDetail(caller, hook.id, queued.id)).toJSON();
      const event = PayEventSchema.parse(JSON.parse(detail.body));
      expect(event).toMatchObject({
        type: 'invoice.closed',
        test: true,
        chain: { slot: 0, signature: '1'.repeat(64) },
      });
      expect((event as { invoice: { payee: string } }).invoice.payee).toBe(
        '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
      );
      await expect(hooks.sendTest(caller, hook.id, 'handle.registered')).rejects.toMatchObject({
        code: 'INVALID_EVENT_TYPES',
      });
    });
  });
});

const lower = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
