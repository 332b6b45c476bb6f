// The sign-in page's challenge and proof steps are keyless (any registered client's authorization request opens a
// page), so each client address may take only SIGIL_OIDC_PAGE_LIMIT_PER_MINUTE of them a minute, per replica: past
// it, 429 RATE_LIMITED with Retry-After, before the step reads or writes anything. The page itself and its abort are
// not counted.
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { demoWallet } from '../../localchain/scenario';
import { CookieBrowser, openSignInPage, registerClient, useOidcWorld } from '@sigil/test/support/oidc-world';
import { awayFromMinuteEdge } from '@sigil/test/support/ratelimit-usage';

const world = useOidcWorld('sqlite', { env: { SIGIL_OIDC_PAGE_LIMIT_PER_MINUTE: '3' } });

async function openPage(browser: CookieBrowser) {
  const registered = await registerClient(world.app, { type: 'confidential' });
  const config = await oidc.discovery(
    new URL(world.app.base),
    registered.clientId,
    undefined,
    oidc.ClientSecretBasic(registered.clientSecret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: registered.redirectUri,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  return (await openSignInPage(browser, world.app, url)).pageUrl;
}

describe('the sign-in page steps, per client address', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the limit, for challenge and proof alike; the page and abort still answer', async () => {
    // The limiter's windows are minutes: the steps below must fall in one.
    await awayFromMinuteEdge(10_000);
    const browser = new CookieBrowser();
    const pageUrl = await openPage(browser);
    const wallet = (await demoWallet('heidi')).address;
    const steps = [];
    for (let i = 0; i < 3; i++) steps.push(await browser.postJson(`${pageUrl}/challenge`, { wallet }));
    expect(steps.map((s) => s.status)).toEqual([200, 200, 200]);

    const challenge = await browser.fetch(`${pageUrl}/challenge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wallet }),
    });
    expect(challenge.status).toBe(429);
    const retryAfter = Number(challenge.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await challenge.json()).toEqual({
      code: 'RATE_LIMITED',
      message: `too many sign-in steps from this address; retry after ${retryAfter} s`,
    });
    const proof = await browser.postJson(`${pageUrl}/verify`, { path: 'verify' });
    expect(proof.status).toBe(429);
    expect(proof.body.code).toBe('RATE_LIMITED');

    // Not counted: opening a page, and giving a sign-in up.
    const another = new CookieBrowser();
    const otherPage = await openPage(another);
    expect((await another.postJson(`${otherPage}/abort`, {})).status).toBe(200);
  });
});
