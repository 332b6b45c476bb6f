// What the provider refuses, driven by the stock openid-client and raw HTTP: redirect URIs, PKCE, code replay
// (exactly one of 50 concurrent exchanges wins), proofs bound to another client, revoked refresh tokens, a revoked
// Connect session, a revoked key.
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { buildSignInMessage, signChallenge, signSignIn } from '@sigil/client-sdk/connect';
import { demoWallet } from '../../localchain/scenario';
import {
  CookieBrowser,
  openSignInPage,
  registerClient,
  signInThroughPage,
  useOidcWorld,
  type OidcWorld,
  type RegisteredClient,
} from '@sigil/test/support/oidc-world';
import { pageBaseOf } from '@sigil/test/support/oidc-page';
import { postgresReachable } from '@sigil/test/support/db';
import { TEST_SIGNIN_DOMAINS } from '@sigil/test/support/keyed-app';

const world = useOidcWorld();

const insecure = { execute: [oidc.allowInsecureRequests] };

async function start(registered: RegisteredClient, overrides: Record<string, string> = {}, w: OidcWorld = world) {
  const config = await oidc.discovery(
    new URL(w.app.base),
    registered.clientId,
    undefined,
    oidc.ClientSecretBasic(registered.clientSecret!),
    insecure,
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: registered.redirectUri,
    scope: 'openid profile wallet offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    prompt: 'consent',
    ...overrides,
  });
  return { config, verifier, url };
}

/** Signs heidi in and returns the code from the callback, with what is needed to exchange it by hand. */
async function codeFor(registered: RegisteredClient, w: OidcWorld = world) {
  const flow = await start(registered, {}, w);
  const callback = await signInThroughPage(new CookieBrowser(), w.app, flow.url, {
    wallet: await demoWallet('heidi'),
    audience: registered.clientId,
  });
  return { ...flow, callback, code: callback.searchParams.get('code')! };
}

