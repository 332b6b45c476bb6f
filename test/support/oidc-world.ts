// Helpers for OpenID Connect suites (tests only): a keyed app that knows its own URL (the issuer), API keys
// registered as clients through the REST routes, and a cookie-keeping "browser" that walks the sign-in page by
// HTTP, signing the Connect string with a wallet key as the page's wallet would.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll } from 'vitest';
import { signChallenge } from '@sigil/client-sdk/connect';
import { createKey } from '../../server/src/features/keys/service';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import type { Dialect } from '../../server/src/platform/db/index';
import { portalSession, show } from './connect-world';
import { selfSignedCert } from './https-receiver';
import { startKeyedApp, type KeyedApp } from './keyed-app';
import { pageBaseOf } from './oidc-page';

export interface OidcWorld {
  chain: LocalChain;
  app: KeyedApp;
}

export function useOidcWorld(
  dialect: Dialect = 'sqlite',
  options: { onQuery?: Parameters<typeof startKeyedApp>[0]['onQuery']; env?: Record<string, string> } = {},
): OidcWorld {
  const world = {} as OidcWorld;
  beforeAll(async () => {
    world.chain = await startLocalChain({ scenario: true });
    // Back-channel logout reaches the tests' loopback HTTPS receivers through the real outbound client.
    world.app = await startKeyedApp({
      dialect,
      chain: world.chain,
      ownPublicUrl: true,
      env: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true', ...options.env },
      outboundOptions: { ca: selfSignedCert().cert },
      onQuery: options.onQuery,
    });
  });
  afterAll(async () => {
    await world.app?.close();
    await world.chain?.close();
  });
  return world;
}

export interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  /** The key's owner: a portal session for the REST routes. */
  ownerBearer: string;
  /** The key's API secret (the integrator's backend). */
  apiSecret: string;
}

/** A fresh API key owned by a fresh wallet, registered as an OpenID Connect client through PUT /v1/keys/{id}/oidc. */
export async function registerClient(
  app: KeyedApp,
  options: { type: 'confidential' | 'public'; redirectUri?: string; extra?: Record<string, unknown> },
): Promise<RegisteredClient> {
  const owner = await generateKeyPairSigner();
  const { key, secret } = await createKey(app.database.db, { account: owner.address, name: 'oidc app' });
  const { token } = await portalSession(app, owner);
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1:1/callback';
  const res = await app.call('PUT', `/v1/keys/${key.id}/oidc`, {
    bearer: token,
    body: { type: options.type, redirect_uris: [redirectUri], ...options.extra },
  });
  if (res.status !== 200) throw new Error(`client registration failed: ${show(res)}`);
  return { clientId: key.id, clientSecret: res.body.client_secret, redirectUri, ownerBearer: token, apiSecret: secret };
}

/** A minimal browser: keeps cookies per host path-agnostically (all on one origin), follows nothing by itself. */
export class CookieBrowser {
  private readonly cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** GETs and follows redirects while they stay on `origin`; returns the first response that is not one, or the
   * first redirect leaving the origin (the client's callback). */
  async follow(url: string, origin: string): Promise<{ res: Response; url: string }> {
    let current = url;
    for (let hops = 0; hops < 10; hops++) {
      const res = await this.fetch(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current };
      const next = new URL(location, current).href;
      if (!next.startsWith(origin)) return { res, url: next };
      current = next;
    }
    throw new Error('too many redirects');
  }

  async postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
    const res = await this.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }
}

/**
 * An authorization request for `registered`, with a fixed PKCE challenge (RFC 7636's example, whose verifier no test
 * holds): for flows that never exchange the code.
 */
export function fixedAuthorizationUrl(app: KeyedApp, registered: RegisteredClient, scope = 'openid wallet'): URL {
  const url = new URL(`${app.base}/oidc/auth`);
  url.search = new URLSearchParams({
    client_id: registered.clientId,
    redirect_uri: registered.redirectUri,
    response_type: 'code',
    scope,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
  return url;
}

/**
 * Opens the sign-in page of an authorization URL as a browser does: the authorization endpoint answers with the page
 * (page.ts signInPageInPlace). `pageUrl` is the interaction's base URL, which the page's steps post to.
 */
export async function openSignInPage(browser: CookieBrowser, app: KeyedApp, authorizationUrl: URL) {
  const { res, url } = await browser.follow(authorizationUrl.href, app.base);
  const html = await res.text();
  const base = pageBaseOf(html);
  if (res.status !== 200 || !base) throw new Error(`expected the sign-in page, got ${res.status} at ${url}: ${html}`);
  return { pageUrl: new URL(base, app.base).href, html };
}

/**
 * Runs the page's Connect sign-in by HTTP: challenge (for `challengeBody`), sign with `wallet` for `audience`,
 * verify, then follow the provider back to the client's redirect URI. Returns that callback URL.
 */
export async function signInThroughPage(
  browser: CookieBrowser,
  app: KeyedApp,
  authorizationUrl: URL,
  options: { wallet: KeyPairSigner; audience: string; challengeBody?: Record<string, unknown> },
): Promise<URL> {
  const { pageUrl } = await openSignInPage(browser, app, authorizationUrl);
  const challenge = await browser.postJson(
    `${pageUrl}/challenge`,
    options.challengeBody ?? { wallet: options.wallet.address },
  );
  if (challenge.status !== 200) throw new Error(`challenge: ${challenge.status} ${JSON.stringify(challenge.body)}`);
  const proof = await signChallenge(challenge.body, options.wallet, options.audience);
  const verified = await browser.postJson(`${pageUrl}/verify`, { path: 'verify', ...proof });
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${JSON.stringify(verified.body)}`);
  const { url } = await browser.follow(verified.body.redirect_to, app.base);
  return new URL(url);
}
