// The Connect session lifecycle: sign out, revoke a wallet's sessions for a key, list a key's sessions, and the
// OpenID Connect back-channel logout a revocation sends (through the outbound client, to an HTTPS receiver).
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWallet } from '../../localchain/scenario';
import { signIn, show } from '@sigil/test/support/connect-world';
import { startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { CookieBrowser, registerClient, signInThroughPage, useOidcWorld } from '@sigil/test/support/oidc-world';

const world = useOidcWorld();
let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startHttpsReceiver((_req, res) => {
    res.writeHead(200);
    res.end();
  });
});
afterAll(() => receiver?.close());

const sessionRead = (secret: string, token: string) =>
  world.app.call('GET', '/v1/auth/session', { key: secret, bearer: token });

describe('sign out and revoke', () => {
  it('POST /v1/auth/logout revokes the presented session: the live check then answers INVALID_SESSION', async () => {
    const heidi = await demoWallet('heidi');
    const { key, secret } = world.app.key;
    const session = await signIn(world.app, { keySecret: secret, audience: key.id, wallet: heidi });
    expect(session.status, show(session)).toBe(200);
    expect((await sessionRead(secret, session.body.token)).status).toBe(200);
    const out = await world.app.call('POST', '/v1/auth/logout', { key: secret, bearer: session.body.token });
    expect(out.status, show(out)).toBe(200);
    expect(out.body).toEqual({ revoked: true });
    const after = await sessionRead(secret, session.body.token);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('INVALID_SESSION');
    const again = await world.app.call('POST', '/v1/auth/logout', { key: secret, bearer: session.body.token });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('INVALID_SESSION');
  });

  it('a session issued through another key cannot be signed out with this key', async () => {
    const heidi = await demoWallet('heidi');
    const other = world.app.otherKey;
    const session = await signIn(world.app, { keySecret: other.secret, audience: other.key.id, wallet: heidi });
    const out = await world.app.call('POST', '/v1/auth/logout', {
      key: world.app.key.secret,
      bearer: session.body.token,
    });
    expect(out.status).toBe(401);
    expect((await sessionRead(other.secret, session.body.token)).status).toBe(200);
  });

  it('POST /v1/auth/sessions/revoke revokes every session of the wallet for this key only', async () => {
    const alice = await demoWallet('alice');
    const { key, secret } = world.app.key;
    const other = world.app.otherKey;
    const a = await signIn(world.app, { keySecret: secret, audience: key.id, wallet: alice });
    const b = await signIn(world.app, { keySecret: secret, audience: key.id, wallet: alice });
    const c = await signIn(world.app, { keySecret: other.secret, audience: other.key.id, wallet: alice });
    const res = await world.app.call('POST', '/v1/auth/sessions/revoke', {
      key: secret,
      body: { wallet: alice.address },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.revoked).toBeGreaterThanOrEqual(2);
    expect((await sessionRead(secret, a.body.token)).body.code).toBe('INVALID_SESSION');
    expect((await sessionRead(secret, b.body.token)).body.code).toBe('INVALID_SESSION');
    expect((await sessionRead(other.secret, c.body.token)).status).toBe(200);
    const bad = await world.app.call('POST', '/v1/auth/sessions/revoke', { key: secret, body: { wallet: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_WALLET');
  });

  it('GET /v1/keys/{id}/sessions lists the active sessions to the key owner; another account gets 404', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const heidi = await demoWallet('heidi');
    const s = await signIn(world.app, {
      keySecret: registered.apiSecret,
      audience: registered.clientId,
      wallet: heidi,
    });
    const list = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
      bearer: registered.ownerBearer,
    });
    expect(list.status, show(list)).toBe(200);
    expect(list.body.sessions).toHaveLength(1);
    expect(list.body.sessions[0]).toMatchObject({ address: heidi.address, handle: null, source: 'wallet' });
    expect(list.body.sessions[0].jti).toBe(
      JSON.parse(Buffer.from(s.body.token.split('.')[1], 'base64url').toString()).jti,
    );
    const stranger = await registerClient(world.app, { type: 'public' });
    const denied = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
      bearer: stranger.ownerBearer,
    });
    expect(denied.status).toBe(404);
    expect(denied.body.code).toBe('KEY_NOT_FOUND');
  });
});