function exchange(registered: RegisteredClient, code: string, verifier: string | undefined, w: OidcWorld = world) {
  const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: registered.redirectUri });
  if (verifier !== undefined) body.set('code_verifier', verifier);
  return fetch(`${w.app.base}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${registered.clientId}:${registered.clientSecret}`).toString('base64')}`,
    },
    body,
  });
}

describe('authorization request', () => {
  it('a redirect URI that is not registered is refused on the provider, never redirected to', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { url } = await start(registered, { redirect_uri: 'https://evil.example/callback' });
    const res = await new CookieBrowser().fetch(url.href);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('redirect_uri did not match any of the client');
  });

  it('an authorization request without code_challenge is refused (PKCE is required)', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { url } = await start(registered);
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const res = await new CookieBrowser().fetch(url.href);
    // An error for the client stays the library's redirect to it (no sign-in page in its place).
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(registered.redirectUri);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe(
      'Authorization Server policy requires PKCE to be used for this request',
    );
  });

  it('prompt=none without a live sign-in for the client: login_required at the client, no page', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const other = await registerClient(world.app, { type: 'confidential' });
    const heidi = await demoWallet('heidi');
    const browser = new CookieBrowser();
    await signInThroughPage(browser, world.app, (await start(registered)).url, {
      wallet: heidi,
      audience: registered.clientId,
    });
    const silently = async (client: RegisteredClient) => {
      const res = await browser.fetch((await start(client, { prompt: 'none', state: 'st1' })).url.href);
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(client.redirectUri);
      return [location.searchParams.get('error'), location.searchParams.get('state')];
    };
    // The browser is signed in, but not to this client; then its sign-in to the first one is revoked.
    expect(await silently(other)).toEqual(['login_required', 'st1']);
    await world.app.call('POST', '/v1/auth/sessions/revoke', {
      key: registered.apiSecret,
      body: { wallet: heidi.address },
    });
    expect(await silently(registered)).toEqual(['login_required', 'st1']);
    // No browser session at all is the library's own case, answered the same.
    const fresh = await new CookieBrowser().fetch((await start(registered, { prompt: 'none' })).url.href);
    expect(new URL(fresh.headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });

  it('an unknown client_id gets an error page, not a sign-in', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { url } = await start(registered);
    url.searchParams.set('client_id', 'key_unknownunknownunknown');
    const res = await new CookieBrowser().fetch(url.href);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid_client');
  });
});

describe('the sign-in page', () => {
  it('cannot be framed, run foreign code or be cached: in the authorization answer as at its own URL', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { url } = await start(registered);
    const browser = new CookieBrowser();
    const inPlace = await browser.fetch(url.href);
    const own = await browser.fetch(new URL(pageBaseOf(await inPlace.clone().text())!, world.app.base).href);
    // Another browser's interaction, asked for with this browser's cookie (which names its own): refused.
    const { pageUrl: strangers } = await openSignInPage(new CookieBrowser(), world.app, url);
    const foreign = await browser.fetch(strangers);
    expect([inPlace.status, own.status, foreign.status]).toEqual([200, 200, 400]);
    expect(await own.text()).toBe(await inPlace.text());
    for (const res of [inPlace, own, foreign]) {
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      );
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    // Nor may its steps be taken through this browser's interaction.
    const step = await browser.postJson(`${strangers}/challenge`, { wallet: (await demoWallet('heidi')).address });
    expect(step).toEqual({
      status: 400,
      body: { code: 'BAD_REQUEST', message: 'the sign-in has expired or belongs to another browser' },
    });
  });

  it('a browser already signed in to this client gets its code at once: only a redirect to a new interaction becomes the page', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const browser = new CookieBrowser();
    await signInThroughPage(browser, world.app, (await start(registered)).url, {
      wallet: await demoWallet('heidi'),
      audience: registered.clientId,
    });
    const { url } = await start(registered);
    url.searchParams.delete('prompt');
    const again = await browser.fetch(url.href);
    expect(again.status).toBe(303);
    const location = new URL(again.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(registered.redirectUri);
    expect(location.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
  });

  it('a Connect session revoked between the proof and the resume: the resume’s code gets no tokens', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const flow = await start(registered);
    const browser = new CookieBrowser();
    const { pageUrl } = await openSignInPage(browser, world.app, flow.url);
    const heidi = await demoWallet('heidi');
    const challenge = await browser.postJson(`${pageUrl}/challenge`, { wallet: heidi.address });
    const proof = await signChallenge(challenge.body, heidi, registered.clientId);
    const verified = await browser.postJson(`${pageUrl}/verify`, { path: 'verify', ...proof });
    expect(verified.status).toBe(200);
    const revoked = await world.app.call('POST', '/v1/auth/sessions/revoke', {
      key: registered.apiSecret,
      body: { wallet: heidi.address },
    });
    expect(revoked.body).toEqual({ revoked: 1 });
    // The library issues the code for the login the page just proved; the exchange reads the sign-in's Connect
    // session, which is gone.
    const resumed = await browser.fetch(new URL(verified.body.redirect_to, world.app.base).href);
    expect(resumed.status).toBe(303);
    const callback = new URL(resumed.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe(registered.redirectUri);
    const res = await exchange(registered, callback.searchParams.get('code')!, flow.verifier);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
  });

  it('a proof signed for another client’s key id is refused; the same wallet signing for this client succeeds', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const other = await registerClient(world.app, { type: 'confidential' });
    const { url } = await start(registered);
    const browser = new CookieBrowser();
    const { pageUrl } = await openSignInPage(browser, world.app, url);
    const heidi = await demoWallet('heidi');
    const challenge = await browser.postJson(`${pageUrl}/challenge`, { wallet: heidi.address });
    expect(challenge.body.audience).toBe(registered.clientId);
    expect(challenge.body.challenge).toBe(
      `sigil-connect:v2:wallet-control:${registered.clientId}:${heidi.address}:${challenge.body.nonce}`,
    );
    // The wallet signs the same nonce in a string bound to the other client's key id.
    const forged = await signChallenge(
      {
        ...challenge.body,
        audience: other.clientId,
        challenge: `sigil-connect:v2:wallet-control:${other.clientId}:${heidi.address}:${challenge.body.nonce}`,
      },
      heidi,
      other.clientId,
    );
    const refused = await browser.postJson(`${pageUrl}/verify`, { path: 'verify', ...forged });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('CONTROL_PROOF_INVALID');
    // A failed proof does not burn the challenge: the genuine signature still signs in.
    const genuine = await signChallenge(challenge.body, heidi, registered.clientId);
    const ok = await browser.postJson(`${pageUrl}/verify`, { path: 'verify', ...genuine });
    expect(ok.status).toBe(200);
    expect(ok.body.redirect_to).toContain('/oidc/auth/');
  });

  it('Sign in with Solana: a message for another allowed site is refused; one for the issuer’s host signs in', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { url } = await start(registered);
    const browser = new CookieBrowser();
    const { pageUrl } = await openSignInPage(browser, world.app, url);
    const heidi = await demoWallet('heidi');
    const challenge = await browser.postJson(`${pageUrl}/challenge`, { wallet: heidi.address, mode: 'signin' });
    expect(challenge.status).toBe(200);
    const message = (domain: string) =>
      buildSignInMessage({ domain, address: heidi.address, nonce: challenge.body.nonce, uri: `https://${domain}` });
    // On the deployment's allowlist (SIGIL_SIGNIN_DOMAINS), but not the issuer: a partner's page could have had
    // it signed, so it must not sign anyone in to this client.
    const partner = await signSignIn(challenge.body.nonce, message(TEST_SIGNIN_DOMAINS[1]!), heidi);
    const refused = await browser.postJson(`${pageUrl}/verify`, { path: 'verify-signin', ...partner });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('CONTROL_PROOF_INVALID');
    expect(refused.body.message).toContain('domain-not-allowed');
    // The issuer's host is not on that allowlist, and is the one host this page accepts.
    const issuerHost = new URL(world.app.base).host;
    const own = await signSignIn(challenge.body.nonce, message(issuerHost), heidi);
    const ok = await browser.postJson(`${pageUrl}/verify`, { path: 'verify-signin', ...own });
    expect(ok.status).toBe(200);
    expect(ok.body.redirect_to).toContain('/oidc/auth/');
  });

  it('a challenge made through the other client’s API key does not verify on this page', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const other = await registerClient(world.app, { type: 'confidential' });
    const heidi = await demoWallet('heidi');
    const viaKey = await world.app.call('POST', '/v1/auth/challenge', {
      key: other.apiSecret,
      body: { wallet: heidi.address },
    });
    const proof = await signChallenge(viaKey.body, heidi, other.clientId);
    const { url } = await start(registered);
    const browser = new CookieBrowser();
    const { pageUrl } = await openSignInPage(browser, world.app, url);
    const refused = await browser.postJson(`${pageUrl}/verify`, { path: 'verify', ...proof });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('CHALLENGE_AUDIENCE_MISMATCH');
  });

  it('malformed steps answer 4xx with a code: unknown path, bad JSON, unknown interaction', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { url } = await start(registered);
    const browser = new CookieBrowser();
    const { pageUrl } = await openSignInPage(browser, world.app, url);
    const badPath = await browser.postJson(`${pageUrl}/verify`, { path: 'nope' });
    expect(badPath).toEqual({
      status: 400,
      body: { code: 'BAD_REQUEST', message: 'path must be verify, verify-tx or verify-signin' },
    });
    const badJson = await browser.fetch(`${pageUrl}/challenge`, { method: 'POST', body: '{' });
    expect(badJson.status).toBe(400);
    expect((await badJson.json()).code).toBe('BAD_REQUEST');
    const badChallenge = await browser.postJson(`${pageUrl}/challenge`, { wallet: 'x' });
    expect(badChallenge.status).toBe(400);
    expect(badChallenge.body.code).toBe('INVALID_WALLET');
    // Another browser (no interaction cookie) cannot use this interaction.
    const stranger = await new CookieBrowser().postJson(`${pageUrl}/challenge`, { wallet: 'x' });
    expect(stranger.status).toBe(400);
  });
});

