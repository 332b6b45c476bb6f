// Pay webhook routes: the shared X-API-Key auth suite on all eleven (API_KEY_REQUIRED, INVALID_KEY, revoked,
// X-RateLimit-* headers, 429 RATE_LIMITED with Retry-After), plus the feature's own security rules over HTTP:
// a webhook is the account's (another account cannot see, touch or even detect it), a challenge is bound to the
// key it was issued to, secrets only in the 201 and rotate answers, the tRPC face guarded the same way.
import type { KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createKey } from '../../server/src/features/keys/service';
import { signRaw } from '../support/webhooks-world';
import { apiKeyAuthSuite } from '../support/auth-suite';
import type { KeyedApp } from '../support/keyed-app';
import { registerOverHttp, scenarioSigner, startWebhookApp, type WebhookApp } from '../support/pay-webhooks';

let chain: LocalChain;
let env: WebhookApp;
let bob: KeyPairSigner;
const url = 'https://hooks.example.com/pay';

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true, slotMs: 100 });
  env = await startWebhookApp({ chain, allowLoopback: false });
  bob = await scenarioSigner(chain, 'bob');
}, 60_000);

afterAll(async () => {
  await env?.close();
  await chain?.close();
});

const app = (): KeyedApp => env.app;

describe('pay webhook routes: API key auth', () => {
  apiKeyAuthSuite('POST /v1/pay/webhooks/challenge', app, (a, auth) =>
    a.call('POST', '/v1/pay/webhooks/challenge', { ...auth, body: { scope: bob.address, url } }),
  );
  apiKeyAuthSuite('POST /v1/pay/webhooks', app, (a, auth) =>
    a.call('POST', '/v1/pay/webhooks', { ...auth, body: { nonce: 'unknown', signature: '1111' } }),
  );
  apiKeyAuthSuite('GET /v1/pay/webhooks', app, (a, auth) => a.call('GET', '/v1/pay/webhooks', auth));
  apiKeyAuthSuite('GET /v1/pay/webhooks/{id}', app, (a, auth) => a.call('GET', '/v1/pay/webhooks/whsub_x', auth));
  apiKeyAuthSuite('GET /v1/pay/webhooks/{id}/deliveries', app, (a, auth) =>
    a.call('GET', '/v1/pay/webhooks/whsub_x/deliveries?limit=5', auth),
  );
  apiKeyAuthSuite('POST /v1/pay/webhooks/{id}/rotate-secret', app, (a, auth) =>
    a.call('POST', '/v1/pay/webhooks/whsub_x/rotate-secret', auth),
  );
  apiKeyAuthSuite('POST /v1/pay/webhooks/{id}/resume', app, (a, auth) =>
    a.call('POST', '/v1/pay/webhooks/whsub_x/resume', auth),
  );
  apiKeyAuthSuite('DELETE /v1/pay/webhooks/{id}', app, (a, auth) => a.call('DELETE', '/v1/pay/webhooks/whsub_x', auth));
  apiKeyAuthSuite('POST /v1/pay/webhooks/{id}/deliveries/{deliveryId}/redeliver', app, (a, auth) =>
    a.call('POST', '/v1/pay/webhooks/whsub_x/deliveries/whdel_x/redeliver', auth),
  );
  apiKeyAuthSuite('POST /v1/pay/webhooks/{id}/test', app, (a, auth) =>
    a.call('POST', '/v1/pay/webhooks/whsub_x/test', auth),
  );
  apiKeyAuthSuite('POST /v1/pay/webhooks/{id}/recover', app, (a, auth) =>
    a.call('POST', '/v1/pay/webhooks/whsub_x/recover', { ...auth, body: { since: 0 } }),
  );
});

