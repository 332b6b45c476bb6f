// The browser suite's world, started by the suite itself: the local chain (demo scenario), the service in this
// process (fresh SQLite, with the pay-webhook workers as main.ts runs them, allowed to deliver to a loopback HTTPS
// receiver), the portal's production build served by `next start`, and headless Debian Chromium driven by
// playwright-core (installed with apt-get when missing: scripts/ensure-chromium.mjs).
//
// One `next build` per run: the build's own checks (the production build test) live in the same suite.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { KeyPairSigner } from '@solana/kit';
import { startKeyedApp, TEST_PORTAL_DOMAIN, type KeyedApp } from '../support/keyed-app';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver';
import { Lifecycle } from '../../server/src/platform/lifecycle';
import { startPayWebhookWorkers } from '../../server/src/workers/pay-webhooks';
// @ts-expect-error plain ESM script without types (also run by .ci/run before the tests)
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';
import { installTestWallet, type TestWallet } from './test-wallet';

const repoRoot = join(import.meta.dirname, '..', '..');
const portalDir = join(repoRoot, 'web-portal');
/** Screenshots of every page: test artifacts, gitignored. */
export const ARTIFACTS_DIR = join(import.meta.dirname, 'artifacts');

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
  delete env.NODE_ENV; // vitest sets `test`; next chooses its own per command
  return env;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilServing(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`next start did not answer ${url} within ${timeoutMs} ms`);
}

/** The webhook receiver: answers `status` (200 until a test changes it) and records every request. */
export interface Receiver extends HttpsReceiver {
  status: number;
  url: string;
}

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  wallet: TestWallet | undefined;
  /** console errors and uncaught page errors, in order. */
  errors: string[];
}

export interface PortalStack {
  /** The portal, e.g. http://127.0.0.1:41234 */
  base: string;
  app: KeyedApp;
  receiver: Receiver;
  build: { code: number | null; output: string };
  browser: Browser;
  /** A fresh browser context (own cookies) and page; with `wallet`, the test wallet is registered in it. */
  open(options?: {
    wallet?: KeyPairSigner;
    walletName?: string;
    colorScheme?: 'light' | 'dark';
    /** Also inject a legacy `window.solana` for the fallback path (and no Wallet Standard wallet). */
    legacyOnly?: boolean;
  }): Promise<OpenedPage>;
  /** Writes a full-page PNG under test/browser/artifacts/. */
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startPortalStack(): Promise<PortalStack> {
  const executablePath = ensureChromium() as string;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const cert = selfSignedCert();
  const receiver = (await startHttpsReceiver((_req, res) => {
    res.writeHead(receiver.status, { 'content-type': 'text/plain' }).end(receiver.status < 300 ? 'ok' : 'failing');
  })) as Receiver;
  receiver.status = 200;
  receiver.url = `https://127.0.0.1:${receiver.port}/hooks`;

  const app = await startKeyedApp({
    dialect: 'sqlite',
    // Sign-In With Solana names the page's host: the portal's, next to the portal domain.
    env: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true', SIGIL_SIGNIN_DOMAINS: `${TEST_PORTAL_DOMAIN},127.0.0.1:${port}` },
    outboundOptions: { ca: cert.cert },
  });
  const services = app.app.services;
  const lifecycle = new Lifecycle();
  startPayWebhookWorkers({
    db: app.database.db,
    chain: services.chain,
    client: services.outbound,
    lifecycle,
    queued: services.payWebhooks.queued,
  });

  const build = await run('npm', ['run', 'build', '--workspace', 'web-portal'], childEnv({}));
  let portal: ChildProcess | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    if (portal && portal.exitCode === null) {
      const exited = new Promise((r) => portal!.once('exit', r));
      portal.kill('SIGTERM');
      await exited;
    }
    await lifecycle.stopAll();
    await app.close();
    await receiver.close();
  };
  try {
    if (build.code !== 0) throw new Error(`next build failed:\n${build.output}`);
    portal = spawn(
      join(repoRoot, 'node_modules', '.bin', 'next'),
      ['start', '--hostname', '127.0.0.1', '--port', String(port)],
      {
        cwd: portalDir,
        env: childEnv({ SIGIL_API_URL: app.base, SIGIL_PORTAL_KEY: app.portal.secret }),
        stdio: 'ignore',
      },
    );
    await waitUntilServing(`${base}/`, portal, 30_000);
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  } catch (err) {
    await close();
    throw err;
  }
  mkdirSync(ARTIFACTS_DIR, { recursive: true });

  return {
    base,
    app,
    receiver,
    build,
    browser,
    async open(options = {}) {
      const context = await browser!.newContext({
        baseURL: base,
        colorScheme: options.colorScheme ?? 'light',
        viewport: { width: 1280, height: 720 },
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      const page = await context.newPage();
      // Every action has a deadline: a stuck page fails the test instead of hanging it.
      page.setDefaultTimeout(15_000);
      const errors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text());
      });
      page.on('pageerror', (err) => errors.push(err.message));
      const wallet = options.wallet
        ? await installTestWallet(page, options.wallet, {
            name: options.walletName,
            legacyOnly: options.legacyOnly,
          })
        : undefined;
      return { page, context, wallet, errors };
    },
    async screenshot(page, name) {
      await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
    },
    close,
  };
}