describe('a client gone while its sign-in page is open', () => {
  const removals = {
    'its key revoked': (r: RegisteredClient) =>
      world.app.call('DELETE', `/v1/keys/${r.clientId}`, { bearer: r.ownerBearer }),
    'its registration removed': (r: RegisteredClient) =>
      world.app.call('DELETE', `/v1/keys/${r.clientId}/oidc`, { bearer: r.ownerBearer }),
  };

  it.each(Object.keys(removals))('%s: challenge and verify answer 404, and no Connect session is made', async (how) => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const browser = new CookieBrowser();
    const { pageUrl } = await openSignInPage(browser, world.app, (await start(registered)).url);
    const heidi = await demoWallet('heidi');
    const challenge = await browser.postJson(`${pageUrl}/challenge`, { wallet: heidi.address });
    expect(challenge.status).toBe(200);
    const proof = await signChallenge(challenge.body, heidi, registered.clientId);
    expect((await removals[how as keyof typeof removals](registered)).status).toBe(200);

    const gone = {
      status: 404,
      body: {
        code: 'OIDC_CLIENT_NOT_FOUND',
        message: 'this application is no longer registered with Sigil; start again from the application',
      },
    };
    expect(await browser.postJson(`${pageUrl}/verify`, { path: 'verify', ...proof })).toEqual(gone);
    expect(await browser.postJson(`${pageUrl}/challenge`, { wallet: heidi.address })).toEqual(gone);
    const page = await browser.fetch(pageUrl);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_client');
    const sessions = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
      bearer: registered.ownerBearer,
    });
    expect(sessions.body).toEqual({ sessions: [] });
  });

  it('a stored registration the library refuses is no client: the page and a revocation answer, never a 500', async () => {
    const registered = await registerClient(world.app, {
      type: 'confidential',
      extra: { backchannel_logout_uri: 'https://127.0.0.1:9/backchannel' },
    });
    const heidi = await demoWallet('heidi');
    await codeFor(registered);
    const browser = new CookieBrowser();
    const { pageUrl } = await openSignInPage(browser, world.app, (await start(registered)).url);
    // A stored registration the library's schema refuses, written past PUT's check.
    await world.app.database.db
      .updateTable('oidc_clients')
      .set({ redirect_uris: JSON.stringify([`${registered.redirectUri}#`]) })
      .where('key_id', '=', registered.clientId)
      .execute();

    const page = await browser.fetch(pageUrl);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_client');
    const revoked = await world.app.call('POST', '/v1/auth/sessions/revoke', {
      key: registered.apiSecret,
      body: { wallet: heidi.address },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body).toEqual({ revoked: 1 });
  });
});

