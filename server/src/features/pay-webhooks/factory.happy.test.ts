// createPayWebhooksService binds the db and the registration deps: one call per verb, each checked against the
// module function it delegates to; the two verbs that queue a delivery wake the delivery worker, once each.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AUTO_PAUSED_PREFIX, parseWebhookChallengeRequest } from '@sigil/contract/webhooks';
import { freshDatabase, type FreshDatabase } from '@sigil/test/support/db';
import { listDeliveries, ownRow } from '../webhooks/index';
import { createPayWebhooksService, type WebhookCaller } from './service';
import { payWebhookStream, toWebhook } from './stream';
import { signRaw, useRegistrationWorld } from '@sigil/test/support/webhooks-world';

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
  const queued = { notify: () => void wakeUps++, listen: () => () => {} };
  const hooks = createPayWebhooksService({ db, ...world.deps, allowLoopback: false, enabled: true, queued });

  const request = parseWebhookChallengeRequest({ scope: world.merchant.address, url: 'https://shop.example.com/h' });
  const challenge = await hooks.issueChallenge(me, request);
  const signature = await signRaw(world.merchant, challenge.message);
  const created = await hooks.register(me, { nonce: challenge.nonce, signature });
  expect(created.secret).toMatch(/^whsec_/);
  const fetched = toWebhook(await ownRow(db, payWebhookStream, me, created.id));
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
  expect(await hooks.deliveries(me, created.id)).toStrictEqual(
    await listDeliveries(db, payWebhookStream, me, created.id),
  );
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
  await expect(ownRow(db, payWebhookStream, me, created.id)).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
  expect(await hooks.list(me)).toStrictEqual({ webhooks: [] });
});

it('a deployment that turned pay webhooks off answers PAY_WEBHOOKS_DISABLED on every verb and queues nothing', async () => {
  let wakeUps = 0;
  const queued = { notify: () => void wakeUps++, listen: () => () => {} };
  const off = createPayWebhooksService({
    db: database.db,
    ...world.deps,
    allowLoopback: false,
    enabled: false,
    queued,
  });
  expect(off.enabled).toBe(false);
  const calls = [
    off.issueChallenge(
      me,
      parseWebhookChallengeRequest({ scope: world.merchant.address, url: 'https://shop.example.com/h' }),
    ),
    off.register(me, { nonce: 'n', signature: 's' }),
    off.list(me),
    off.get(me, 'whsub_x'),
    off.deliveries(me, 'whsub_x'),
    off.rotateSecret(me, 'whsub_x'),
    off.resume(me, 'whsub_x'),
    off.remove(me, 'whsub_x'),
    off.redeliver(me, 'whsub_x', 'whdel_x'),
    off.sendTest(me, 'whsub_x'),
  ];
  for (const call of calls) await expect(call).rejects.toMatchObject({ code: 'PAY_WEBHOOKS_DISABLED', status: 503 });
  expect(wakeUps).toBe(0);
});
