// Usage history over real HTTP: a signed-in wallet's key makes calls that end served, 4xx and 429; the portal
// route reads them back per key and per account, zero-filled; the shared session auth suite covers the route.
import { describe, expect, it } from 'vitest';
import { apiKeyAuthSuite, portalSessionAuthSuite } from '@sigil/test/support/auth-suite';
import { portalSession, sessionsOf, show } from '@sigil/test/support/connect-world';
import { useScenarioApp } from '@sigil/test/support/scenario-app';
import { awayFromMinuteEdge, setUsage } from '@sigil/test/support/ratelimit-usage';
import { demoWallet } from '../../localchain/scenario';

const t = useScenarioApp();

describe('usage history', () => {
  it("counts a key's calls by outcome and answers them per key and per account", async () => {
    const grace = await demoWallet('grace');
    const { token } = await portalSession(t.app, grace);
    const created = await t.app.call('POST', '/v1/keys', { bearer: token, body: { name: 'charts' } });
    expect(created.status, show(created)).toBe(201);
    const { key, secret } = created.body;

    const served = await t.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: grace.address } });
    expect(served.status, show(served)).toBe(200);
    const badRequest = await t.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: 'nope' } });
    expect(badRequest.status, show(badRequest)).toBe(400);
    await awayFromMinuteEdge(2_000);
    await setUsage(t.app.database.db, key.id, { minute: 300, day: 300 });
    const limited = await t.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: grace.address } });
    expect(limited.status, show(limited)).toBe(429);
    // An unknown key identifies no one: not counted.
    const unknown = await t.app.call('POST', '/v1/auth/challenge', { key: 'sigil_sk_unknown', body: {} });
    expect(unknown.status, show(unknown)).toBe(401);

    const perKey = await t.app.call('GET', `/v1/usage/history?range=1h&key_id=${key.id}`, { bearer: token });
    expect(perKey.status, show(perKey)).toBe(200);
    expect(perKey.body).toMatchObject({ range: '1h', key_id: key.id, bucket_ms: 60_000 });
    expect(perKey.body.limits).toStrictEqual({ minute: 300, day: 15_000 });
    expect(perKey.body.buckets).toHaveLength(60);
    const total = (field: string) => perKey.body.buckets.reduce((n: number, b: any) => n + b[field], 0);
    expect([
      total('served'),
      total('client_error'),
      total('rate_limited'),
      total('server_error'),
      total('paid'),
    ]).toStrictEqual([1, 1, 1, 0, 0]);

    const account = await t.app.call('GET', '/v1/usage/history', { bearer: token });
    expect(account.status, show(account)).toBe(200);
    expect(account.body).toMatchObject({ range: '24h', key_id: null, bucket_ms: 3_600_000 });
    expect(account.body.buckets).toHaveLength(24);
    const last = account.body.buckets[23];
    expect(last.start).toBe(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    expect([last.served, last.client_error, last.rate_limited]).toStrictEqual([1, 1, 1]);

    // Over tRPC too (the portal's face).
    const input = encodeURIComponent(JSON.stringify({ range: '7d', key_id: key.id }));
    const trpc = await t.app.call('GET', `/trpc/usageHistory.history?input=${input}`, { bearer: token });
    expect(trpc.status, show(trpc)).toBe(200);
    expect(trpc.body.result.data.buckets).toHaveLength(168);
  });

  it('refuses a key of another account (404 KEY_NOT_FOUND) and an unknown range (400 BAD_REQUEST)', async () => {
    const { token } = await portalSession(t.app, await demoWallet('grace'));
    const other = await t.app.call('GET', `/v1/usage/history?key_id=${t.app.key.key.id}`, { bearer: token });
    expect(other.status, show(other)).toBe(404);
    expect(other.body).toStrictEqual({ code: 'KEY_NOT_FOUND', message: `no key ${t.app.key.key.id} in your account` });
    const range = await t.app.call('GET', '/v1/usage/history?range=2w', { bearer: token });
    expect(range.status, show(range)).toBe(400);
    expect(range.body.code).toBe('BAD_REQUEST');
  });
});