describe('token endpoint', () => {
  it('a missing or wrong PKCE verifier is invalid_grant', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { code } = await codeFor(registered);
    const missing = await exchange(registered, code, undefined);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_grant' });
    const second = await codeFor(registered);
    const wrong = await exchange(registered, second.code, oidc.randomPKCECodeVerifier());
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a wrong client secret is invalid_client', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { code, verifier } = await codeFor(registered);
    const res = await exchange({ ...registered, clientSecret: `${registered.clientSecret}x` }, code, verifier);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('code replay: of 50 concurrent exchanges of one code exactly one gets tokens', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { code, verifier } = await codeFor(registered);
    const results = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await exchange(registered, code, verifier);
        return { status: res.status, body: await res.json() };
      }),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body.id_token).toBeTruthy();
    for (const loser of results.filter((r) => r.status !== 200)) {
      expect(loser).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
  });

  it('a revoked refresh token is invalid_grant', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { config, callback, verifier } = await codeFor(registered);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
    await oidc.tokenRevocation(config, tokens.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a revoked Connect session ends the sign-in: refresh invalid_grant, userinfo refused', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { config, callback, verifier } = await codeFor(registered);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
    const heidi = await demoWallet('heidi');
    expect(await world.app.app.services.sessions.revokeAllFor(heidi.address, registered.clientId)).toBe(1);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(oidc.fetchUserInfo(config, tokens.access_token, heidi.address)).rejects.toBeDefined();
  });

  it('a revoked API key: its client gets no tokens (the code exchange and refresh fail) and userinfo refuses', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { config, callback, verifier } = await codeFor(registered);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
    const { code: code2, verifier: verifier2 } = await codeFor(registered);
    const revoked = await world.app.call('DELETE', `/v1/keys/${registered.clientId}`, {
      bearer: registered.ownerBearer,
    });
    expect(revoked.status).toBe(200);
    const res = await exchange(registered, code2, verifier2);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    // 401 with a WWW-Authenticate challenge naming invalid_client.
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      status: 401,
      cause: [expect.objectContaining({ parameters: expect.objectContaining({ error: 'invalid_client' }) })],
    });
    // Userinfo reads the token with its client in one statement: the key's revocation is seen there too.
    const heidi = await demoWallet('heidi');
    await expect(oidc.fetchUserInfo(config, tokens.access_token, heidi.address)).rejects.toMatchObject({
      status: 401,
    });
    // And a new authorization request for it is refused at the provider.
    const { url } = await start(registered);
    const page = await new CookieBrowser().fetch(url.href);
    expect(page.status).toBe(400);
    // Its sign-ins ended with it, as a removed registration's do: no Connect session of them is left active.
    const sessions = await world.app.call('GET', `/v1/keys/${registered.clientId}/sessions`, {
      bearer: registered.ownerBearer,
    });
    expect(sessions.body).toEqual({ sessions: [] });
  });
});

