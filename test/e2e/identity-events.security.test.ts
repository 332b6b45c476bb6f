// Identity routes: the shared X-API-Key auth suite on all eleven (API_KEY_REQUIRED, INVALID_KEY, revoked,
// X-RateLimit-* headers, 429 RATE_LIMITED), and ownership: another account's identity webhook looks exactly like a
// missing one on every id route, and an identity webhook's id is unknown to the pay routes (and the reverse).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { apiKeyAuthSuite } from '../support/auth-suite';
import type { KeyedApp } from '../support/keyed-app';
import { startWebhookApp, type WebhookApp } from '../support/pay-webhooks';

let chain: LocalChain;
let env: WebhookApp;
const url = 'https://hooks.example.com/identity';
const app = (): KeyedApp => env.app;

beforeAll(async () => {
  chain = await startLocalChain({ scenario: false, slotMs: 100 });
  env = await startWebhookApp({ chain, allowLoopback: false });
}, 60_000);

afterAll(async () => {
  await env?.close();
  await chain?.close();
});

describe('identity routes: API key auth', () => {
  const routes: [string, (a: KeyedApp, auth: { key?: string }) => ReturnType<KeyedApp['call']>][] = [
    [
      'POST /v1/identity/webhooks',
      (a, auth) => a.call('POST', '/v1/identity/webhooks', { ...auth, body: { scope: '@alice', url } }),
    ],
    ['GET /v1/identity/webhooks', (a, auth) => a.call('GET', '/v1/identity/webhooks', auth)],
    ['GET /v1/identity/webhooks/{id}', (a, auth) => a.call('GET', '/v1/identity/webhooks/whsub_x', auth)],
    [
      'GET /v1/identity/webhooks/{id}/deliveries',
      (a, auth) => a.call('GET', '/v1/identity/webhooks/whsub_x/deliveries', auth),
    ],
    [
      'POST /v1/identity/webhooks/{id}/rotate-secret',
      (a, auth) => a.call('POST', '/v1/identity/webhooks/whsub_x/rotate-secret', auth),
    ],
    [
      'POST /v1/identity/webhooks/{id}/resume',
      (a, auth) => a.call('POST', '/v1/identity/webhooks/whsub_x/resume', auth),
    ],
    ['DELETE /v1/identity/webhooks/{id}', (a, auth) => a.call('DELETE', '/v1/identity/webhooks/whsub_x', auth)],
    [
      'POST /v1/identity/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      (a, auth) => a.call('POST', '/v1/identity/webhooks/whsub_x/deliveries/whdel_x/redeliver', auth),
    ],
    ['POST /v1/identity/webhooks/{id}/test', (a, auth) => a.call('POST', '/v1/identity/webhooks/whsub_x/test', auth)],
    [
      'POST /v1/identity/webhooks/{id}/recover',
      (a, auth) => a.call('POST', '/v1/identity/webhooks/whsub_x/recover', { ...auth, body: { since: 0 } }),
    ],
    ['GET /v1/identity/events', (a, auth) => a.call('GET', '/v1/identity/events?limit=1', auth)],
  ];
  for (const [route, request] of routes) apiKeyAuthSuite(route, app, request);
});

describe('identity webhooks: ownership', () => {
  it("another account's webhook is WEBHOOK_NOT_FOUND on every id route; pay routes do not know identity ids", async () => {
    const a = app();
    const created = await a.call('POST', '/v1/identity/webhooks', {
      key: a.key.secret,
      body: { scope: '@alice', url },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const other = { key: a.otherKey.secret };
    const attempts: [string, string, unknown?][] = [
      ['GET', `/v1/identity/webhooks/${id}`],
      ['GET', `/v1/identity/webhooks/${id}/deliveries`],
      ['POST', `/v1/identity/webhooks/${id}/rotate-secret`],
      ['POST', `/v1/identity/webhooks/${id}/resume`],
      ['DELETE', `/v1/identity/webhooks/${id}`],
      ['POST', `/v1/identity/webhooks/${id}/test`],
      ['POST', `/v1/identity/webhooks/${id}/recover`, { since: 0 }],
      ['POST', `/v1/identity/webhooks/${id}/deliveries/whdel_x/redeliver`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await a.call(method, path, { ...other, body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
      expect(res.body).toStrictEqual({ code: 'WEBHOOK_NOT_FOUND', message: 'no such webhook on this account' });
    }
    expect((await a.call('GET', '/v1/identity/webhooks', other)).body).toEqual({ webhooks: [] });
    for (const [method, path] of [
      ['GET', `/v1/pay/webhooks/${id}`],
      ['POST', `/v1/pay/webhooks/${id}/rotate-secret`],
      ['DELETE', `/v1/pay/webhooks/${id}`],
    ] as const) {
      const res = await a.call(method, path, { key: a.key.secret });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await a.call('GET', '/v1/pay/webhooks', { key: a.key.secret })).body).toEqual({ webhooks: [] });
    // The owner still has it, untouched.
    const mine = await a.call('GET', `/v1/identity/webhooks/${id}`, { key: a.key.secret });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ id, status: 'active', scope: { type: 'name', value: '@alice' } });
  });
});
