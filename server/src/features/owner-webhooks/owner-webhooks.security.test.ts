// Who may manage which webhooks through the session routes: only the owner of an active key, only the webhooks of
// that key's account; every route refuses another owner's key (404 KEY_NOT_FOUND, told apart from nothing) and a
// revoked key; another account's webhook looks missing; only portal sessions open the routes; a disabled webhook
// gets nothing queued. The X-API-Key routes are unchanged beside them.
import { describe, expect, it } from 'vitest';
import { portalSessionAuthSuite } from '@sigil/test/support/auth-suite';
import { portalSession, sessionsOf, show } from '@sigil/test/support/connect-world';
import type { KeyedResponse } from '@sigil/test/support/keyed-app';
import { useOwnerWebhooksWorld, type Owner } from '@sigil/test/support/owner-webhooks';
import { demoWallet } from '../../localchain/scenario';

const w = useOwnerWebhooksWorld();

/** Every session route under /v1/keys/{id}, with a body it would accept from the owner. */
const ROUTES = (hook: string, delivery: string): [string, string, unknown?][] => [
  ['GET', '/webhooks/pay'],
  ['POST', '/webhooks/pay/challenge', { scope: '@alice', url: w.url() }],
  ['POST', '/webhooks/pay', { nonce: 'n', signature: 's' }],
  ['POST', '/webhooks/identity', { scope: '@alice', url: w.url() }],
  ['GET', `/webhooks/pay/${hook}`],
  ['PATCH', `/webhooks/pay/${hook}`, { description: 'mine now' }],
  ['DELETE', `/webhooks/pay/${hook}`],
  ['POST', `/webhooks/pay/${hook}/challenge`, { url: w.url('/x') }],
  ['POST', `/webhooks/pay/${hook}/disable`],
  ['POST', `/webhooks/pay/${hook}/enable`],
  ['POST', `/webhooks/pay/${hook}/resume`],
  ['POST', `/webhooks/pay/${hook}/rotate-secret`],
  ['POST', `/webhooks/pay/${hook}/test`, { type: 'payment.received' }],
  ['GET', `/webhooks/pay/${hook}/deliveries`],
  ['GET', `/webhooks/pay/${hook}/deliveries/${delivery}`],
  ['GET', `/webhooks/pay/${hook}/deliveries/${delivery}/attempts`],
  ['POST', `/webhooks/pay/${hook}/deliveries/${delivery}/redeliver`],
];

const refused = (res: KeyedResponse, status: number, code: string) => {
  expect(res.status, show(res)).toBe(status);
  expect(res.body.code, show(res)).toBe(code);
};

describe('ownership', () => {
  it("another owner's key → 404 KEY_NOT_FOUND on every route, and the webhook is untouched", async () => {
    const { grace, ivan } = w;
    const hook = await w.registerPay(grace, { description: 'grace' });
    const test = await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/test`, { type: 'payment.received' });
    for (const [method, path, body] of ROUTES(hook.id, test.body.id)) {
      const res = await w.call(grace, method, path, body, ivan); // grace's key id, ivan's session
      expect([res.status, res.body.code], `${method} ${path}: ${show(res)}`).toEqual([404, 'KEY_NOT_FOUND']);
    }
    const after = await w.call(grace, 'GET', `/webhooks/pay/${hook.id}`);
    expect(after.body).toMatchObject({ description: 'grace', state: 'active', url: w.url() });
  });

  it("another account's webhook through one's own key → 404 WEBHOOK_NOT_FOUND / empty lists", async () => {
    const { grace, ivan } = w;
    const hook = await w.registerPay(grace);
    const test = await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/test`, { type: 'payment.received' });
    for (const [method, path, body] of ROUTES(hook.id, test.body.id)) {
      if (!path.includes(hook.id)) continue;
      const res = await w.call(ivan, method, path, body);
      expect([res.status, res.body.code], `${method} ${path}: ${show(res)}`).toEqual([404, 'WEBHOOK_NOT_FOUND']);
    }
    const listed = await w.call(ivan, 'GET', '/webhooks/pay');
    expect(listed.body.webhooks.map((h: { id: string }) => h.id)).not.toContain(hook.id);
    // The pay and identity streams do not see each other's ids either.
    refused(await w.call(grace, 'GET', `/webhooks/identity/${hook.id}`), 404, 'WEBHOOK_NOT_FOUND');
  });

  it("a challenge issued to another owner's key cannot change this owner's webhook", async () => {
    const { grace, ivan } = w;
    const mine = await w.registerPay(grace);
    const theirs = await w.registerPay(ivan);
    const forIvan = await w.signedUrlChange(ivan, theirs.id, w.url('/i'));
    refused(await w.call(grace, 'PATCH', `/webhooks/pay/${mine.id}`, forIvan), 400, 'CHALLENGE_INVALID');
  });

  it('a revoked key → 404 KEY_NOT_FOUND; the account’s webhooks stay manageable through another active key', async () => {
    const wallet = await demoWallet('judy');
    const { token } = await portalSession(w.env.app, wallet);
    const make = async () =>
      (await w.env.app.call('POST', '/v1/keys', { bearer: token, body: {} })).body as {
        key: { id: string };
        secret: string;
      };
    const first = await make();
    const second = await make();
    const judy: Owner = { wallet, token, keyId: first.key.id, keySecret: first.secret };
    const hook = await w.registerPay(judy);
    const revoked = await w.env.app.call('DELETE', `/v1/keys/${first.key.id}`, { bearer: token });
    expect(revoked.status, show(revoked)).toBe(200);
    refused(await w.call(judy, 'GET', '/webhooks/pay'), 404, 'KEY_NOT_FOUND');
    const viaSecond = await w.call({ ...judy, keyId: second.key.id }, 'GET', `/webhooks/pay/${hook.id}`);
    expect(viaSecond.status, show(viaSecond)).toBe(200);
  });
});

describe('a disabled webhook gets nothing', () => {
  it('its test event waits pending, unsent, until enabled', async () => {
    const { grace } = w;
    const hook = await w.registerPay(grace, { url: w.url('/disabled') });
    await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/disable`);
    const test = await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/test`, { type: 'payment.received' });
    const workers = w.env.startWorkers();
    try {
      // One full worker pass after the queueing: the claim skips a paused webhook.
      await workers.delivery.runOnce();
      const detail = await w.call(grace, 'GET', `/webhooks/pay/${hook.id}/deliveries/${test.body.id}`);
      expect(detail.body.delivery).toMatchObject({ status: 'pending', attempts: 0 });
      expect(detail.body.headers).toBeNull();
      expect(w.receiver.requests.some((r) => r.url === '/disabled')).toBe(false);
    } finally {
      await workers.stop();
    }
  });
});

describe('only portal sessions open the routes', () => {
  const hookPath = () => `/v1/keys/${w.grace.keyId}/webhooks/pay`;
  portalSessionAuthSuite(
    'GET /v1/keys/{id}/webhooks/{stream}',
    () => w.env.app,
    (a, auth) => a.call('GET', hookPath(), auth),
    sessionsOf(() => demoWallet('grace')),
  );
});
