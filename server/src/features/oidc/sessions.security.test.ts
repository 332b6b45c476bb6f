// The key owner's session revocations (DELETE /v1/keys/{id}/sessions/{jti}, POST /v1/keys/{id}/sessions/revoke)
// reach only the caller's own keys, and only sessions issued through the key named in the path.
import { describe, expect, it } from 'vitest';
import { demoWallet } from '../../localchain/scenario';
import { portalSessionAuthSuite } from '@sigil/test/support/auth-suite';
import { jtiOf, sessionsOf, signIn, show } from '@sigil/test/support/connect-world';
import { registerClient, useOidcWorld } from '@sigil/test/support/oidc-world';

const world = useOidcWorld();

const sessionRead = (secret: string, token: string) =>
  world.app.call('GET', '/v1/auth/session', { key: secret, bearer: token });

describe('revocations by the key owner', () => {
  it('another account’s key answers 404 KEY_NOT_FOUND and its sessions stay active', async () => {
    const victim = await registerClient(world.app, { type: 'public' });
    const attacker = await registerClient(world.app, { type: 'public' });
    const heidi = await demoWallet('heidi');
    const session = await signIn(world.app, { keySecret: victim.apiSecret, audience: victim.clientId, wallet: heidi });
    const one = await world.app.call('DELETE', `/v1/keys/${victim.clientId}/sessions/${jtiOf(session.body.token)}`, {
      bearer: attacker.ownerBearer,
    });
    expect(one.status, show(one)).toBe(404);
    expect(one.body.code).toBe('KEY_NOT_FOUND');
    const all = await world.app.call('POST', `/v1/keys/${victim.clientId}/sessions/revoke`, {
      bearer: attacker.ownerBearer,
      body: { wallet: heidi.address },
    });
    expect(all.status, show(all)).toBe(404);
    expect(all.body.code).toBe('KEY_NOT_FOUND');
    expect((await sessionRead(victim.apiSecret, session.body.token)).status).toBe(200);
  });

  it('a session of another key, named under one’s own key, is not revoked', async () => {
    const victim = await registerClient(world.app, { type: 'public' });
    const attacker = await registerClient(world.app, { type: 'public' });
    const heidi = await demoWallet('heidi');
    const session = await signIn(world.app, { keySecret: victim.apiSecret, audience: victim.clientId, wallet: heidi });
    const res = await world.app.call('DELETE', `/v1/keys/${attacker.clientId}/sessions/${jtiOf(session.body.token)}`, {
      bearer: attacker.ownerBearer,
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({ revoked: false });
    expect((await sessionRead(victim.apiSecret, session.body.token)).status).toBe(200);
    const unknown = await world.app.call('DELETE', `/v1/keys/${attacker.clientId}/sessions/sess_nothere`, {
      bearer: attacker.ownerBearer,
    });
    expect(unknown.body).toEqual({ revoked: false });
  });

  it('a wallet that is not a base58 32-byte address answers 400 INVALID_WALLET', async () => {
    const owner = await registerClient(world.app, { type: 'public' });
    for (const wallet of ['nope', '', 'x'.repeat(65)]) {
      const res = await world.app.call('POST', `/v1/keys/${owner.clientId}/sessions/revoke`, {
        bearer: owner.ownerBearer,
        body: { wallet },
      });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.code).toBe('INVALID_WALLET');
    }
  });

  it('the list’s wallet filter that is not a base58 32-byte address answers 400 INVALID_WALLET', async () => {
    const owner = await registerClient(world.app, { type: 'public' });
    for (const wallet of ['nope', 'x'.repeat(65)]) {
      const res = await world.app.call('GET', `/v1/keys/${owner.clientId}/sessions?wallet=${wallet}`, {
        bearer: owner.ownerBearer,
      });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.code).toBe('INVALID_WALLET');
      expect(res.body.message).toMatch(/^wallet: /);
    }
  });
});

describe('shared session auth suite', () => {
  const sessions = sessionsOf(() => demoWallet('heidi'));
  portalSessionAuthSuite(
    'DELETE /v1/keys/{id}/sessions/{jti}',
    () => world.app,
    (a, auth) => a.call('DELETE', `/v1/keys/${a.key.key.id}/sessions/sess_1111111111111111111111`, auth),
    sessions,
  );
  portalSessionAuthSuite(
    'POST /v1/keys/{id}/sessions/revoke',
    () => world.app,
    (a, auth) =>
      a.call('POST', `/v1/keys/${a.key.key.id}/sessions/revoke`, {
        ...auth,
        body: { wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T' },
      }),
    sessions,
  );
});
