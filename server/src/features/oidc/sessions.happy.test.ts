// The Connect session lifecycle: sign out, revoke a wallet's sessions for a key, list a key's sessions, the key
// owner's revocations (one session, a wallet's), and the OpenID Connect back-channel logout a revocation sends
// (through the outbound client, to an HTTPS receiver).
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoWallet } from '../../localchain/scenario';
import type { KeyPairSigner } from '@solana/kit';
import { jtiOf, signIn, show } from '@sigil/test/support/connect-world';
import { startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import {
  CookieBrowser,
  registerClient,
  signInThroughPage,
  useOidcWorld,
  type RegisteredClient,
} from '@sigil/test/support/oidc-world';

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
    expect(list.body.sessions[0]).toMatchObject({ address: heidi.address, handle: null, source: 'wallet', amr: null });
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

/** A stock openid-client sign-in of `wallet` through the sign-in page in `browser`: its config and tokens. */
async function oidcTokens(
  registered: RegisteredClient,
  wallet: KeyPairSigner,
  browser = new CookieBrowser(),
  scope = 'openid',
  prompt?: 'login',
) {
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
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    // offline_access (a refresh token) is granted only with prompt=consent.
    ...(scope.includes('offline_access') ? { prompt: 'consent' } : {}),
    ...(prompt ? { prompt } : {}),
  });
  const callback = await signInThroughPage(browser, world.app, url, { wallet, audience: registered.clientId });
  return { config, tokens: await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }) };
}

/** A stock openid-client sign-in of `wallet` through the sign-in page: the id token's `sid`. */
async function oidcSignIn(registered: RegisteredClient, wallet: KeyPairSigner): Promise<string> {
  const sid = (await oidcTokens(registered, wallet)).tokens.claims()!.sid;
  expect(typeof sid).toBe('string');
  return sid as string;
}

/** The back-channel logout tokens the receiver got since `before`, verified: their sub and sid. */
async function logoutTokensSince(before: number, registered: RegisteredClient) {
  const sent = receiver.requests.slice(before);
  return Promise.all(
    sent.map(async (request) => {
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/backchannel');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const logoutToken = new URLSearchParams(request.body.toString()).get('logout_token')!;
      const { payload, protectedHeader } = await jwtVerify(
        logoutToken,
        createRemoteJWKSet(new URL(`${world.app.base}/oidc/jwks`)),
        { issuer: world.app.base, audience: registered.clientId, algorithms: ['ES256'] },
      );
      expect(protectedHeader.typ).toBe('logout+jwt');
      expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
      expect(payload).not.toHaveProperty('nonce');
      return { sub: payload.sub, sid: payload.sid };
    }),
  );
}

const withBackchannel = () =>
  registerClient(world.app, {
    type: 'confidential',
    extra: { backchannel_logout_uri: `https://127.0.0.1:${receiver.port}/backchannel` },
  });

describe('back-channel logout', () => {
  it('revoking the wallet’s sessions for a client sends it a signed logout token with sub and sid', async () => {
    const registered = await withBackchannel();
    const heidi = await demoWallet('heidi');
    const sid = await oidcSignIn(registered, heidi);
    const before = receiver.requests.length;
    const res = await world.app.call('POST', '/v1/auth/sessions/revoke', {
      key: registered.apiSecret,
      body: { wallet: heidi.address },
    });
    expect(res.body).toEqual({ revoked: 1 });
    expect(await logoutTokensSince(before, registered)).toEqual([{ sub: heidi.address, sid }]);
  });

  it('a sid two sign-ins from one browser share is logged out once neither is active, and only once', async () => {
    const registered = await withBackchannel();
    const heidi = await demoWallet('heidi');
    const browser = new CookieBrowser();
    const first = (await oidcTokens(registered, heidi, browser)).tokens.claims()!.sid;
    const second = (await oidcTokens(registered, heidi, browser, 'openid', 'login')).tokens.claims()!.sid;
    // The library keeps one sid per browser and client: the second sign-in carries the first one's.
    expect(second).toBe(first);
    const list = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
      bearer: registered.ownerBearer,
    });
    const [newer, older] = list.body.sessions.map((s: { jti: string }) => s.jti);

    const before = receiver.requests.length;
    const revokedOlder = await world.app.call('DELETE', `/v1/keys/${registered.clientId}/sessions/${older}`, {
      bearer: registered.ownerBearer,
    });
    expect(revokedOlder.body).toEqual({ revoked: true });
    // The app's session under that sid is the newer sign-in's, still active here: it is not logged out.
    expect(await logoutTokensSince(before, registered)).toEqual([]);

    const revokedNewer = await world.app.call('DELETE', `/v1/keys/${registered.clientId}/sessions/${newer}`, {
      bearer: registered.ownerBearer,
    });
    expect(revokedNewer.body).toEqual({ revoked: true });
    expect(await logoutTokensSince(before, registered)).toEqual([{ sub: heidi.address, sid: first }]);
  });

  it('revoking both sign-ins that share a sid at once sends one logout token', async () => {
    const registered = await withBackchannel();
    const heidi = await demoWallet('heidi');
    const browser = new CookieBrowser();
    const sid = (await oidcTokens(registered, heidi, browser)).tokens.claims()!.sid;
    await oidcTokens(registered, heidi, browser, 'openid', 'login');
    const before = receiver.requests.length;
    const res = await world.app.call('POST', '/v1/auth/sessions/revoke', {
      key: registered.apiSecret,
      body: { wallet: heidi.address },
    });
    expect(res.body).toEqual({ revoked: 2 });
    expect(await logoutTokensSince(before, registered)).toEqual([{ sub: heidi.address, sid }]);
  });
});

