// The two webhook streams are switched alone, over HTTP: with SIGIL_IDENTITY_WEBHOOKS=false every identity webhook
// route answers 503 IDENTITY_WEBHOOKS_DISABLED while the log and the pay routes answer; with SIGIL_PAY_WEBHOOKS=false
// an identity webhook is still created.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import type { KeyedResponse } from '../support/keyed-app';
import { startWebhookApp, type WebhookApp } from '../support/pay-webhooks';

let chain: LocalChain;
let identityOff: WebhookApp;
let payOff: WebhookApp;
const url = 'https://hooks.example.com/identity';
const show = (res: KeyedResponse) => `${res.status} ${res.text}`;

beforeAll(async () => {
  chain = await startLocalChain({ scenario: false, slotMs: 100 });
  identityOff = await startWebhookApp({ chain, allowLoopback: false, env: { SIGIL_IDENTITY_WEBHOOKS: 'false' } });
  payOff = await startWebhookApp({ chain, allowLoopback: false, env: { SIGIL_PAY_WEBHOOKS: 'false' } });
}, 60_000);

afterAll(async () => {
  await identityOff?.close();
  await payOff?.close();
  await chain?.close();
});

it('IDENTITY_WEBHOOKS_DISABLED (503) on every identity webhook route; the log and pay webhooks answer', async () => {
  const { app } = identityOff;
  const key = app.key.secret;
  const calls: [string, string, unknown?][] = [
    ['POST', '/v1/identity/webhooks', { scope: '@alice', url }],
    ['GET', '/v1/identity/webhooks'],
    ['GET', '/v1/identity/webhooks/whsub_x'],
    ['GET', '/v1/identity/webhooks/whsub_x/deliveries'],
    ['POST', '/v1/identity/webhooks/whsub_x/rotate-secret'],
    ['POST', '/v1/identity/webhooks/whsub_x/resume'],
    ['DELETE', '/v1/identity/webhooks/whsub_x'],
    ['POST', '/v1/identity/webhooks/whsub_x/deliveries/whdel_x/redeliver'],
    ['POST', '/v1/identity/webhooks/whsub_x/test'],
    ['POST', '/v1/identity/webhooks/whsub_x/recover', { since: 0 }],
  ];
  for (const [method, path, body] of calls) {
    const res = await app.call(method, path, { key, body });
    expect(res.status, `${method} ${path}: ${show(res)}`).toBe(503);
    expect(res.body).toStrictEqual({
      code: 'IDENTITY_WEBHOOKS_DISABLED',
      message: 'identity webhooks are turned off on this deployment',
    });
  }
  const log = await app.call('GET', '/v1/identity/events', { key });
  expect(log.status, show(log)).toBe(200);
  expect(log.body).toMatchObject({ events: [], has_more: false });
  const pay = await app.call('GET', '/v1/pay/webhooks', { key });
  expect(pay.status, show(pay)).toBe(200);
  expect(pay.body).toStrictEqual({ webhooks: [] });
});

it('SIGIL_PAY_WEBHOOKS=false leaves identity webhooks on', async () => {
  const { app } = payOff;
  const key = app.key.secret;
  const pay = await app.call('GET', '/v1/pay/webhooks', { key });
  expect(pay.status, show(pay)).toBe(503);
  expect(pay.body).toMatchObject({ code: 'PAY_WEBHOOKS_DISABLED' });
  const created = await app.call('POST', '/v1/identity/webhooks', { key, body: { scope: '@alice', url } });
  expect(created.status, show(created)).toBe(201);
  expect(created.body).toMatchObject({ scope: { type: 'name', value: '@alice' }, url, status: 'active' });
  const listed = await app.call('GET', '/v1/identity/webhooks', { key });
  expect(listed.status, show(listed)).toBe(200);
  expect((listed.body as { webhooks: { id: string }[] }).webhooks.map((w) => w.id)).toEqual([
    (created.body as { id: string }).id,
  ]);
});
