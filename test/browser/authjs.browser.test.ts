// A real Auth.js app (@auth/core, test/browser/authjs-app.ts) with Sigil as a generic OpenID Connect provider, in
// headless Chromium: the app's stock sign-in page → Sigil's sign-in page, where the test wallet (Wallet Standard,
// test-wallet.ts) makes one of the three Connect proofs for the app's key → back to Auth.js's callback, which
// exchanges the code (PKCE, state, client secret) and validates the id token → the app shows the handle from its
// own session, and the id token's `amr` names the proof. One sign-in per proof (message, Sign-In With Solana, memo
// transaction), and a wallet with no usable feature. No portal and no Next.js build: the service, the local chain,
// the app and the browser only.
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { getCompiledTransactionMessageDecoder, getTransactionDecoder, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDC_AMR } from '@sigil/contract/oidc';
import { demoWallet } from '../../server/src/localchain/scenario';
import { registerClient, useOidcWorld } from '../support/oidc-world';
// @ts-expect-error plain ESM script without types (also run by .ci/run before the tests)
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';
import { installTestWallet, type TestWallet, type TestWalletFeature } from './test-wallet';
import { startAuthJsApp, type AuthJsApp } from './authjs-app';

const world = useOidcWorld();
let authApp: AuthJsApp;
let browser: Browser;
let clientId: string;

const NONCE = '[1-9A-HJ-NP-Za-km-z]+';
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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

interface Opened {
  page: Page;
  wallet: TestWallet;
  /** Uncaught errors in the pages. */
  errors: string[];
}

interface SecondWallet {
  name: string;
  features: string[];
}

/**
 * Runs in the page: a second Wallet Standard wallet, registered by the standard's window-event protocol (what
 * `registerWallet` does), that offers `features` and is never used to sign (its account list stays empty).
 */
function registerSecondWallet({ name, features }: SecondWallet): void {
  const unused = () => Promise.reject(new Error(`${name} is not used to sign`));
  const wallet = {
    version: '1.0.0',
    name,
    icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
    chains: ['solana:localnet'],
    accounts: [],
    features: Object.fromEntries(
      ['standard:connect', ...features].map((feature) => [feature, { version: '1.0.0', connect: unused }]),
    ),
  };
  const register = ({ register }: { register(w: unknown): void }) => register(wallet);
  window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: register }));
  window.addEventListener('wallet-standard:app-ready', (event) =>
    register((event as CustomEvent<{ register(w: unknown): void }>).detail),
  );
}

/**
 * A fresh browser with the test wallet for `signer` (offering `features`), from the app's home page through Auth.js's
 * sign-in page to Sigil's sign-in page for this app's client.
 */
