// The portal in a real browser: its production build (`next build`, served by `next start`) driven by headless
// Debian Chromium through playwright-core, with a test wallet registered through the Wallet Standard that signs with
// demo-scenario keys (test-wallet.ts). The suite starts everything itself (harness.ts): the local chain, the service
// with its pay-webhook workers, an HTTPS webhook receiver and the portal.
//
//   production build   the build succeeds; pages and route handlers are served against the real service
//   sign-in            one flow per proof path (message, memo transaction, Sign-In With Solana) and the legacy
//                      window.solana fallback
//   the developer flow create a key → call the API with it → the usage chart shows the calls → register a webhook
//                      to the receiver → test event delivered → the receiver fails → the failure and its retry show
//                      → redeliver → rotate → revoke the key → its calls fail
//   identity events    an identity webhook scoped to a demo handle → test event delivered → recover → rotate →
//                      delete; the event log with its filters and cursor paging
//   OpenID Connect     a key registered as a client → its configuration copied → a refused redirect URI → edit →
//                      rotate → public; its sessions appear, are filtered, revoked one and a wallet's; removed
//   accessibility      axe on every page in both themes (zero serious or critical), no console errors
// Screenshots of each page and theme land in test/browser/artifacts/ (gitignored); `npm run portal:screenshots` also
// keeps the README's (readme-screenshots.ts).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { getTransactionDecoder, getCompiledTransactionMessageDecoder } from '@solana/kit';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@sigil/client-sdk/webhooks';
import { AUTO_PAUSED_PREFIX, WEBHOOK_LIMITS } from '@sigil/contract/webhooks';
import { demoWallet } from '../../server/src/localchain/scenario';
import { signIn as connectSignIn } from '../support/connect-world';
import { TEST_PORTAL_DOMAIN } from '../support/keyed-app';
import { startPortalStack, type OpenedPage, type PortalStack } from './harness';
import { keepScreenshot, writeScreenshotTable } from './readme-screenshots';

let stack: PortalStack;

beforeAll(async () => {
  stack = await startPortalStack();
}, 300_000);

afterAll(async () => {
  writeScreenshotTable();
  await stack?.close();
}, 60_000);

/** The widths every page is checked at: a phone, a tablet, a laptop. */
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1280, height: 800 },
] as const;
/** What `stack.open` gives a page: the flows run at this size. */
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

/**
 * The page as it is now at each width, in both themes: no horizontal scroll (WCAG 1.4.10 Reflow, which axe does not
 * test), the nav on one line where it is not folded behind the Menu button, zero serious or critical axe violations,
 * and a screenshot of each.
 */
async function checkPage(page: Page, name: string): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    // Charts size themselves from a ResizeObserver after the resize: measure once the page has settled (or give the
    // assertion below what is still too wide after 3 s).
    await page
      .waitForFunction(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth, null, {
        timeout: 3_000,
      })
      .catch(() => {});
    const { overflow, widest } = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      // The deepest elements reaching past the right edge: what to fix when the page scrolls.
      const past = Array.from(document.body.querySelectorAll('*')).filter(
        (el) => el.getBoundingClientRect().right > width + 0.5 && el.children.length === 0,
      );
      return {
        overflow: document.documentElement.scrollWidth - width,
        widest: past.slice(0, 3).map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
      };
    });
    expect(
      overflow,
      `${name} at ${viewport.width} px scrolls horizontally by ${overflow} px: ${widest.join(', ')}`,
    ).toBe(0);
    const navRows = await page.evaluate(() => {
      const items = Array.from(document.querySelectorAll('header nav li')).filter(
        (li) => li.getClientRects().length > 0,
      );
      return new Set(items.map((li) => Math.round(li.getBoundingClientRect().top))).size;
    });
    // Folded (narrow): no link shows until the menu opens. Unfolded: every link on one line.
    expect(navRows, `${name} at ${viewport.width} px: nav rows`).toBe(viewport.width < 1000 ? 0 : 1);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await stack.screenshot(page, `${name}-${viewport.width}-${colorScheme}`);
      if (colorScheme === 'light') await keepScreenshot(page, name, viewport.width);
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      const serious = results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(serious, `${name} at ${viewport.width} px in the ${colorScheme} theme`).toStrictEqual([]);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DEFAULT_VIEWPORT);
}

/** Signs in on /keys with the test wallet by the given proof path; returns when the account is shown. */
async function signIn(opened: OpenedPage, proof: RegExp): Promise<void> {
  const { page } = opened;
  await page.goto('/keys');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByRole('radio', { name: proof }).check();
  await page.getByRole('button', { name: /^Sign in with / }).click();
  await page.getByRole('heading', { name: 'Account' }).waitFor();
}