describe('a removed registration', () => {
  it('ends its sign-ins: registered again, the old tokens are refused and the Connect sessions are gone', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const { callback, verifier } = await codeFor(registered);
    const issued = await exchange(registered, callback.searchParams.get('code')!, verifier);
    expect(issued.status).toBe(200);
    const tokens = await issued.json();
    const path = `/v1/keys/${registered.clientId}`;
    const removed = await world.app.call('DELETE', `${path}/oidc`, { bearer: registered.ownerBearer });
    expect(removed.status).toBe(200);
    const again = await world.app.call('PUT', `${path}/oidc`, {
      bearer: registered.ownerBearer,
      body: { type: 'confidential', redirect_uris: [registered.redirectUri] },
    });
    expect(again.status).toBe(200);

    const userinfo = await fetch(`${world.app.base}/oidc/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    const refresh = await fetch(`${world.app.base}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${registered.clientId}:${again.body.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    const sessions = await world.app.call('GET', `${path}/sessions`, { bearer: registered.ownerBearer });
    expect(sessions.body).toEqual({ sessions: [] });
  });
});

// The same consume-once rules on Postgres (row locks instead of SQLite's single writer).
describe.skipIf(!postgresReachable)('Postgres', () => {
  const pg = useOidcWorld('postgres');

  it('code replay: one of 50 concurrent exchanges wins; a concurrently reused refresh token revokes the grant', async () => {
    const registered = await registerClient(pg.app, { type: 'confidential' });
    const { code, verifier } = await codeFor(registered, pg);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await exchange(registered, code, verifier, pg);
        return { status: res.status, body: await res.json() };
      }),
    );
    expect(
      statuses.filter((r) => r.status === 200),
      JSON.stringify(statuses.slice(0, 3)),
    ).toHaveLength(1);
    const tokens = statuses.find((r) => r.status === 200)!.body;
    expect(statuses.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(49);

    // A refresh token presented twice is reuse: the library revokes the whole grant (OAuth 2.0 Security BCP).
    // Concurrently, at most one exchange can succeed before that, and afterwards nothing of the grant works.
    const refreshOnce = async (token: string) => {
      const res = await fetch(`${pg.app.base}/oidc/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${registered.clientId}:${registered.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
      });
      return { status: res.status, body: await res.json() };
    };
    const refresh = await Promise.all(Array.from({ length: 10 }, () => refreshOnce(tokens.refresh_token)));
    const won = refresh.filter((r) => r.status === 200);
    expect(won.length).toBeLessThanOrEqual(1);
    for (const r of refresh.filter((x) => x.status !== 200)) {
      expect(r).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
    for (const r of won) expect((await refreshOnce(r.body.refresh_token)).status).toBe(400);
  });
});