async function openSigilSignIn(
  signer: KeyPairSigner,
  run: (opened: Opened) => Promise<void>,
  wallet: { name?: string; features?: readonly TestWalletFeature[]; alsoRegister?: SecondWallet } = {},
): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    const installed = await installTestWallet(page, signer, wallet);
    if (wallet.alsoRegister) await page.addInitScript(registerSecondWallet, wallet.alsoRegister);

    await page.goto(authApp.base);
    expect(await page.locator('#user').textContent()).toBe('Not signed in');
    await page.click('#signin');
    // Auth.js's own sign-in page: one button per provider.
    await page.getByRole('button', { name: 'Sign in with Sigil' }).click();

    // The provider's authorization endpoint answers with its sign-in page (no redirect to the interaction's URL).
    await page.waitForURL(`${world.app.base}/oidc/auth?**`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Sign in to ${clientId}`);
    await run({ page, wallet: installed, errors });
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

/** The proof choices the page shows, and the one chosen. */
async function proofChoices(page: Page): Promise<{ shown: string[]; chosen: string | null }> {
  const radios = page.getByRole('radio');
  const shown: string[] = [];
  let chosen: string | null = null;
  for (const radio of await radios.all()) {
    // The label is the text right after the radio (a hint follows it).
    const label = (await radio.evaluate((el) => el.nextSibling?.textContent ?? '')).trim();
    shown.push(label);
    if (await radio.isChecked()) chosen = label;
  }
  return { shown, chosen };
}

/** axe's serious and critical findings on the page as it is now (WCAG 2.1 A and AA). */
async function seriousA11yViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Back at the app: who its Auth.js session says is signed in, and the `amr` of the id token it validated. */
async function signedIn(page: Page): Promise<{ user: string | null; amr: unknown }> {
  await page.waitForURL(`${authApp.base}/`);
  return { user: await page.locator('#user').textContent(), amr: authApp.idTokenClaims.at(-1)?.amr };
}

describe('Auth.js with Sigil as its OpenID Connect provider', () => {
  it('message (/verify): @alice signs the handle-control string bound to the app’s key', async () => {
    const alice = await demoWallet('alice');
    await openSigilSignIn(alice, async ({ page, wallet }) => {
      // A wallet with all three features: every proof is offered, message signing first.
      expect(await proofChoices(page)).toEqual({
        shown: ['Sign a message', 'Sign in with Solana', 'Sign a memo transaction'],
        chosen: 'Sign a message',
      });
      await expect(page.getByText('A @handle sign-in uses message signing.').isVisible()).resolves.toBe(false);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByLabel('@handle (optional)').fill('@alice');
      await page.getByRole('button', { name: 'Sign in with Sigil Test Wallet' }).click();

      expect(await signedIn(page)).toEqual({ user: 'Signed in as alice', amr: [OIDC_AMR.verify] });
      // The wallet was asked for exactly one signature: the handle-control string bound to the app's key.
      expect(wallet.requests.map((r) => r.op)).toEqual(['signMessage']);
      expect(wallet.requests[0]!.detail).toMatch(
        new RegExp(`^sigil-connect:v2:handle-control:${clientId}:sigil-handles:ctl:v1:alice:\\d+:${NONCE}$`),
      );
    });
  });

  it('Sign-In With Solana (/verify-signin): the wallet signs a standard message for the issuer’s host naming the app', async () => {
    const alice = await demoWallet('alice');
    await openSigilSignIn(alice, async ({ page, wallet }) => {
      await page.getByRole('radio', { name: /Sign in with Solana/ }).check();
      // A @handle sign-in is by message: the field is off for the other proofs.
      await expect(page.getByLabel('@handle (optional)').isDisabled()).resolves.toBe(true);
      await expect(page.getByText('A @handle sign-in uses message signing.').isVisible()).resolves.toBe(true);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Sign in with Sigil Test Wallet' }).click();

      // An address sign-in: the name is the wallet's trusted primary, as Connect's session read reports it.
      expect(await signedIn(page)).toEqual({ user: 'Signed in as alice', amr: [OIDC_AMR['verify-signin']] });
      expect(wallet.requests.map((r) => r.op)).toEqual(['signIn']);
      const issuer = world.app.base;
      expect(wallet.requests[0]!.detail).toMatch(
        new RegExp(
          `^${escapeRegExp(new URL(issuer).host)} wants you to sign in with your Solana account:\\n${alice.address}\\n\\n` +
            `Sign in to ${clientId} with Sigil\\.\\n\\nURI: ${escapeRegExp(issuer)}\\nVersion: 1\\n` +
            `Nonce: ${NONCE}\\nIssued At: \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z$`,
        ),
      );
    });
  });

  it('memo transaction (/verify-tx): a wallet that only signs transactions signs a memo bound to the app’s key, never sent', async () => {
    const bob = await demoWallet('bob');
    const features: TestWalletFeature[] = ['solana:signTransaction'];
    await openSigilSignIn(
      bob,
      async ({ page, wallet }) => {
        // The one proof this wallet can make is the only one offered, and chosen.
        expect(await proofChoices(page)).toEqual({
          shown: ['Sign a memo transaction'],
          chosen: 'Sign a memo transaction',
        });
        await page.getByRole('button', { name: 'Sign in with Hardware Test Wallet' }).click();

        expect(await signedIn(page)).toEqual({ user: 'Signed in as bob', amr: [OIDC_AMR['verify-tx']] });
        expect(wallet.requests.map((r) => r.op)).toEqual(['signTransaction']);
        const tx = getTransactionDecoder().decode(Buffer.from(wallet.requests[0]!.detail, 'base64'));
        const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
        if (message.version === 1) throw new Error('a v1 message carries no instruction list');
        expect(message.version).toBe('legacy');
        expect(message.staticAccounts).toEqual([bob.address, 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr']);
        expect(message.instructions).toHaveLength(1);
        expect(new TextDecoder().decode(message.instructions[0]!.data)).toMatch(
          new RegExp(`^sigil-verify:${clientId}:${NONCE}$`),
        );
      },
      { name: 'Hardware Test Wallet', features },
    );
  });

  it('two wallets: the one that cannot make the chosen proof has its button off, with the reason', async () => {
    const alice = await demoWallet('alice');
    await openSigilSignIn(
      alice,
      async ({ page, wallet }) => {
        const ledger = page.getByRole('button', { name: 'Sign in with Ledger-Like Wallet' });
        const test = page.getByRole('button', { name: 'Sign in with Sigil Test Wallet' });
        await ledger.waitFor();
        expect((await proofChoices(page)).chosen).toBe('Sign a message');
        await expect(ledger.isDisabled()).resolves.toBe(true);
        await expect(test.isEnabled()).resolves.toBe(true);
        const reason = 'Ledger-Like Wallet cannot sign a message; choose another way above.';
        await expect(page.getByText(reason).isVisible()).resolves.toBe(true);
        await expect(ledger.getAttribute('aria-describedby')).resolves.toBe(
          await page.getByText(reason).getAttribute('id'),
        );
        // Both can make a memo transaction.
        await page.getByRole('radio', { name: /Sign a memo transaction/ }).check();
        await expect(ledger.isEnabled()).resolves.toBe(true);
        await expect(page.getByText(reason).count()).resolves.toBe(0);
        expect(await seriousA11yViolations(page)).toEqual([]);
        expect(wallet.requests).toEqual([]);
      },
      { alsoRegister: { name: 'Ledger-Like Wallet', features: ['solana:signTransaction'] } },
    );
  });

  it('a wallet whose only Solana feature cannot prove anything here is named with the reason, and asked nothing', async () => {
    const heidi = await demoWallet('heidi');
    const features: TestWalletFeature[] = ['solana:signAndSendTransaction'];
    await openSigilSignIn(
      heidi,
      async ({ page, wallet }) => {
        await expect(
          page
            .getByText(
              'Send-Only Test Wallet cannot sign in here: it offers none of message signing, Sign-In With Solana or transaction signing.',
            )
            .isVisible(),
        ).resolves.toBe(true);
        await expect(page.getByRole('button', { name: /^Sign in with / }).count()).resolves.toBe(0);
        await expect(page.getByRole('radio').count()).resolves.toBe(0);
        expect(wallet.requests).toEqual([]);
        expect(page.url()).toContain('/oidc/auth?');
      },
      { name: 'Send-Only Test Wallet', features },
    );
  });
});
