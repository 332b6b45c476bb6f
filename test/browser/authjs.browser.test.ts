// A real Auth.js app (@auth/core, test/browser/authjs-app.ts) with Sigil as a generic OpenID Connect provider, in
// headless Chromium: the app's stock sign-in page → Sigil's sign-in page, where the test wallet (Wallet Standard,
// test-wallet.ts) signs the Connect string bound to the app's key → back to Auth.js's callback, which exchanges the
// code (PKCE, state, client secret) and validates the id token → the app shows the handle from its own session.
// No portal and no Next.js build: the service, the local chain, the app and the browser only.
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWallet } from '../../server/src/localchain/scenario';
import { registerClient, useOidcWorld } from '../support/oidc-world';
// @ts-expect-error plain ESM script without types (also run by .ci/run before the tests)
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';
import { installTestWallet } from './test-wallet';
import { startAuthJsApp, type AuthJsApp } from './authjs-app';

const world = useOidcWorld();
let authApp: AuthJsApp;
let browser: Browser;
let clientId: string;

beforeAll(async () => {
  authApp = await startAuthJsApp();
  const registered = await registerClient(world.app, { type: 'confidential', redirectUri: authApp.redirectUri });
  clientId = registered.clientId;
  authApp.configure({ issuer: world.app.base, clientId, clientSecret: registered.clientSecret! });
  browser = await chromium.launch({
    executablePath: ensureChromium() as string,
    headless: true,
    args: ['--no-sandbox'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await authApp?.close();
}, 60_000);

describe('Auth.js with Sigil as its OpenID Connect provider', () => {
  it('signs @alice in through the Sigil sign-in page and shows the handle from the Auth.js session', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      const alice = await demoWallet('alice');
      const wallet = await installTestWallet(page, alice);

      await page.goto(authApp.base);
      expect(await page.locator('#user').textContent()).toBe('Not signed in');
      await page.click('#signin');
      // Auth.js's own sign-in page: one button per provider.
      await page.getByRole('button', { name: 'Sign in with Sigil' }).click();

      await page.waitForURL(`${world.app.base}/oidc/interaction/**`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Sign in to ${clientId}`);
      await page.fill('#handle', '@alice');
      await page.getByRole('button', { name: 'Sign in with Sigil Test Wallet' }).click();

      await page.waitForURL(`${authApp.base}/`);
      expect(await page.locator('#user').textContent()).toBe('Signed in as alice');
      // The wallet was asked for exactly one signature: the handle-control string bound to the app's key.
      expect(wallet.requests).toHaveLength(1);
      expect(wallet.requests[0]!.op).toBe('signMessage');
      expect(wallet.requests[0]!.detail).toMatch(
        new RegExp(`^sigil-connect:v2:handle-control:${clientId}:sigil-handles:ctl:v1:alice:\\d+:`),
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