describe('request log', () => {
  it("lists a key's requests newest first with their route template, status and X-Request-Id; filters and pages", async () => {
    const frank = await demoWallet('frank');
    const { token } = await portalSession(t.app, frank);
    const created = await t.app.call('POST', '/v1/keys', { bearer: token, body: { name: 'log' } });
    expect(created.status, show(created)).toBe(201);
    const { key, secret } = created.body;
    const served = await t.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: frank.address } });
    expect(served.status, show(served)).toBe(200);
    const refused = await t.app.call('GET', '/v1/resolve/a..b', { key: secret });
    expect(refused.status, show(refused)).toBe(400);

    const log = await t.app.call('GET', `/v1/usage/requests?key_id=${key.id}`, { bearer: token });
    expect(log.status, show(log)).toBe(200);
    expect(log.body.next_before).toBeNull();
    expect(
      log.body.requests.map((r: any) => [r.method, r.route, r.status, r.request_id, r.key_id, r.kind]),
    ).toStrictEqual([
      ['GET', '/v1/resolve/{name}', 400, refused.headers.get('x-request-id'), key.id, 'keyed'],
      ['POST', '/v1/auth/challenge', 200, served.headers.get('x-request-id'), key.id, 'keyed'],
    ]);
    expect(log.body.requests[0].latency_ms).toBeGreaterThan(0);

    const byId = await t.app.call('GET', `/v1/usage/requests?request_id=${served.headers.get('x-request-id')}`, {
      bearer: token,
    });
    expect(byId.body.requests.map((r: any) => r.status)).toStrictEqual([200]);
    const clientErrors = await t.app.call('GET', `/v1/usage/requests?key_id=${key.id}&status=4xx`, { bearer: token });
    expect(clientErrors.body.requests.map((r: any) => r.status)).toStrictEqual([400]);
    const paged = await t.app.call('GET', `/v1/usage/requests?key_id=${key.id}&limit=1`, { bearer: token });
    expect(paged.body.requests.map((r: any) => r.status)).toStrictEqual([400]);
    const next = await t.app.call(
      'GET',
      `/v1/usage/requests?key_id=${key.id}&limit=1&before=${encodeURIComponent(paged.body.next_before)}`,
      { bearer: token },
    );
    expect(next.body.requests.map((r: any) => r.status)).toStrictEqual([200]);
  });

  it("refuses another account's key (404 KEY_NOT_FOUND), a bad status class, cursor or limit (400)", async () => {
    const { token } = await portalSession(t.app, await demoWallet('frank'));
    const other = await t.app.call('GET', `/v1/usage/requests?key_id=${t.app.key.key.id}`, { bearer: token });
    expect(other.status, show(other)).toBe(404);
    expect(other.body).toStrictEqual({ code: 'KEY_NOT_FOUND', message: `no key ${t.app.key.key.id} in your account` });
    for (const query of ['status=6xx', 'before=yesterday', 'limit=0', 'limit=101', 'request_id=%20x']) {
      const bad = await t.app.call('GET', `/v1/usage/requests?${query}`, { bearer: token });
      expect(bad.status, `${query}: ${show(bad)}`).toBe(400);
      expect(bad.body.code).toBe('BAD_REQUEST');
    }
  });
});

describe("a key's own history (X-API-Key)", () => {
  it('answers the calling key’s buckets; the read itself is counted like any keyed request', async () => {
    const { secret, key } = await (async () => {
      const { token } = await portalSession(t.app, await demoWallet('erin'));
      return (await t.app.call('POST', '/v1/keys', { bearer: token, body: { name: 'own' } })).body;
    })();
    for (let i = 0; i < 2; i++) {
      const res = await t.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: key.id } });
      expect(res.status, show(res)).toBe(400);
    }
    const first = await t.app.call('GET', '/v1/usage/history/key?range=1h', { key: secret });
    expect(first.status, show(first)).toBe(200);
    expect(first.body).toMatchObject({ range: '1h', key_id: key.id, bucket_ms: 60_000 });
    const sum = (body: any, field: string) => body.buckets.reduce((n: number, b: any) => n + b[field], 0);
    expect([sum(first.body, 'served'), sum(first.body, 'client_error')]).toStrictEqual([0, 2]);
    const second = await t.app.call('GET', '/v1/usage/history/key', { key: secret });
    expect(second.body).toMatchObject({ range: '24h', key_id: key.id });
    expect([sum(second.body, 'served'), sum(second.body, 'client_error')]).toStrictEqual([1, 2]);
    const badRange = await t.app.call('GET', '/v1/usage/history/key?range=2w', { key: secret });
    expect(badRange.status, show(badRange)).toBe(400);
    expect(badRange.body.code).toBe('BAD_REQUEST');
  });

  apiKeyAuthSuite(
    'GET /v1/usage/history/key',
    () => t.app,
    (a, auth) => a.call('GET', '/v1/usage/history/key', auth),
  );
});

describe('shared session auth suite', () => {
  const sessions = sessionsOf(() => demoWallet('heidi'));
  portalSessionAuthSuite(
    'GET /v1/usage/history',
    () => t.app,
    (a, auth) => a.call('GET', '/v1/usage/history?range=1h', auth),
    sessions,
  );
  portalSessionAuthSuite(
    'GET /v1/usage/requests',
    () => t.app,
    (a, auth) => a.call('GET', '/v1/usage/requests', auth),
    sessions,
  );
});