describe('production build', () => {
  it('next build succeeds and writes the production build', () => {
    expect(stack.build.code, stack.build.output).toBe(0);
    expect(existsSync(join(import.meta.dirname, '..', '..', 'web-portal', '.next', 'BUILD_ID'))).toBe(true);
    for (const route of [
      '/api/connect/[op]',
      '/keys',
      '/usage',
      '/webhooks',
      '/webhooks/[id]',
      '/webhooks/events',
      '/identity/webhooks',
      '/identity/webhooks/[id]',
      '/identity/events',
      '/keys/[id]/oidc',
      '/keys/[id]/sessions',
      '/quickstart',
    ])
      expect(stack.build.output).toContain(route);
  });

  it('serves the pages with anti-framing headers', async () => {
    const home = await fetch(`${stack.base}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('x-frame-options')).toBe('DENY');
    expect(await home.text()).toContain('Look up a name or wallet');
    const keys = await fetch(`${stack.base}/keys`);
    expect(keys.status).toBe(200);
    expect(await keys.text()).toContain('API keys');
  });

  it('the built route handlers reach the service: lookup over tRPC, Connect with the portal key', async () => {
    const input = encodeURIComponent(JSON.stringify({ name: '@alice' }));
    const resolved = await fetch(`${stack.base}/api/trpc/resolve.resolve?input=${input}`);
    const body = await resolved.json();
    expect(resolved.status, JSON.stringify(body)).toBe(200);
    expect(body.result.data).toMatchObject({ input: '@alice', name: 'alice', namespace: 'handle' });

    const challenge = await fetch(`${stack.base}/api/connect/challenge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wallet: stack.app.chain.scenario!.reverse.plainWithPrimary }),
    });
    const challengeBody = await challenge.json();
    expect(challenge.status, JSON.stringify(challengeBody)).toBe(200);
    expect(challengeBody.audience).toBe(stack.app.portal.key.id);

    const other = await fetch(`${stack.base}/api/connect/keys`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
    expect(await other.json()).toStrictEqual({ code: 'NOT_FOUND', message: 'unsupported operation: keys' });
  });
});

describe('sign-in in the browser, one flow per proof path', () => {
  it('message signing (/verify): the wallet signs exactly the challenge text', async () => {
    const heidi = await demoWallet('heidi');
    const opened = await stack.open({ wallet: heidi });
    await signIn(opened, /Sign a message/);
    const { page, wallet, errors } = opened;
    await expect(page.locator('dd.mono').first().textContent()).resolves.toBe(heidi.address);
    // The sign-in form is gone: the focus moved to the main content.
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
    expect(wallet!.requests.map((r) => r.op)).toStrictEqual(['signMessage']);
    expect(wallet!.requests[0]!.detail).toMatch(
      new RegExp(
        `^sigil-connect:v2:wallet-control:${TEST_PORTAL_DOMAIN.replaceAll('.', '\\.')}:${heidi.address}:[1-9A-HJ-NP-Za-km-z]+$`,
      ),
    );
    // The session survives a reload (httpOnly cookie), and signing out forgets it.
    await page.reload();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(errors).toStrictEqual([]);
    await opened.context.close();
  });

  it('memo transaction (/verify-tx): the wallet signs a one-instruction memo transaction that names the challenge', async () => {
    const ivan = await demoWallet('ivan');
    const opened = await stack.open({ wallet: ivan });
    await signIn(opened, /Sign a memo transaction/);
    const { wallet, errors } = opened;
    expect(wallet!.requests.map((r) => r.op)).toStrictEqual(['signTransaction']);
    const tx = getTransactionDecoder().decode(Buffer.from(wallet!.requests[0]!.detail, 'base64'));
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    expect(message.version).toBe('legacy');
    if (message.version === 1) throw new Error('a v1 message carries no instruction list');
    expect(message.staticAccounts[0]).toBe(ivan.address);
    expect(message.instructions).toHaveLength(1);
    const memo = new TextDecoder().decode(message.instructions[0]!.data);
    expect(memo).toMatch(
      new RegExp(`^sigil-verify:${TEST_PORTAL_DOMAIN.replaceAll('.', '\\.')}:[1-9A-HJ-NP-Za-km-z]+$`),
    );
    expect(errors).toStrictEqual([]);
    await opened.context.close();
  });

  it('Sign-In With Solana (/verify-signin): the wallet signs a standard message for the portal’s own host', async () => {
    const erin = await demoWallet('erin');
    const opened = await stack.open({ wallet: erin });
    await signIn(opened, /Sign in with Solana/);
    const { wallet, errors } = opened;
    expect(wallet!.requests.map((r) => r.op)).toStrictEqual(['signIn']);
    const host = new URL(stack.base).host;
    expect(wallet!.requests[0]!.detail).toMatch(
      new RegExp(
        `^${host.replaceAll('.', '\\.')} wants you to sign in with your Solana account:\\n${erin.address}\\n\\n` +
          `Sign in to the Sigil developer portal\\.\\n\\nURI: ${stack.base.replaceAll('.', '\\.')}\\nVersion: 1\\n` +
          `Nonce: [1-9A-HJ-NP-Za-km-z]+\\nIssued At: \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z$`,
      ),
    );
    expect(errors).toStrictEqual([]);
    await opened.context.close();
  });

  it('a legacy injected window.solana wallet is the fallback when no Wallet Standard wallet is present', async () => {
    const grace = await demoWallet('grace');
    const opened = await stack.open({ wallet: grace, legacyOnly: true });
    await opened.page.goto('/keys');
    await expect(opened.page.getByRole('radio', { name: 'Browser wallet (window.solana)' }).isChecked()).resolves.toBe(
      true,
    );
    // It can only sign messages: the other proofs are not offered.
    await expect(opened.page.getByRole('radio', { name: /Sign a memo transaction/ }).count()).resolves.toBe(0);
    await signIn(opened, /Sign a message/);
    expect(opened.wallet!.requests.map((r) => r.op)).toStrictEqual(['signMessage']);
    expect(opened.errors).toStrictEqual([]);
    await opened.context.close();
  });

  it('without any wallet the page says how to get one', async () => {
    const opened = await stack.open();
    await opened.page.goto('/keys');
    await opened.page.getByText('No Solana wallet found in this browser').waitFor();
    await checkPage(opened.page, 'keys-no-wallet');
    expect(opened.errors).toStrictEqual([]);
    await opened.context.close();
  });
});

