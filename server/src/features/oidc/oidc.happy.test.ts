// The provider from outside, with the stock openid-client (no Sigil code on the client side): discovery →
// authorization code + PKCE → token → userinfo → refresh (rotating) → revocation, for a handle-control and an
// address-control sign-in; the id token verifies against the JWKS with jose alone.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { demoWallet } from '../../localchain/scenario';
import {
  CookieBrowser,
  fixedAuthorizationUrl,
  registerClient,
  signInThroughPage,
  useOidcWorld,
} from '@sigil/test/support/oidc-world';
import { pageBaseOf } from '@sigil/test/support/oidc-page';

const world = useOidcWorld();
const insecure = { execute: [oidc.allowInsecureRequests] };

async function fullFlow(options: { wallet: string; challengeBody?: (address: string) => Record<string, unknown> }) {
  const registered = await registerClient(world.app, { type: 'confidential' });
  const config = await oidc.discovery(
    new URL(world.app.base),
    registered.clientId,
    undefined,
    oidc.ClientSecretBasic(registered.clientSecret!),
    insecure,
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const authorizationUrl = oidc.buildAuthorizationUrl(config, {
    redirect_uri: registered.redirectUri,
    scope: 'openid profile wallet attestations offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'consent',
  });
  const wallet = await demoWallet(options.wallet);
  const callback = await signInThroughPage(new CookieBrowser(), world.app, authorizationUrl, {
    wallet,
    audience: registered.clientId,
    challengeBody: options.challengeBody?.(wallet.address),
  });
  const tokens = await oidc
    .authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state })
    .catch((e) => {
      throw new Error(`${e.error}: ${e.error_description} ${JSON.stringify(e.cause)}`);
    });
  return { registered, config, tokens, wallet };
}

describe('openid-client against the provider', () => {
  it('discovery names the issuer, ES256, PKCE S256, the scopes and claims', async () => {
    const res = await fetch(`${world.app.base}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.issuer).toBe(world.app.base);
    expect(doc.authorization_endpoint).toBe(`${world.app.base}/oidc/auth`);
    expect(doc.token_endpoint).toBe(`${world.app.base}/oidc/token`);
    expect(doc.jwks_uri).toBe(`${world.app.base}/oidc/jwks`);
    expect(doc.userinfo_endpoint).toBe(`${world.app.base}/oidc/me`);
    expect(doc.revocation_endpoint).toBe(`${world.app.base}/oidc/token/revocation`);
    expect(doc.end_session_endpoint).toBe(`${world.app.base}/oidc/session/end`);
    expect(doc.id_token_signing_alg_values_supported).toEqual(['ES256']);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    expect(doc.response_types_supported).toEqual(['code']);
    expect(doc.scopes_supported).toEqual(['openid', 'offline_access', 'profile', 'wallet', 'attestations']);
    expect(doc.backchannel_logout_supported).toBe(true);
    for (const claim of ['sub', 'preferred_username', 'wallet', 'sigil_source', 'sigil_verified', 'amr', 'auth_time']) {
      expect(doc.claims_supported).toContain(claim);
    }
  });

  it('handle control (@alice): tokens, claims, userinfo, rotating refresh, revocation', async () => {
    const { registered, config, tokens, wallet } = await fullFlow({
      wallet: 'alice',
      challengeBody: () => ({ handle: '@alice' }),
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: world.app.base,
      aud: registered.clientId,
      sub: wallet.address,
      preferred_username: 'alice',
      wallet: wallet.address,
      sigil_source: 'owner',
      amr: ['sigil-signature'],
    });
    expect(claims.sigil_verified).toEqual(expect.arrayContaining(['x', 'github']));
    expect(typeof claims.auth_time).toBe('number');

    // The id token verifies with jose alone against the published JWKS.
    const jwks = createRemoteJWKSet(new URL(`${world.app.base}/oidc/jwks`));
    const { payload, protectedHeader } = await jwtVerify(tokens.id_token!, jwks, {
      issuer: world.app.base,
      audience: registered.clientId,
      algorithms: ['ES256'],
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.sub).toBe(wallet.address);

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, wallet.address);
    expect(userinfo).toMatchObject({
      sub: wallet.address,
      preferred_username: 'alice',
      wallet: wallet.address,
      sigil_source: 'owner',
    });

    // Refresh rotates: a new refresh token, and the old one no longer works.
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.claims()!.sub).toBe(wallet.address);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    // Revocation: the revoked refresh token is refused.
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('address control (heidi, no handle): sub and wallet are the address, no preferred_username', async () => {
    const { config, tokens, wallet } = await fullFlow({ wallet: 'heidi' });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ sub: wallet.address, wallet: wallet.address, sigil_source: 'wallet' });
    expect(claims).not.toHaveProperty('preferred_username');
    expect(claims.sigil_verified).toEqual([]);
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, wallet.address);
    expect(userinfo).toMatchObject({ sub: wallet.address, wallet: wallet.address, sigil_source: 'wallet' });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    await oidc.tokenRevocation(config, refreshed.access_token);
    await expect(oidc.fetchUserInfo(config, refreshed.access_token, wallet.address)).rejects.toBeDefined();
  });

  it('a public client (no secret, PKCE only) signs in and refreshes', async () => {
    const registered = await registerClient(world.app, { type: 'public' });
    const config = await oidc.discovery(new URL(world.app.base), registered.clientId, undefined, oidc.None(), insecure);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: registered.redirectUri,
      scope: 'openid wallet offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      prompt: 'consent',
    });
    const heidi = await demoWallet('heidi');
    const callback = await signInThroughPage(new CookieBrowser(), world.app, url, {
      wallet: heidi,
      audience: registered.clientId,
    });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
    expect(tokens.claims()).toMatchObject({ sub: heidi.address, wallet: heidi.address, aud: registered.clientId });
    expect(tokens.claims()).not.toHaveProperty('sigil_verified'); // the attestations scope was not asked for
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
  });
});

describe('the sign-in page', () => {
  it("is the authorization endpoint's own answer, with the cookies that bind the interaction, and the same page as at its URL", async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const browser = new CookieBrowser();
    const res = await browser.fetch(fixedAuthorizationUrl(world.app, registered).href);
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const base = pageBaseOf(html)!;
    expect(base).toMatch(/^\/oidc\/interaction\/[\w-]+$/);
    const uid = base.split('/').at(-1)!;
    expect(html).toContain(
      `<code>${registered.clientId}</code> asks for:</p><ul><li><code>openid</code></li><li><code>wallet</code></li>`,
    );
    // The page's steps are bound to this browser by a cookie under the interaction's path, the resume by one under
    // the authorization endpoint's resume path (each with its signature cookie).
    const cookies = res.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith('_interaction='))).toMatch(
      new RegExp(`^_interaction=${uid}; path=/oidc/interaction/${uid}; expires=[^;]+; samesite=lax; httponly$`),
    );
    expect(cookies.find((c) => c.startsWith('_interaction_resume='))).toMatch(
      new RegExp(`^_interaction_resume=${uid}; path=/oidc/auth/${uid}; expires=[^;]+; samesite=lax; httponly$`),
    );
    expect(cookies.filter((c) => c.includes('.sig='))).toHaveLength(2);
    // The interaction's own URL serves the same document (a reload there, or an interaction reached by its URL).
    const own = await browser.fetch(`${world.app.base}${base}`);
    expect(own.status).toBe(200);
    expect(await own.text()).toBe(html);
  });
});
