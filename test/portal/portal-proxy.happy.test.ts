// The portal's backend against the real service (local chain, SQLite): a wallet signs in through the portal's
// Connect proxy with the portal key held server-side, the session rides in an httpOnly cookie, and the keys
// procedures work over the portal's same-origin tRPC proxy.
import { describe, expect, it } from 'vitest';
import { signChallenge } from '@sigil/client-sdk/connect';
import { DISCLAIMER, PROVES } from '@sigil/contract/connect';
import { demoWallet } from '../../server/src/localchain/scenario';
import { TEST_PORTAL_DOMAIN } from '../support/keyed-app';
import { cookieOf, portalConnect, portalTrpc, show, usePortalService } from './support';

const portal = usePortalService();

describe('portal backend', () => {
  it('signs a wallet in through the portal key and keeps the token out of the page', async () => {
    const grace = await demoWallet('grace');
    const challenge = await portalConnect(portal.config, 'challenge', {
      method: 'POST',
      body: { wallet: grace.address },
    });
    expect(challenge.status, show(challenge)).toBe(200);
    expect(challenge.body.audience).toBe(TEST_PORTAL_DOMAIN);
    expect(challenge.body.challenge).toBe(
      `sigil-connect:v2:wallet-control:${TEST_PORTAL_DOMAIN}:${grace.address}:${challenge.body.nonce}`,
    );

    const verified = await portalConnect(portal.config, 'verify', {
      method: 'POST',
      body: await signChallenge(challenge.body, grace, TEST_PORTAL_DOMAIN),
    });
    expect(verified.status, show(verified)).toBe(200);
    expect(verified.body).toStrictEqual({
      expires_at: verified.body.expires_at,
      handle: null,
      address: grace.address,
      verified: [],
      source: 'wallet',
      proves: PROVES,
      disclaimer: DISCLAIMER,
    });
    expect(verified.headers.get('cache-control')).toBe('no-store');
    const setCookie = verified.headers.get('set-cookie')!;
    expect(setCookie).toMatch(
      /^sigil_portal_session=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)![1]);
    expect(maxAge).toBeGreaterThan(86_400 - 10); // the service's 24-hour session
    expect(maxAge).toBeLessThanOrEqual(86_400);

    const session = await portalConnect(portal.config, 'session', { cookie: cookieOf(setCookie) });
    expect(session.status, show(session)).toBe(200);
    expect(session.body).toStrictEqual({
      handle: null,
      address: grace.address,
      verified: [],
      source: 'wallet',
      proves: PROVES,
      disclaimer: DISCLAIMER,
    });
  });

  it('creates, lists, revokes keys and reads usage over tRPC with the session cookie', async () => {
    const heidi = await demoWallet('heidi');
    const challenge = await portalConnect(portal.config, 'challenge', {
      method: 'POST',
      body: { wallet: heidi.address },
    });
    const verified = await portalConnect(portal.config, 'verify', {
      method: 'POST',
      body: await signChallenge(challenge.body, heidi, TEST_PORTAL_DOMAIN),
    });
    expect(verified.status, show(verified)).toBe(200);
    const cookie = cookieOf(verified.headers.get('set-cookie'));

    const created = await portalTrpc(portal.config, 'keys.create', {
      method: 'POST',
      cookie,
      input: { name: 'from the portal' },
    });
    expect(created.status, show(created)).toBe(200);
    const { key, secret } = created.body.result.data;
    expect(key).toMatchObject({ name: 'from the portal', tier: 'free', revoked_at: null });
    expect(secret).toMatch(/^sigil_sk_/);

    // The new key works as an integrator's X-API-Key.
    const used = await portal.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: heidi.address } });
    expect(used.status, used.text).toBe(200);

    const list = await portalTrpc(portal.config, 'keys.list', { cookie, input: {} });
    expect(list.status, show(list)).toBe(200);
    expect(
      list.body.result.data.keys.map((k: { id: string; usage: { day: number } }) => [k.id, k.usage.day]),
    ).toStrictEqual([[key.id, 1]]);

    const usage = await portalTrpc(portal.config, 'keys.usage', { cookie, input: {} });
    expect(usage.status, show(usage)).toBe(200);
    expect(usage.body.result.data).toMatchObject({
      tier: 'free',
      limits: { minute: 300, day: 15_000 },
      usage: { day: 1 },
    });

    const revoked = await portalTrpc(portal.config, 'keys.revoke', { method: 'POST', cookie, input: { id: key.id } });
    expect(revoked.status, show(revoked)).toBe(200);
    expect(revoked.body.result.data.key.revoked_at).toEqual(expect.any(Number));
    const refused = await portal.app.call('POST', '/v1/auth/challenge', {
      key: secret,
      body: { wallet: heidi.address },
    });
    expect(refused.status, refused.text).toBe(401);
    expect(refused.body).toStrictEqual({
      code: 'INVALID_KEY',
      message: 'the API key is not valid (unknown or revoked)',
    });
  });

  it('looks up names and wallets over tRPC, showing the spec error text', async () => {
    const alice = await demoWallet('alice');
    const resolved = await portalTrpc(portal.config, 'resolve.resolve', { input: { name: '@Alice' } });
    expect(resolved.status, show(resolved)).toBe(200);
    expect(resolved.body.result.data).toMatchObject({ input: '@Alice', name: 'alice', namespace: 'handle' });

    const reversed = await portalTrpc(portal.config, 'resolve.reverse', {
      input: { address: portal.app.chain.scenario!.reverse.plainWithPrimary },
    });
    expect(reversed.status, show(reversed)).toBe(200);
    expect(reversed.body.result.data).toMatchObject({ handle: 'alice' });
    expect(alice.address).toBe(portal.app.chain.scenario!.reverse.plainWithPrimary);

    const missing = await portalTrpc(portal.config, 'resolve.resolve', { input: { name: 'nobody_here_at_all' } });
    expect(missing.status, show(missing)).toBe(404);
    expect(missing.body.error.message).toBe('handle not registered');
    expect(missing.body.error.data.errorCode).toBe('HANDLE_NOT_REGISTERED');
  });
});
