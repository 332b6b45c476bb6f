// createPayWebhooksService binds the db and the registration deps: one call per verb, each checked against the
// module function it delegates to; the two verbs that queue a delivery wake the delivery worker, once each.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AUTO_PAUSED_PREFIX } from '@sigil/contract/webhooks';
import { freshDatabase, type FreshDatabase } from '../../../../test/support/db';
import { createPayWebhooksService, getWebhook, listDeliveries, listWebhooks, type WebhookCaller } from './service';
import { signRaw, useRegistrationWorld } from './testing';

const world = useRegistrationWorld('factory');
const me: WebhookCaller = { keyId: 'key_factory', account: 'acct_factory' };

let database: FreshDatabase;
beforeAll(async () => {
  database = await freshDatabase('sqlite');
});
afterAll(() => database?.drop());

it('every verb of createPayWebhooksService acts on its db as the module function of the same rule', async () => {
  const db = database.db;
  let wakeUps = 0;
  const queued = { notify: () => wakeUps++ };
  const hooks = createPayWebhooksService({ db, ...world.deps, allowLoopback: false, queued });

  const request = { scope: world.merchant.address, url: 'https://shop.example.com/h' };
  const challenge = await hooks.issueChallenge(me, request);
  const signature = await signRaw(world.merchant, challenge.message);
  const created = await hooks.register(me, { nonce: challenge.nonce, signature });
  expect(created.secret).toMatch(/^whsec_/);
  const fetched = await getWebhook(db, me, created.id);
  expect(await hooks.get(me, created.id)).toStrictEqual(fetched);
  expect(await hooks.list(me)).toStrictEqual({ webhooks: [fetched] });

  const rotated = await hooks.rotateSecret(me, created.id);
  const stored = await db
    .selectFrom('webhook_subscriptions')
    .select('secret')
    .where('id', '=', created.id)
    .executeTakeFirstOrThrow();
  expect(stored.secret).toBe(rotated.secret);

  const test = await hooks.sendTest(me, created.id);
  expect(test).toMatchObject({ status: 'pending', test: true, webhook_id: created.id });
  expect(wakeUps).toBe(1);
  expect(await hooks.deliveries(me, created.id)).toStrictEqual(await listDeliveries(db, me, created.id));
  expect((await hooks.deliveries(me, created.id, { limit: 1 })).deliveries.map((d) => d.id)).toStrictEqual([test.id]);

  await db.updateTable('webhook_deliveries').set({ status: 'dead', attempts: 6 }).where('id', '=', test.id).execute();
  expect(await hooks.redeliver(me, created.id, test.id)).toMatchObject({ id: test.id, status: 'pending', attempts: 0 });
  expect(wakeUps).toBe(2);
  // A verb that fails queued nothing: no wake-up.
  await expect(hooks.sendTest(me, 'whsub_missing')).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
  expect(wakeUps).toBe(2);

  await db
    .updateTable('webhook_subscriptions')
    .set({ status: 'paused', paused_reason: `${AUTO_PAUSED_PREFIX}50 consecutive deliveries dead-lettered` })
    .where('id', '=', created.id)
    .execute();
  expect(await hooks.resume(me, created.id)).toMatchObject({ status: 'active', paused_reason: null });

  await hooks.remove(me, created.id);
  expect(await listWebhooks(db, me)).toStrictEqual({ webhooks: [] });
});