describe('the key owner’s session list and revocations (portal)', () => {
  it('the list shows an OpenID Connect sign-in’s proof path; revoking that one session logs the client out', async () => {
    const registered = await withBackchannel();
    const heidi = await demoWallet('heidi');
    const direct = await signIn(world.app, {
      keySecret: registered.apiSecret,
      audience: registered.clientId,
      wallet: heidi,
    });
    const sid = await oidcSignIn(registered, heidi);
    const list = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
      bearer: registered.ownerBearer,
    });
    expect(list.status, show(list)).toBe(200);
    // Newest first: the page's sign-in, then the one made through the Connect routes (no proof path recorded).
    expect(list.body.sessions.map((s: { amr: string | null }) => s.amr)).toEqual(['sigil-signature', null]);
    expect(list.body.sessions[1].jti).toBe(jtiOf(direct.body.token));

    const before = receiver.requests.length;
    const jti = list.body.sessions[0].jti;
    const res = await world.app.call('DELETE', `/v1/keys/${registered.clientId}/sessions/${jti}`, {
      bearer: registered.ownerBearer,
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({ revoked: true });
    expect(await logoutTokensSince(before, registered)).toEqual([{ sub: heidi.address, sid }]);
    const after = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
      bearer: registered.ownerBearer,
    });
    expect(after.body.sessions.map((s: { jti: string }) => s.jti)).toEqual([jtiOf(direct.body.token)]);
    // The other session is untouched; the revoked one is refused by the live check; revoking it again changes nothing.
    expect((await sessionRead(registered.apiSecret, direct.body.token)).status).toBe(200);
    const again = await world.app.call('DELETE', `/v1/keys/${registered.clientId}/sessions/${jti}`, {
      bearer: registered.ownerBearer,
    });
    expect(again.body).toEqual({ revoked: false });
  });

  it('an OpenID Connect sign-in records its Connect session without signing a Connect token', async () => {
    const registered = await withBackchannel();
    const grace = await demoWallet('grace');
    const sessions = world.app.app.services.sessions!;
    const issue = vi.spyOn(sessions, 'issue');
    const open = vi.spyOn(sessions, 'open');
    try {
      await oidcSignIn(registered, grace);
      // The browser is never handed a Connect token, so none is signed: the row is the session the grant names.
      expect(issue).not.toHaveBeenCalled();
      expect(open).toHaveBeenCalledTimes(1);
      const opened = await open.mock.results[0]!.value;
      expect(opened).toMatchObject({ audience: registered.clientId, address: grace.address, source: 'wallet' });
      const list = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
        bearer: registered.ownerBearer,
      });
      expect(list.body.sessions.map((s: { jti: string; amr: string | null }) => [s.jti, s.amr])).toEqual([
        [opened.jti, 'sigil-signature'],
      ]);
      // The Connect routes still sign one per verify.
      await signIn(world.app, { keySecret: registered.apiSecret, audience: registered.clientId, wallet: grace });
      expect(issue).toHaveBeenCalledTimes(1);
    } finally {
      issue.mockRestore();
      open.mockRestore();
    }
  });

  it('POST /v1/keys/{id}/sessions/revoke revokes every session of the wallet through that key only', async () => {
    const registered = await registerClient(world.app, { type: 'public' });
    const alice = await demoWallet('alice');
    const heidi = await demoWallet('heidi');
    const through = (wallet: KeyPairSigner) =>
      signIn(world.app, { keySecret: registered.apiSecret, audience: registered.clientId, wallet });
    const [a, b, h] = [await through(alice), await through(alice), await through(heidi)];
    const elsewhere = await signIn(world.app, {
      keySecret: world.app.key.secret,
      audience: world.app.key.key.id,
      wallet: alice,
    });
    const res = await world.app.call('POST', `/v1/keys/${registered.clientId}/sessions/revoke`, {
      bearer: registered.ownerBearer,
      body: { wallet: alice.address },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({ revoked: 2 });
    for (const gone of [a, b]) {
      expect((await sessionRead(registered.apiSecret, gone.body.token)).body.code).toBe('INVALID_SESSION');
    }
    expect((await sessionRead(registered.apiSecret, h.body.token)).status).toBe(200);
    expect((await sessionRead(world.app.key.secret, elsewhere.body.token)).status).toBe(200);
    const none = await world.app.call('POST', `/v1/keys/${registered.clientId}/sessions/revoke`, {
      bearer: registered.ownerBearer,
      body: { wallet: alice.address },
    });
    expect(none.body).toEqual({ revoked: 0 });
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

/** RP-initiated logout as a browser goes through it: end-session with the id token, then the confirm form's POST. */
async function endSession(browser: CookieBrowser, idToken: string, choice: { logout?: 'yes' }) {
  const page = await browser.fetch(
    `${world.app.base}/oidc/session/end?${new URLSearchParams({ id_token_hint: idToken })}`,
  );
  const html = await page.text();
  expect(page.status, html).toBe(200);
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!;
  return browser.fetch(`${world.app.base}/oidc/session/end/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ xsrf, ...choice }),
  });
}

describe('RP-initiated logout (end-session)', () => {
  /** One browser signed in to two clients (refresh tokens included), and what tells whether each sign-in lives. */
  async function signedInTwice() {
    const heidi = await demoWallet('heidi');
    const browser = new CookieBrowser();
    const clients = [await withBackchannel(), await withBackchannel()];
    const signIns: ({ registered: RegisteredClient } & Awaited<ReturnType<typeof oidcTokens>>)[] = [];
    for (const registered of clients) {
      signIns.push({ registered, ...(await oidcTokens(registered, heidi, browser, 'openid offline_access')) });
    }
    const alive = async ({ registered, config, tokens }: (typeof signIns)[number]) => {
      const listed = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
        bearer: registered.ownerBearer,
      });
      const userinfo = await fetch(`${world.app.base}/oidc/me`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      const refresh = await oidc.refreshTokenGrant(config, tokens.refresh_token!).then(
        () => 'tokens',
        (error: { error?: string }) => error.error,
      );
      return { sessions: listed.body.sessions.length, userinfo: userinfo.status, refresh };
    };
    return { browser, signIns, alive };
  }

  it('logout=yes ends every sign-in of the browser session: sessions, access and refresh tokens', async () => {
    const { browser, signIns, alive } = await signedInTwice();
    const before = receiver.requests.length;
    const confirmed = await endSession(browser, signIns[0]!.tokens.id_token!, { logout: 'yes' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`${world.app.base}/oidc/session/end/success`);
    for (const signIn of signIns) {
      expect(await alive(signIn)).toEqual({ sessions: 0, userinfo: 401, refresh: 'invalid_grant' });
    }
    // Each client is told by the library's own back-channel logout, once.
    expect(receiver.requests.length - before).toBe(2);
  });

  it('"stay signed in" ends only the sign-in of the client that asked', async () => {
    const { browser, signIns, alive } = await signedInTwice();
    const confirmed = await endSession(browser, signIns[0]!.tokens.id_token!, {});
    expect(confirmed.status).toBe(303);
    expect(await alive(signIns[0]!)).toEqual({ sessions: 0, userinfo: 401, refresh: 'invalid_grant' });
    expect(await alive(signIns[1]!)).toEqual({ sessions: 1, userinfo: 200, refresh: 'tokens' });
  });
});