/**
 * Waits until a row of the delivery log satisfies `done` (the newest such row), or the row of delivery `id`. Every row
 * is looked at: a real event for the watched wallet may be delivered in the middle of a flow and sit on top.
 */
async function waitForDelivery(
  page: Page,
  done: (row: { id: string; status: string; attempts: number; text: string }) => boolean,
  options: { id?: string; timeoutMs?: number } = {},
): Promise<{ id: string; status: string; attempts: number; text: string }> {
  const deadline = Date.now() + (options.timeoutMs ?? 40_000);
  let last = '';
  while (Date.now() < deadline) {
    const rows = page.locator('[data-testid=delivery-log] tbody tr');
    const candidates =
      options.id === undefined ? await rows.all() : [rows.and(page.locator(`[data-delivery-id="${options.id}"]`))];
    const seenRows: string[] = [];
    for (const row of candidates) {
      if ((await row.count()) === 0) continue;
      const seen = {
        id: (await row.getAttribute('data-delivery-id'))!,
        status: (await row.getAttribute('data-status'))!,
        attempts: Number(await row.getAttribute('data-attempts')),
        text: (await row.innerText()).replace(/\s+/g, ' '),
      };
      seenRows.push(JSON.stringify(seen));
      if (done(seen)) return seen;
    }
    last = seenRows.join('; ');
    await page.waitForTimeout(250);
  }
  throw new Error(`the delivery log did not reach the expected state; rows: ${last}`);
}

