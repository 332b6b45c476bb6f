// Portal key management over real HTTP: a wallet signs in through the PORTAL key (audience = portal domain) and
// manages its own keys with the bearer session; the shared session auth suite runs on all four routes.
import { describe, expect, it } from 'vitest';
import { KEY_ID_PATTERN, TIER_LIMITS } from '@sigil/contract/keys';
import { portalSessionAuthSuite } from '@sigil/test/support/auth-suite';
import { useScenarioApp } from '@sigil/test/support/scenario-app';
import { demoWallet } from '../../localchain/scenario';
import { portalSession, sessionsOf, show } from '@sigil/test/support/connect-world';

const t = useScenarioApp();

describe('portal key management', () => {
  it('create → list → use → usage → revoke → the key answers INVALID_KEY', async () => {
    const grace = await demoWallet('grace');
    const { token } = await portalSession(t.app, grace);

    const created = await t.app.call('POST', '/v1/keys', { bearer: token, body: { name: 'backend' } });
    expect(created.status, show(created)).toBe(201);
    const { key, secret } = created.body;
    expect(key.id).toMatch(KEY_ID_PATTERN);
    expect(secret).toMatch(/^sigil_sk_[1-9A-HJ-NP-Za-km-z]{40,50}$/);
    expect(key).toStrictEqual({
      id: key.id,
      name: 'backend',
      tier: 'free',
      prefix: secret.slice(0, 13),
      created_at: key.created_at,
      revoked_at: null,
      last_used_at: null,
    });

    // The new key works as X-API-Key, and its use shows in the list and in usage.
    const used = await t.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: grace.address } });
    expect(used.status, show(used)).toBe(200);
    expect(used.body.audience).toBe(key.id);

    const list = await t.app.call('GET', '/v1/keys', { bearer: token });
    expect(list.status, show(list)).toBe(200);
    expect(list.body.keys).toHaveLength(1);
    expect(list.body.keys[0]).toMatchObject({
      id: key.id,
      tier: 'free',
      revoked_at: null,
      usage: { minute: expect.any(Number), day: 1 },
    });

    const usage = await t.app.call('GET', '/v1/usage', { bearer: token });
    expect(usage.status, show(usage)).toBe(200);
    expect(usage.body).toMatchObject({ tier: 'free', limits: TIER_LIMITS.free, usage: { day: 1 } });
    expect(usage.body.keys.map((k: { id: string }) => k.id)).toStrictEqual([key.id]);

    const revoked = await t.app.call('DELETE', `/v1/keys/${key.id}`, { bearer: token });
    expect(revoked.status, show(revoked)).toBe(200);
    expect(revoked.body.key.revoked_at).toEqual(expect.any(Number));
    const after = await t.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: grace.address } });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('INVALID_KEY');
  });

  it('a caller sees and revokes only its own keys (another account’s key is 404 KEY_NOT_FOUND)', async () => {
    const ivan = await portalSession(t.app, await demoWallet('ivan'));
    const erin = await portalSession(t.app, await demoWallet('erin'));
    const ivansKey = (await t.app.call('POST', '/v1/keys', { bearer: ivan.token, body: {} })).body.key;
    const erinsList = await t.app.call('GET', '/v1/keys', { bearer: erin.token });
    expect(erinsList.body.keys.map((k: { id: string }) => k.id)).not.toContain(ivansKey.id);
    const res = await t.app.call('DELETE', `/v1/keys/${ivansKey.id}`, { bearer: erin.token });
    expect(res.status, show(res)).toBe(404);
    expect(res.body).toStrictEqual({ code: 'KEY_NOT_FOUND', message: `no key ${ivansKey.id} in your account` });
    const stillActive = await t.app.call('GET', '/v1/keys', { bearer: ivan.token });
    expect(stillActive.body.keys.find((k: { id: string }) => k.id === ivansKey.id).revoked_at).toBeNull();
  });

  it('the portal key itself is never listed or revocable by a wallet', async () => {
    const { token } = await portalSession(t.app, await demoWallet('satoshi'));
    const res = await t.app.call('DELETE', `/v1/keys/${t.app.portal.key.id}`, { bearer: token });
    expect(res.status).toBe(404);
  });

  it('renames an own key (null clears the label); another account’s key is 404; a bad name is 400', async () => {
    const ivan = await portalSession(t.app, await demoWallet('ivan'));
    const erin = await portalSession(t.app, await demoWallet('erin'));
    const { key, secret } = (await t.app.call('POST', '/v1/keys', { bearer: ivan.token, body: { name: 'old' } })).body;
    const renamed = await t.app.call('PATCH', `/v1/keys/${key.id}`, {
      bearer: ivan.token,
      body: { name: '  staging ' },
    });
    expect(renamed.status, show(renamed)).toBe(200);
    expect(renamed.body).toStrictEqual({ key: { ...key, name: 'staging' } });
    const cleared = await t.app.call('PATCH', `/v1/keys/${key.id}`, { bearer: ivan.token, body: { name: null } });
    expect(cleared.body.key.name).toBeNull();
    // The secret keeps working: a rename changes only the label.
    const used = await t.app.call('POST', '/v1/auth/challenge', {
      key: secret,
      body: { wallet: (await demoWallet('ivan')).address },
    });
    expect(used.status, show(used)).toBe(200);
    const foreign = await t.app.call('PATCH', `/v1/keys/${key.id}`, { bearer: erin.token, body: { name: 'mine' } });
    expect(foreign.status, show(foreign)).toBe(404);
    expect(foreign.body).toStrictEqual({ code: 'KEY_NOT_FOUND', message: `no key ${key.id} in your account` });
    const tooLong = await t.app.call('PATCH', `/v1/keys/${key.id}`, {
      bearer: ivan.token,
      body: { name: 'x'.repeat(65) },
    });
    expect(tooLong.status, show(tooLong)).toBe(400);
    expect(tooLong.body.code).toBe('BAD_REQUEST');
    const unchanged = await t.app.call('GET', '/v1/keys', { bearer: ivan.token });
    expect(unchanged.body.keys.find((k: { id: string }) => k.id === key.id).name).toBeNull();
  });

  it('a malformed create body → 400 BAD_REQUEST', async () => {
    const { token } = await portalSession(t.app, await demoWallet('satoshi'));
    const res = await t.app.call('POST', '/v1/keys', { bearer: token, body: { name: 'x', tier: 'partner' } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });
});

describe('shared session auth suite', () => {
  const sessions = sessionsOf(() => demoWallet('heidi'));
  portalSessionAuthSuite(
    'POST /v1/keys',
    () => t.app,
    (a, auth) => a.call('POST', '/v1/keys', { ...auth, body: { name: 'suite' } }),
    sessions,
  );
  portalSessionAuthSuite(
    'GET /v1/keys',
    () => t.app,
    (a, auth) => a.call('GET', '/v1/keys', auth),
    sessions,
  );
  portalSessionAuthSuite(
    'DELETE /v1/keys/{id}',
    () => t.app,
    (a, auth) => a.call('DELETE', '/v1/keys/key_1111111111111111111111', auth),
    sessions,
  );
  portalSessionAuthSuite(
    'PATCH /v1/keys/{id}',
    () => t.app,
    (a, auth) => a.call('PATCH', '/v1/keys/key_1111111111111111111111', { ...auth, body: { name: 'suite' } }),
    sessions,
  );
  portalSessionAuthSuite(
    'GET /v1/usage',
    () => t.app,
    (a, auth) => a.call('GET', '/v1/usage', auth),
    sessions,
  );
});