describe('back-channel logout', () => {
  it('revoking the wallet’s sessions for a client sends it a signed logout token with sub and sid', async () => {
    const registered = await registerClient(world.app, {
      type: 'confidential',
      extra: { backchannel_logout_uri: `https://127.0.0.1:${receiver.port}/backchannel` },
    });
    const config = await oidc.discovery(
      new URL(world.app.base),
      registered.clientId,
      undefined,
      oidc.ClientSecretBasic(registered.clientSecret!),
      { execute: [oidc.allowInsecureRequests] },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: registered.redirectUri,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const heidi = await demoWallet('heidi');
    const callback = await signInThroughPage(new CookieBrowser(), world.app, url, {
      wallet: heidi,
      audience: registered.clientId,
    });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
    const sid = tokens.claims()!.sid;
    expect(typeof sid).toBe('string');

    const before = receiver.requests.length;
    const res = await world.app.call('POST', '/v1/auth/sessions/revoke', {
      key: registered.apiSecret,
      body: { wallet: heidi.address },
    });
    expect(res.body).toEqual({ revoked: 1 });
    const sent = receiver.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.url).toBe('/backchannel');
    expect(sent[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const logoutToken = new URLSearchParams(sent[0]!.body.toString()).get('logout_token')!;
    const { payload, protectedHeader } = await jwtVerify(
      logoutToken,
      createRemoteJWKSet(new URL(`${world.app.base}/oidc/jwks`)),
      { issuer: world.app.base, audience: registered.clientId, algorithms: ['ES256'] },
    );
    expect(protectedHeader.typ).toBe('logout+jwt');
    expect(payload).toMatchObject({
      sub: heidi.address,
      sid,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    });
    expect(payload).not.toHaveProperty('nonce');
  });
});

describe('offline verification of a Connect session token', () => {
  it('jose alone verifies a session token against the JWKS; revoked, it still verifies offline while the live check refuses it', async () => {
    const alice = await demoWallet('alice');
    const { key, secret } = world.app.key;
    const session = await signIn(world.app, {
      keySecret: secret,
      audience: key.id,
      wallet: alice,
      body: { handle: '@alice' },
    });
    expect(session.status, show(session)).toBe(200);
    const jwks = createRemoteJWKSet(new URL(`${world.app.base}/oidc/jwks`));
    const verifyOffline = (token: string) =>
      jwtVerify(token, jwks, { issuer: 'sigil', audience: key.id, algorithms: ['ES256'] });
    const { payload, protectedHeader } = await verifyOffline(session.body.token);
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    expect(payload).toMatchObject({
      iss: 'sigil',
      sub: alice.address,
      aud: key.id,
      handle: 'alice',
      src: 'owner',
      exp: session.body.expires_at,
    });
    expect(String(payload.jti)).toMatch(/^sess_/);
    // Bound to its key: verifying for another audience fails offline too.
    await expect(
      jwtVerify(session.body.token, jwks, { issuer: 'sigil', audience: world.app.otherKey.key.id }),
    ).rejects.toThrow();

    const out = await world.app.call('POST', '/v1/auth/logout', { key: secret, bearer: session.body.token });
    expect(out.status, show(out)).toBe(200);
    // Offline, a revoked token verifies until it expires; the live check answers INVALID_SESSION.
    expect((await verifyOffline(session.body.token)).payload.jti).toBe(payload.jti);
    const live = await sessionRead(secret, session.body.token);
    expect(live.status).toBe(401);
    expect(live.body).toEqual({ code: 'INVALID_SESSION', message: 'the session has been revoked' });
  });
});