describe('the developer flow, in the browser', () => {
  it('key → API calls → chart → webhook → test event delivered → failure and retry → redeliver → rotate → revoke', async () => {
    const satoshi = await demoWallet('satoshi');
    const opened = await stack.open({ wallet: satoshi });
    const { page, wallet, errors } = opened;
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(opened, /Sign a message/);
    await checkPage(page, 'keys-signed-in');

    // Create a key: the secret is shown once, with a copy button and a ready curl line.
    await page.getByLabel('Label (optional)').fill('browser e2e');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').textContent())!;
    expect(secret).toMatch(/^sigil_sk_[1-9A-HJ-NP-Za-km-z]{40,50}$/);
    await expect(page.getByTestId('curl-line').textContent()).resolves.toBe(
      `curl -s -H 'X-API-Key: ${secret}' ${stack.app.base}/v1/resolve/alice`,
    );
    // Focus moved to the one-time secret.
    await expect(page.evaluate(() => document.activeElement?.classList.contains('secret'))).resolves.toBe(true);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied.').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(secret);
    await checkPage(page, 'keys-created');
    await page.getByRole('button', { name: 'Use this key for the event log' }).click();
    await page.getByText('The event log will use this key.').waitFor();
    const keyId = (await page.locator('tr[data-key-id]').first().getAttribute('data-key-id'))!;

    // Rename it.
    await page.getByRole('button', { name: 'Rename browser e2e' }).click();
    await page.getByLabel('New label (empty clears it)').fill('renamed e2e');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Revoke renamed e2e' }).waitFor();

    // Call the API with the key, from the test: 3 served, 1 client error. With the portal's own check of the key
    // ("Use this key for the event log": one keyed read), the key has made 4 served calls and 1 client error.
    for (let i = 0; i < 3; i++) {
      const res = await stack.app.call('POST', '/v1/auth/challenge', {
        key: secret,
        body: { wallet: satoshi.address },
      });
      expect(res.status, res.text).toBe(200);
    }
    const bad = await stack.app.call('POST', '/v1/auth/challenge', { key: secret, body: { wallet: 'nope' } });
    expect(bad.status, bad.text).toBe(400);

    // The usage chart of that key shows them.
    await page.getByRole('link', { name: 'Usage of renamed e2e' }).click();
    await page.getByRole('heading', { name: 'Usage over time' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'Key' }).inputValue()).resolves.toBe(keyId);
    await page.getByTestId('usage-total').getByText('5 requests in this range.').waitFor();
    await page.getByText('The numbers behind the chart').click();
    const row = page.locator('[data-testid=usage-table] tbody tr').first();
    await expect(row.locator('td').nth(1).textContent()).resolves.toBe('4');
    await expect(row.locator('td').nth(2).textContent()).resolves.toBe('1');
    // The chart (recharts SVG) draws the bars and the key's limit line.
    await expect(page.locator('.recharts-bar-rectangle').count()).resolves.toBeGreaterThan(0);
    await page.getByText('limit 15,000 / bucket').waitFor();
    for (const range of ['Last hour', 'Last 7 days', 'Last 30 days'] as const) {
      await page.getByRole('radio', { name: range }).check();
      await page.getByTestId('usage-total').getByText('5 requests in this range.').waitFor();
    }
    // The request log: the same five, one by one; the 4xx filter finds the bad call, the request id search too.
    await page.getByTestId('request-count').getByText('5 requests on this page.').waitFor();
    await expect(page.locator('[data-testid=request-log] tbody tr').count()).resolves.toBe(5);
    await page.getByRole('combobox', { name: 'Status' }).selectOption('4xx');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByTestId('request-count').getByText('1 request on this page.').waitFor();
    const badId = bad.headers.get('x-request-id')!;
    await expect(page.locator('[data-testid=request-log] tbody tr').getAttribute('data-request-id')).resolves.toBe(
      badId,
    );
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');
    await page.getByLabel('Request id').fill(badId);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByTestId('request-count').getByText('1 request on this page.').waitFor();
    await expect(page.locator('[data-testid=request-log] tbody tr td[data-label=Status]').textContent()).resolves.toBe(
      '400',
    );
    await checkPage(page, 'usage');

    // Register a webhook to the local HTTPS receiver: the challenge message is shown before the wallet signs it.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Register a webhook' }).waitFor();
    await page.getByText('No webhooks yet').waitFor();
    await checkPage(page, 'webhooks-empty');
    await page.getByLabel('Endpoint URL (HTTPS)').fill(stack.receiver.url);
    await page.getByLabel('Description (optional)').fill('e2e receiver');
    await page.getByRole('button', { name: 'Continue: show the message to sign' }).click();
    const shown = (await page.getByTestId('challenge-message').textContent())!;
    expect(shown).toContain(stack.receiver.url);
    expect(shown).toContain(satoshi.address);
    const signedBefore = wallet!.requests.length;
    await page.getByRole('button', { name: 'Sign with your wallet and register' }).click();
    const webhookSecret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(webhookSecret).toMatch(/^whsec_/);
    // What the wallet signed is byte for byte the message the page showed.
    expect(wallet!.requests.slice(signedBefore)).toStrictEqual([{ op: 'signMessage', detail: shown }]);
    await checkPage(page, 'webhooks-registered');
    await page.getByRole('link', { name: 'Open the webhook →' }).click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();

    // Managed with the session, no key secret: edit the event types (no signature needed)…
    await page.getByRole('checkbox', { name: 'invoice.closed' }).uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    await page
      .getByText('payment.received, payment.binding_verified, invoice.paid, invoice.created, invoice.cancelled', {
        exact: true,
      })
      .waitFor();
    // …change the endpoint: the wallet signs a fresh message naming the new URL, exactly as at registration…
    const newUrl = `${stack.receiver.url}-v2`;
    await page.getByLabel('New endpoint URL (HTTPS)').fill(newUrl);
    await page.getByRole('button', { name: 'Continue: show the message to sign' }).click();
    const urlMessage = (await page.getByTestId('challenge-message').textContent())!;
    expect(urlMessage).toContain(`url: ${newUrl}`);
    const signedBeforeUrl = wallet!.requests.length;
    await page.getByRole('button', { name: 'Sign with your wallet and change the endpoint' }).click();
    await page.getByText('Endpoint changed.').waitFor();
    expect(wallet!.requests.slice(signedBeforeUrl)).toStrictEqual([{ op: 'signMessage', detail: urlMessage }]);
    await page.getByText(newUrl, { exact: true }).waitFor();
    // …disable (the state says so) and enable again.
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByText('Webhook disabled: no deliveries until you enable it.').waitFor();
    await expect(page.getByTestId('webhook-status').textContent()).resolves.toBe('disabled by you');
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByText('Webhook enabled.').waitFor();
    await expect(page.getByTestId('webhook-status').textContent()).resolves.toBe('active');

    // A test event of a chosen type, then the delivery in full: the body as received, the headers, the attempts.
    await page.getByRole('combobox', { name: 'Test event of type' }).selectOption('invoice.paid');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const typed = await waitForDelivery(
      page,
      (d) => d.status === 'delivered' && d.text.includes('invoice.paid (test)'),
    );
    const typedRequest = stack.receiver.requests.find((r) => r.headers['sigil-delivery-id'] === typed.id)!;
    expect(typedRequest.url).toBe(new URL(newUrl).pathname);
    await page
      .locator(`tr[data-delivery-id="${typed.id}"]`)
      .getByRole('button', { name: /^Details of/ })
      .click();
    await expect(page.getByTestId('delivery-body').textContent()).resolves.toBe(typedRequest.body.toString('utf8'));
    await expect(page.getByTestId('delivery-headers').textContent()).resolves.toContain(
      typedRequest.headers['sigil-signature'] as string,
    );
    await expect(page.locator('[data-testid=delivery-attempts] tbody tr').count()).resolves.toBe(1);
    await checkPage(page, 'webhook-delivery-detail');
    await page.getByRole('button', { name: 'Redeliver this delivery' }).click();
    await page.getByText('Delivery queued again.').waitFor();
    await expect
      .poll(() => page.locator('[data-testid=delivery-attempts] tbody tr').count(), { timeout: 20_000 })
      .toBe(2);
    await page.getByRole('button', { name: 'Close the delivery' }).click();

    // A test event is delivered, signed with the secret shown at registration (checked with the SDK's verifier).
    await page.getByRole('combobox', { name: 'Test event of type' }).selectOption('payment.received');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const delivered = await waitForDelivery(
      page,
      (d) => d.status === 'delivered' && d.text.includes('payment.received (test)') && d.id !== typed.id,
    );
    expect(delivered.text).toContain('payment.received (test)');
    expect(delivered.text).toContain('HTTP 200');
    const first = stack.receiver.requests.at(-1)!;
    expect(first.headers['sigil-event-type']).toBe('payment.received');
    expect((await verifyWebhook(first.body, first.headers['sigil-signature'] as string, webhookSecret)).ok).toBe(true);
    await checkPage(page, 'webhook-delivered');

    // The receiver fails: the failure shows, then its retry (a second attempt), both answered 500.
    stack.receiver.status = 500;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const failing = await waitForDelivery(
      page,
      (d) => d.id !== delivered.id && d.id !== typed.id && d.text.includes('(test)') && d.attempts >= 1,
    );
    expect(failing.status).toBe('pending');
    expect(failing.text).toContain('HTTP 500');
    const retried = await waitForDelivery(page, (d) => d.attempts >= 2, { id: failing.id });
    expect(retried.text).toContain('HTTP 500');
    // Filters: delivered only hides the failing one.
    await page.getByRole('combobox', { name: 'Status' }).selectOption('delivered');
    await expect.poll(() => page.locator('[data-testid=delivery-log] tbody tr[data-status=pending]').count()).toBe(0);
    await expect(page.locator('[data-testid=delivery-log] tbody tr').count()).resolves.toBe(2);
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');
    await checkPage(page, 'webhook-failing');

    // Redeliver the delivered one once the receiver is back: the same event arrives again.
    stack.receiver.status = 200;
    const before = stack.receiver.requests.filter((r) => r.headers['sigil-delivery-id'] === delivered.id).length;
    await page
      .locator(`tr[data-delivery-id="${delivered.id}"]`)
      .getByRole('button', { name: /^Redeliver/ })
      .click();
    await page.getByText('Delivery queued again.').waitFor();
    await expect
      .poll(() => stack.receiver.requests.filter((r) => r.headers['sigil-delivery-id'] === delivered.id).length, {
        timeout: 20_000,
      })
      .toBe(before + 1);

    // Rotate: the new secret is shown once and signs the next delivery.
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = (await page.getByTestId('rotated-secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(webhookSecret);
    const count = stack.receiver.requests.length;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => stack.receiver.requests.length, { timeout: 20_000 }).toBeGreaterThan(count);
    const afterRotation = stack.receiver.requests.at(-1)!;
    const signatures = afterRotation.headers['sigil-signature'] as string;
    // During the rotation overlap (24 h) both secrets sign: two v1 entries, and either secret verifies.
    expect(signatures.match(/,v1=/g)).toHaveLength(2);
    expect((await verifyWebhook(afterRotation.body, signatures, rotated)).ok).toBe(true);
    expect((await verifyWebhook(afterRotation.body, signatures, webhookSecret)).ok).toBe(true);

    // An auto-paused webhook shows why and resumes. The pause is the delivery engine's, after 50 dead letters in a
    // row; the test sets it directly with the engine's own reason.
    const webhookId = page.url().split('/webhooks/')[1]!;
    const reason = `${AUTO_PAUSED_PREFIX}${WEBHOOK_LIMITS.autoPauseAfterDead} consecutive deliveries dead-lettered`;
    await stack.app.database.db
      .updateTable('webhook_subscriptions')
      .set({ status: 'paused', paused_reason: reason })
      .where('id', '=', webhookId)
      .execute();
    await page.reload();
    await expect(page.getByTestId('webhook-status').textContent()).resolves.toBe(
      'auto-paused: 50 consecutive deliveries dead-lettered',
    );
    await checkPage(page, 'webhook-paused');
    await page
      .getByRole('button', { name: /^Resume \(auto-paused: 50 consecutive deliveries dead-lettered\)$/ })
      .click();
    await page.getByText('Webhook resumed.').waitFor();
    await expect(page.getByTestId('webhook-status').textContent()).resolves.toBe('active');
    await expect(page.getByRole('button', { name: /^Resume/ }).count()).resolves.toBe(0);

    // Delete it: back to the (now empty) list.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhooks yet').waitFor();

    // Revoke the key: it disappears from the default list, and its calls now fail.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Revoke renamed e2e' }).click();
    await page.getByText('Revoked renamed e2e.').waitFor();
    await page.locator(`tr[data-key-id="${keyId}"]`).waitFor({ state: 'detached' });
    await page.getByRole('checkbox', { name: /Show revoked keys \(1\)/ }).check();
    await page
      .locator(`tr[data-key-id="${keyId}"]`)
      .getByText(/^revoked /)
      .waitFor();
    const refused = await stack.app.call('POST', '/v1/auth/challenge', {
      key: secret,
      body: { wallet: satoshi.address },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('INVALID_KEY');

    expect(errors).toStrictEqual([]);
    await opened.context.close();
  }, 180_000);
});

/** The event log's rows as shown: sequence, type, handle. */
async function eventRows(page: Page): Promise<{ sequence: number; type: string; handle: string }[]> {
  return page.locator('[data-testid=event-log] tbody tr').evaluateAll((rows) =>
    rows.map((r) => ({
      sequence: Number(r.getAttribute('data-sequence')),
      type: r.children[1]!.textContent!,
      handle: r.children[2]!.textContent!,
    })),
  );
}

describe('identity events, in the browser', () => {
  it('identity webhook on @alice → test event delivered → recover → rotate → delete; the log: filters, paging', async () => {
    stack.receiver.status = 200; // whatever an earlier flow left it at
    const judy = await demoWallet('judy');
    const opened = await stack.open({ wallet: judy });
    const { page, errors } = opened;
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(opened, /Sign a message/);
    await page.getByLabel('Label (optional)').fill('identity e2e');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-secret').waitFor();
    await page.getByRole('button', { name: 'Use this key for the event log' }).click();
    await page.getByText('The event log will use this key.').waitFor();

    // Create: scoped to a demo handle, two families; no wallet signature is asked for.
    await page.getByRole('link', { name: 'Identity events' }).click();
    await page.getByRole('heading', { name: 'Create an identity webhook' }).waitFor();
    await page.getByText('No identity webhooks yet: create one below.').waitFor();
    await expect(page.getByRole('link', { name: 'Identity events' }).getAttribute('aria-current')).resolves.toBe(
      'page',
    );
    await checkPage(page, 'identity-webhooks-empty');
    await page.getByLabel('Endpoint URL (HTTPS)').fill(stack.receiver.url);
    await page.getByLabel(/^Scope/).fill('@alice');
    await page.getByLabel('Description (optional)').fill('alice watcher');
    await page.getByRole('checkbox', { name: 'handle.*' }).check();
    await page.getByRole('checkbox', { name: 'record.*' }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    await expect(page.evaluate(() => document.activeElement?.classList.contains('secret'))).resolves.toBe(true);
    await expect(page.getByTestId('webhook-list').locator('tbody tr').innerText()).resolves.toBe(
      `alice watcher\n${stack.receiver.url}\t@alice\thandle.*, record.*\tactive`,
    );
    expect(opened.wallet!.requests.map((r) => r.op)).toStrictEqual(['signMessage']);
    await checkPage(page, 'identity-webhook-created');

    // Detail: a test event is delivered, signed with the secret shown at creation.
    await page.getByRole('link', { name: 'Open the webhook →' }).click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    await page.getByText('No deliveries yet: send a test event.').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('Test event (handle.registered) queued.').waitFor();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('log-heading');
    const delivered = await waitForDelivery(page, (d) => d.status === 'delivered' && d.text.includes('(test)'));
    expect(delivered.text).toContain('handle.registered (test)');
    expect(delivered.text).toContain('HTTP 200');
    const received = stack.receiver.requests.find((r) => r.headers['sigil-delivery-id'] === delivered.id)!;
    expect(received.headers['sigil-event-type']).toBe('handle.registered');
    expect((await verifyWebhook(received.body, received.headers['sigil-signature'] as string, secret)).ok).toBe(true);
    const payload = JSON.parse(received.body.toString());
    expect([payload.test, payload.sequence, payload.handle.name]).toStrictEqual([true, 0, 'alice']);
    // The type filter offers the identity types.
    await page.getByRole('combobox', { name: 'Event type' }).selectOption('record.set');
    await page.getByText('No deliveries match the filters.').waitFor();
    await page.getByRole('combobox', { name: 'Event type' }).selectOption('handle.registered');
    await expect.poll(() => page.locator('[data-testid=delivery-log] tbody tr').count()).toBe(1);
    await checkPage(page, 'identity-webhook-delivered');

    // Recover the last 24 hours: nothing failed, so nothing is queued again.
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    await page.getByText('Recovered: 0 deliveries queued again, 0 pending in the window.').waitFor();

    // Rotate: the new secret is shown once and takes the focus.
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = (await page.getByTestId('rotated-secret').textContent())!;
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(rotated).not.toBe(secret);
    await expect(page.evaluate(() => document.activeElement?.classList.contains('secret'))).resolves.toBe(true);
    await page.getByText('Secret rotated.').waitFor();

    // Delete: back to the (now empty) list.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No identity webhooks yet: create one below.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/identity/webhooks');

    // The log: @alice's events in sequence order, ten a page, forwards and back; then a type filter.
    await page.getByRole('link', { name: 'Event log' }).click();
    await page.getByRole('heading', { name: 'Filters' }).waitFor();
    await page.getByText('Choose filters (or none) and read the log.').waitFor();
    await checkPage(page, 'identity-events-empty');
    await page.getByLabel('Handle').fill('@alice');
    await page.getByRole('combobox', { name: 'Page size' }).selectOption('10');
    // The indexer derives the demo scenario's history in the background: read until a full page is there.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Read the log' }).click();
          await page.getByRole('button', { name: 'Read the log' }).waitFor();
          return page.getByRole('button', { name: 'Next page' }).count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('events-heading');
    const first = await eventRows(page);
    expect(first).toHaveLength(10);
    expect(first.every((r) => r.handle === '@alice')).toBe(true);
    expect(first.map((r) => r.sequence)).toStrictEqual([...first.map((r) => r.sequence)].sort((a, b) => a - b));
    expect(first[0]!.type).toBe('handle.registered');
    await checkPage(page, 'identity-events');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('button', { name: 'Previous page' }).waitFor();
    const second = await eventRows(page);
    expect(second.length).toBeGreaterThan(0);
    expect(second[0]!.sequence).toBeGreaterThan(first.at(-1)!.sequence);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('button', { name: 'Previous page' }).waitFor({ state: 'detached' });
    await expect(eventRows(page)).resolves.toStrictEqual(first);
    await page.getByLabel(/^Types/).fill('record.verified');
    await page.getByRole('button', { name: 'Read the log' }).click();
    await expect
      .poll(async () => (await eventRows(page)).map((r) => `${r.type} ${r.handle}`))
      .toStrictEqual(['record.verified @alice', 'record.verified @alice', 'record.verified @alice']);
    expect(errors).toStrictEqual([]);
    await opened.context.close();
  }, 150_000);
});

describe('OpenID Connect and sessions of a key, in the browser', () => {
  it('register a client → copy its configuration → a refused URI → edit → rotate; sessions: appear, filter, revoke one, revoke a wallet’s; remove', async () => {
    const frank = await demoWallet('frank');
    const opened = await stack.open({ wallet: frank });
    const { page, errors } = opened;
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(opened, /Sign a message/);
    await page.getByLabel('Label (optional)').fill('oidc app');
    await page.getByRole('button', { name: 'Create key' }).click();
    const apiSecret = (await page.getByTestId('new-secret').textContent())!;
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const keyId = (await page.locator('tr[data-key-id]').first().getAttribute('data-key-id'))!;

    // Not a client yet: the page offers the registration form.
    await page.getByRole('link', { name: 'OpenID Connect of oidc app' }).click();
    await page.getByRole('heading', { name: 'Register this key as a client' }).waitFor();
    await expect(
      page.getByRole('link', { name: 'OpenID Connect', exact: true }).getAttribute('aria-current'),
    ).resolves.toBe('page');
    await checkPage(page, 'key-oidc-unregistered');
    await page.getByLabel('Redirect URIs (one per line)').fill('https://app.example/api/auth/callback/sigil');
    await page.getByRole('checkbox', { name: /^offline_access/ }).uncheck();
    await page.getByRole('button', { name: 'Register the client' }).click();

    // Confidential (the default): the secret once, with the focus; the values an app pastes.
    const clientSecret = (await page.getByTestId('client-secret').textContent())!;
    expect(clientSecret).toMatch(/^sigil_cs_[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    await expect(page.evaluate(() => document.activeElement?.classList.contains('secret'))).resolves.toBe(true);
    await page.getByText('Client registered.').waitFor();
    const issuer = stack.app.config.publicUrl;
    await expect(page.getByTestId('oidc-env').textContent()).resolves.toBe(
      `SIGIL_ISSUER=${issuer}\nSIGIL_CLIENT_ID=${keyId}\nSIGIL_CLIENT_SECRET=${clientSecret}`,
    );
    await expect(page.getByTestId('oidc-config').innerText()).resolves.toContain(
      `${issuer}/.well-known/openid-configuration`,
    );
    await page.getByRole('button', { name: 'Copy client_id' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(keyId);
    await expect(page.getByTestId('oidc-settings').innerText()).resolves.toContain(
      'openid profile wallet attestations',
    );
    await checkPage(page, 'key-oidc-registered');
    // The service holds what the page showed: the secret authenticates the client at the token endpoint's check.
    const stored = await stack.app.database.db
      .selectFrom('oidc_clients')
      .select(['client_type', 'secret_hash', 'redirect_uris'])
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(stored.client_type).toBe('confidential');
    expect(stored.secret_hash).toBe(createHash('sha256').update(clientSecret).digest('hex'));
    await page.getByRole('button', { name: 'I have saved it' }).click();

    // A URI the service refuses: its reason shows beside the form, and nothing changes.
    const redirects = page.getByRole('textbox', { name: 'Redirect URIs (one per line)' });
    await redirects.fill('https://app.example/cb\nhttp://app.example/cb');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.locator('section[aria-labelledby="edit-heading"] p.error').textContent()).resolves.toBe(
      'invalid input: redirect_uris.1: http://app.example/cb must be https (http only on 127.0.0.1, localhost or [::1]) (BAD_REQUEST)',
    );
    await checkPage(page, 'key-oidc-refused');
    await expect(page.getByTestId('oidc-redirect-uris').innerText()).resolves.toBe(
      'https://app.example/api/auth/callback/sigil',
    );
    // Fixed: two URIs (a loopback one over http), saved and shown.
    await redirects.fill('https://app.example/cb\nhttp://127.0.0.1:3000/cb');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    await expect(page.locator('section[aria-labelledby="edit-heading"] p.error').count()).resolves.toBe(0);
    await expect(page.getByTestId('oidc-redirect-uris').innerText()).resolves.toBe(
      'https://app.example/cb\nhttp://127.0.0.1:3000/cb',
    );

    // Rotate: a new secret, shown once; the stored hash follows it.
    await page.getByRole('button', { name: 'Rotate the client secret' }).click();
    await page.getByText('Secret rotated: copy the new one above.').waitFor();
    const rotated = (await page.getByTestId('client-secret').textContent())!;
    expect(rotated).toMatch(/^sigil_cs_/);
    expect(rotated).not.toBe(clientSecret);
    const afterRotation = await stack.app.database.db
      .selectFrom('oidc_clients')
      .select('secret_hash')
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(afterRotation.secret_hash).toBe(createHash('sha256').update(rotated).digest('hex'));

    // Public: no secret, nothing to rotate.
    await page.getByRole('radio', { name: /^Public/ }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByTestId('oidc-type').textContent()).toBe('public');
    await expect(page.getByRole('button', { name: 'Rotate the client secret' }).count()).resolves.toBe(0);
    await expect(page.getByTestId('oidc-env').textContent()).resolves.toBe(
      `SIGIL_ISSUER=${issuer}\nSIGIL_CLIENT_ID=${keyId}`,
    );

    // Sessions: none yet; then three sign-ins through the key (the Connect routes, from here) appear.
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.getByRole('heading', { name: 'Active sessions' }).waitFor();
    await page.getByText(/^No active sessions/).waitFor();
    await checkPage(page, 'key-sessions-empty');
    const alice = await demoWallet('alice');
    const heidi = await demoWallet('heidi');
    const through = async (wallet: typeof alice, body?: Record<string, unknown>) => {
      const res = await connectSignIn(stack.app, { keySecret: apiSecret, audience: keyId, wallet, body });
      expect(res.status, res.text).toBe(200);
      return res.body.token as string;
    };
    const aliceTokens = [await through(alice, { handle: '@alice' }), await through(alice)];
    const heidiToken = await through(heidi);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const rows = page.locator('[data-testid=session-list] tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    // Newest first: heidi, then alice's two (the first proved @alice).
    await expect(rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-wallet')))).resolves.toStrictEqual([
      heidi.address,
      alice.address,
      alice.address,
    ]);
    await expect(rows.nth(2).locator('td[data-label=Wallet]').innerText()).resolves.toBe(`${alice.address}\n@alice`);
    await expect(rows.nth(0).locator('td[data-label=Proof]').innerText()).resolves.toBe('Connect API\nproves: wallet');
    await checkPage(page, 'key-sessions');
    // One wallet's only.
    await page.getByLabel('Only this wallet (optional)').fill(heidi.address);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByLabel('Only this wallet (optional)').fill('');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect.poll(() => rows.count()).toBe(3);

    // Revoke heidi's session: the service refuses it at once; alice's stay.
    const sessionRead = (token: string) => stack.app.call('GET', '/v1/auth/session', { key: apiSecret, bearer: token });
    await page.getByRole('button', { name: new RegExp(`^Revoke the session of ${heidi.address}`) }).click();
    await page.getByText('Session revoked.').waitFor();
    await expect.poll(() => rows.count()).toBe(2);
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('sessions-heading');
    expect((await sessionRead(heidiToken)).body.code).toBe('INVALID_SESSION');
    for (const token of aliceTokens) expect((await sessionRead(token)).status).toBe(200);
    // Revoke all of alice's.
    await rows
      .first()
      .getByRole('button', { name: `Revoke all for this wallet: ${alice.address}` })
      .click();
    await page.getByText(`Revoked 2 sessions of ${alice.address}.`).waitFor();
    await page.getByText(/^No active sessions/).waitFor();
    for (const token of aliceTokens) expect((await sessionRead(token)).body.code).toBe('INVALID_SESSION');

    // Remove the client: the page offers the registration again; the provider no longer knows it.
    await page.getByRole('link', { name: 'OpenID Connect', exact: true }).click();
    await page.getByRole('button', { name: 'Remove the client' }).click();
    await page.getByRole('heading', { name: 'Register this key as a client' }).waitFor();
    await page.getByText('Client removed: the key is no OpenID Connect client any more.').waitFor();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('register-heading');
    await expect(
      stack.app.database.db.selectFrom('oidc_clients').select('key_id').where('key_id', '=', keyId).execute(),
    ).resolves.toStrictEqual([]);

    // The one failed request of the flow is the refused URI (the browser logs a 4xx it fetched as an error).
    expect(errors).toStrictEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await opened.context.close();
  }, 180_000);

  it('another account’s key (or an unknown id) gets a plain answer instead of the pages', async () => {
    const opened = await stack.open({ wallet: await demoWallet('bob') });
    const { page, errors } = opened;
    await signIn(opened, /Sign a message/);
    for (const path of ['oidc', 'sessions']) {
      await page.goto(`/keys/${stack.app.key.key.id}/${path}`);
      await page.getByText(`No key ${stack.app.key.key.id} in your account.`).waitFor();
    }
    expect(errors).toStrictEqual([]);
    await opened.context.close();
  });
});

describe('narrow screens', () => {
  it('at 390 px the links fold behind a Menu button that opens them and closes again on navigation', async () => {
    const opened = await stack.open();
    const { page, errors } = opened;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    const menu = page.getByRole('button', { name: 'Menu' });
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(page.getByRole('link', { name: 'API keys' }).isVisible()).resolves.toBe(false);
    await menu.click();
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL('**/keys');
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    await expect(page.getByRole('link', { name: 'Usage' }).isVisible()).resolves.toBe(false);
    // Wide enough, the button is gone and the links show on one line.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(menu.isVisible()).resolves.toBe(false);
    await expect(page.getByRole('link', { name: 'Usage' }).isVisible()).resolves.toBe(true);
    expect(errors).toStrictEqual([]);
    await opened.context.close();
  });
});

describe('accessibility of the public pages', () => {
  it('look-up (empty, a handle with records, an agent’s level, an error), quickstart, and signed-out pages: axe in both themes', async () => {
    const opened = await stack.open({ wallet: await demoWallet('heidi') });
    const { page, errors } = opened;
    await page.goto('/');
    await checkPage(page, 'lookup');
    await page.getByLabel('Name or wallet address').fill('@alice');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { name: '@alice' }).waitFor();
    await page.getByRole('heading', { name: 'Address records' }).waitFor();
    await checkPage(page, 'lookup-alice');
    // An agent: its verification level and why the next one was not reached (this service does not trust the demo
    // agent host's CA, so the manifest is unreachable and the level stops at L0).
    await page.goto('/?q=@scout');
    await page.getByRole('heading', { name: 'Verification level' }).waitFor();
    await expect(page.locator('section[aria-labelledby="level-heading"] dd code').textContent()).resolves.toBe(
      'manifest-unreachable',
    );
    await checkPage(page, 'lookup-agent');
    await page.goto('/?q=nobodyhere');
    await expect(page.locator('main p.error').textContent()).resolves.toBe('nobodyhere: handle not registered');
    await checkPage(page, 'lookup-error');
    // The skip link is the first stop and moves the focus to the main content.
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
    for (const [path, name] of [
      ['/quickstart', 'quickstart'],
      ['/keys', 'keys-signed-out'],
      ['/usage', 'usage-signed-out'],
      ['/webhooks', 'webhooks-signed-out'],
      ['/identity/webhooks', 'identity-webhooks-signed-out'],
      ['/identity/events', 'identity-events-signed-out'],
    ] as const) {
      await page.goto(path);
      await page.locator('h1').waitFor();
      if (path !== '/quickstart') await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await checkPage(page, name);
    }
    // The event catalog is public: every type of both streams, an example opened (long JSON lines wrap).
    await page.goto('/webhooks/events');
    await page.getByRole('heading', { name: 'Identity events' }).waitFor();
    await expect(page.locator('details[data-event-type]').count()).resolves.toBe(40);
    await page.locator('details[data-event-type="invoice.paid"] summary').click();
    await page.locator('details[data-event-type="invoice.paid"] pre').getByText('"type": "invoice.paid"').waitFor();
    await checkPage(page, 'event-catalog');
    const favicon = await fetch(`${stack.base}/icon.svg`);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toContain('image/svg+xml');
    expect(errors).toStrictEqual([]);
    await opened.context.close();
  }, 120_000);
});
