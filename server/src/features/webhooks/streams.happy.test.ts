// Streams are switched alone: the delivery worker sends only the deliveries of the streams it is given, and a
// stream's service turned off answers its own code on every management verb while the other stream works. The
// bodies of one batch come from each delivery's own stream. Both dialects, a real local HTTPS receiver.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { seedWebhook } from '@sigil/test/support/webhooks-world';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/client';
import { createIdentityEventsService, identityWebhookStream } from '../identity-events/index';
import { createPayWebhooksService, payWebhookStream } from '../pay-webhooks/index';
import { createQueueSignal, newSubscriptionRow, newWebhookSecret, startDeliveryWorker } from './index';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/index';

let client: OutboundClient;
let receiver: HttpsReceiver;
beforeAll(async () => {
  client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert, timeoutMs: 2000 });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(204).end());
});
afterAll(async () => {
  await client.close?.();
  await receiver?.close();
});

const url = () => `https://127.0.0.1:${receiver.port}/hook`;
const caller = { keyId: 'key_streams', account: 'acct_streams' };

async function seedIdentityWebhook(db: Kysely<Database>): Promise<string> {
  const row = newSubscriptionRow(Date.now(), {
    account: caller.account,
    key_id: caller.keyId,
    scope_type: 'registry',
    scope_value: '*',
    url: url(),
    event_types: JSON.stringify(['*']),
    description: null,
    secret: newWebhookSecret(),
    stream: 'identity',
    watch_from_sequence: 1,
  });
  await db.insertInto('webhook_subscriptions').values(row).execute();
  return row.id;
}

describeEachDialect('webhook streams, switched alone', (ctx) => {
  beforeEach(async () => {
    await ctx.db.deleteFrom('webhook_deliveries').execute();
    await ctx.db.deleteFrom('webhook_subscriptions').execute();
  });

  const services = (on: { pay: boolean; identity: boolean }) => {
    const queued = createQueueSignal();
    const base = { db: ctx.db, allowLoopback: true, queued };
    return {
      pay: createPayWebhooksService({ ...base, chain: {} as never, enabled: on.pay }),
      identity: createIdentityEventsService({ ...base, enabled: on.identity }),
    };
  };

  it('a worker given one stream sends only its deliveries; the other stream waits, pending, for its own worker', async () => {
    const pay = await seedWebhook(ctx.db, url(), { account: caller.account });
    const identity = await seedIdentityWebhook(ctx.db);
    const { pay: payHooks, identity: identityHooks } = services({ pay: true, identity: true });
    const payTest = await payHooks.sendTest(caller, pay.id);
    const identityTest = await identityHooks.sendTest(caller, identity);

    const before = receiver.requests.length;
    const payOnly = startDeliveryWorker({ db: ctx.db, client, streams: [payWebhookStream] }, { loop: false });
    expect(await payOnly.runOnce()).toEqual(['delivered']);
    const sent = receiver.requests.slice(before);
    expect(sent.map((r) => r.headers['sigil-delivery-id'])).toEqual([payTest.id]);
    expect(sent[0]!.headers['sigil-event-type']).toBe('payment.received');
    expect((await identityHooks.deliveries(caller, identity)).deliveries[0]).toMatchObject({
      id: identityTest.id,
      status: 'pending',
      attempts: 0,
    });

    const identityOnly = startDeliveryWorker({ db: ctx.db, client, streams: [identityWebhookStream] }, { loop: false });
    expect(await identityOnly.runOnce()).toEqual(['delivered']);
    const last = receiver.requests[receiver.requests.length - 1]!;
    expect(last.headers['sigil-delivery-id']).toBe(identityTest.id);
    expect(last.headers['sigil-event-type']).toBe('handle.registered');
    expect(JSON.parse(last.body.toString('utf8'))).toMatchObject({
      type: 'handle.registered',
      test: true,
      sequence: 0,
    });
  });

  it('one batch of both streams: each body comes from its own stream', async () => {
    const pay = await seedWebhook(ctx.db, url(), { account: caller.account });
    const identity = await seedIdentityWebhook(ctx.db);
    const { pay: payHooks, identity: identityHooks } = services({ pay: true, identity: true });
    const ids = [(await payHooks.sendTest(caller, pay.id)).id, (await identityHooks.sendTest(caller, identity)).id];
    const before = receiver.requests.length;
    const both = startDeliveryWorker(
      { db: ctx.db, client, streams: [payWebhookStream, identityWebhookStream] },
      { loop: false },
    );
    expect(await both.runOnce()).toEqual(['delivered', 'delivered']);
    const types = Object.fromEntries(
      receiver.requests
        .slice(before)
        .map((r) => [r.headers['sigil-delivery-id'], JSON.parse(r.body.toString('utf8')).type as string]),
    );
    expect(types).toEqual({ [ids[0]!]: 'payment.received', [ids[1]!]: 'handle.registered' });
  });

  it('identity off: every identity webhook verb answers 503 IDENTITY_WEBHOOKS_DISABLED; pay still works; the log serves', async () => {
    const pay = await seedWebhook(ctx.db, url(), { account: caller.account });
    const identity = await seedIdentityWebhook(ctx.db);
    const { pay: payHooks, identity: off } = services({ pay: true, identity: false });
    const partner = { ...caller, tier: 'partner' as const };
    const calls = [
      off.create(partner, { scope: '*', url: url() }),
      off.list(caller),
      off.get(caller, identity),
      off.deliveries(caller, identity),
      off.rotateSecret(caller, identity),
      off.resume(caller, identity),
      off.remove(caller, identity),
      off.redeliver(caller, identity, 'whdel_x'),
      off.sendTest(caller, identity),
      off.recover(caller, identity, { since: 0 }),
    ];
    for (const call of calls)
      await expect(call).rejects.toMatchObject({ code: 'IDENTITY_WEBHOOKS_DISABLED', status: 503 });
    expect(await ctx.db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
    expect((await off.events({ limit: 10 })).events).toEqual([]);
    expect((await payHooks.list(caller)).webhooks.map((w) => w.id)).toEqual([pay.id]);
  });

  it('pay off: every pay verb answers PAY_WEBHOOKS_DISABLED; identity webhooks work', async () => {
    const pay = await seedWebhook(ctx.db, url(), { account: caller.account });
    const identity = await seedIdentityWebhook(ctx.db);
    const { pay: off, identity: identityHooks } = services({ pay: false, identity: true });
    await expect(off.list(caller)).rejects.toMatchObject({ code: 'PAY_WEBHOOKS_DISABLED', status: 503 });
    await expect(off.sendTest(caller, pay.id)).rejects.toMatchObject({ code: 'PAY_WEBHOOKS_DISABLED' });
    expect((await identityHooks.list(caller)).webhooks.map((w) => w.id)).toEqual([identity]);
    expect(await identityHooks.sendTest(caller, identity)).toMatchObject({ status: 'pending', test: true });
  });
});