describe('pay webhooks: ownership and secrets', () => {
  it('a webhook belongs to the account: another account sees an empty list and 404 on its id; another key of the same account manages it', async () => {
    const hook = await registerOverHttp(env.app, env.app.key.secret, { scope: bob.address, url }, bob);
    const theirs = await env.app.call('GET', '/v1/pay/webhooks', { key: env.app.otherKey.secret });
    expect(theirs.status).toBe(200);
    expect(theirs.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(hook.id);
    const probe = await env.app.call('GET', `/v1/pay/webhooks/${hook.id}`, { key: env.app.otherKey.secret });
    const missing = await env.app.call('GET', '/v1/pay/webhooks/whsub_doesnotexist', { key: env.app.otherKey.secret });
    // Indistinguishable from an id that does not exist.
    expect([probe.status, probe.body]).toStrictEqual([missing.status, missing.body]);
    expect(probe.body).toStrictEqual({ code: 'WEBHOOK_NOT_FOUND', message: 'no such webhook on this account' });

    const sibling = await createKey(env.app.database.db, { account: env.app.key.key.account, name: 'second' });
    const viaSibling = await env.app.call('GET', `/v1/pay/webhooks/${hook.id}`, { key: sibling.secret });
    expect(viaSibling.status).toBe(200);
    expect(viaSibling.body.id).toBe(hook.id);
  });

  it('a challenge is bound to the key it was issued to, even within the same account', async () => {
    const sibling = await createKey(env.app.database.db, { account: env.app.key.key.account, name: 'third' });
    const c = await env.app.call('POST', '/v1/pay/webhooks/challenge', {
      key: env.app.key.secret,
      body: { scope: bob.address, url },
    });
    expect(c.body.message).toContain(`\nkey: ${env.app.key.key.id}\n`);
    const signature = await signRaw(bob, c.body.message);
    const stolen = await env.app.call('POST', '/v1/pay/webhooks', {
      key: sibling.secret,
      body: { nonce: c.body.nonce, signature },
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body.code).toBe('CHALLENGE_INVALID');
    const own = await env.app.call('POST', '/v1/pay/webhooks', {
      key: env.app.key.secret,
      body: { nonce: c.body.nonce, signature },
    });
    expect(own.status).toBe(201);
  });

  it('the signed message is exactly the sigil-pay-webhook:v1 text for this key, scope, url, events, nonce and expiry', async () => {
    const c = await env.app.call('POST', '/v1/pay/webhooks/challenge', {
      key: env.app.key.secret,
      body: {
        scope: bob.address,
        url: 'https://Hooks.Example.com:443/pay?x=1',
        event_types: ['invoice.*', 'payment.received'],
      },
    });
    expect(c.status).toBe(200);
    const expires = new Date(c.body.expires_at * 1000).toISOString().replace('.000Z', 'Z');
    expect(c.body.message).toBe(
      [
        'sigil-pay-webhook:v1',
        `key: ${env.app.key.key.id}`,
        `scope: ${bob.address}`,
        'url: https://hooks.example.com/pay?x=1',
        'events: payment.received,invoice.paid,invoice.created,invoice.cancelled,invoice.closed',
        `nonce: ${c.body.nonce}`,
        `expires: ${expires}`,
      ].join('\n'),
    );
    expect(c.body.expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(590);
    expect(c.body.expires_at - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(600);
  });

  it('secrets appear only in the 201 and the rotate answer: never in list, get, deliveries, test', async () => {
    const hook = await registerOverHttp(env.app, env.app.key.secret, { scope: bob.address, url }, bob);
    const key = env.app.key.secret;
    for (const [method, path] of [
      ['GET', '/v1/pay/webhooks'],
      ['GET', `/v1/pay/webhooks/${hook.id}`],
      ['POST', `/v1/pay/webhooks/${hook.id}/test`],
      ['GET', `/v1/pay/webhooks/${hook.id}/deliveries`],
    ] as const) {
      const res = await env.app.call(method, path, { key });
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(res.text).not.toContain('whsec_');
      expect(res.text).not.toContain(hook.secret);
    }
  });

  it('the tRPC face is guarded the same way', async () => {
    const res = await fetch(`${env.app.base}/trpc/payWebhooks.list`);
    expect(res.status).toBe(401);
    expect((await res.json()).error.data.errorCode).toBe('API_KEY_REQUIRED');
    const ok = await fetch(`${env.app.base}/trpc/payWebhooks.list?input=%7B%7D`, {
      headers: { 'x-api-key': env.app.key.secret },
    });
    expect(ok.status).toBe(200);
  });
});
