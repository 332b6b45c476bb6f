// `npm start` (server/src/dev.ts, as a person runs it, on its defaults but for ports and data folder) from an
// integrator's side. Its curl lines are the README's and each works pasted into bash, as does every shell block of
// the docs that is not marked not-runnable (test/docs/doc-blocks.ts); `GET /` answers an index.
// Webhooks on a laptop: it brings up the local webhook inbox. A webhook registered to it through the API gets a delivery that the
// inbox verifies with both schemes, while the demo agents stay at L2 (the demo CA is trusted besides the system
// store, not instead of it). `npm run webhooks:forward`'s forwarder then passes a delivery on to a plain HTTP app
// unchanged: the app verifies the service's own signatures with the stock standardwebhooks package and the SDK.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { base58 } from '@scure/base';
import { Webhook } from 'standardwebhooks';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyWebhook } from '@sigil/client-sdk/webhooks';
import { docBlocks, runShellBlock } from '../docs/doc-blocks';
import type { InboxDelivery } from '../../server/src/localchain/webhook-inbox';
import { startForwarder } from '../../server/src/localchain/webhook-forward';
import { waitFor } from '../support/pay-webhooks';
import { signRaw } from '../support/webhooks-world';

const root = join(import.meta.dirname, '../..');
let dir: string;
let child: ChildProcess;
let stdout = '';
let base: string;
let chainUrl: string;
let mcpUrl: string;
let inbox: { url: string; caFile: string };
let key: string;
let dispatcher: Agent;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
};
const inboxDeliveries = async () =>
  ((await (await fetch(`${inbox.url}/_inbox/deliveries`, { dispatcher })).json()) as { deliveries: InboxDelivery[] })
    .deliveries;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sigil-inbox-'));
  const ports = await Promise.all(Array.from({ length: 7 }, freePort));
  child = spawn(process.execPath, ['--import', 'tsx', join(root, 'server/src/dev.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      PORT: String(ports[0]),
      SIGIL_LOCALCHAIN_PORT: String(ports[1]),
      SIGIL_AGENT_HOST_PORT: String(ports[2]),
      MCP_BIND: `127.0.0.1:${ports[3]}`,
      SIGIL_PORTAL_PORT: String(ports[4]),
      SIGIL_WEBHOOK_INBOX_PORT: String(ports[5]),
      SIGIL_LOCALCHAIN_GEYSER_PORT: String(ports[6]),
      SIGIL_WEBHOOK_INBOX_FILE: join(dir, 'webhook-inbox.json'),
      // A data/ folder like the repository's, so that the docs' `data/portal-key` names this run's key from `dir`.
      DATABASE_URL: `sqlite:${join(dir, 'data', 'dev.sqlite')}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.resume();
  await waitFor(() => (stdout.includes('Stop with Ctrl-C.') ? true : undefined), 150_000, 'the npm start banner');
  base = `http://127.0.0.1:${ports[0]}`;
  chainUrl = `http://127.0.0.1:${ports[1]}`;
  mcpUrl = `http://127.0.0.1:${ports[3]}`;
  inbox = JSON.parse(readFileSync(join(dir, 'webhook-inbox.json'), 'utf8'));
  key = readFileSync(join(dir, 'data', 'portal-key'), 'utf8').trim();
  dispatcher = new Agent({ connect: { ca: readFileSync(inbox.caFile, 'utf8') } });
  expect(stdout).toContain(`Webhook inbox:  ${inbox.url}/<any path>`);
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGINT');
    await once(child, 'close');
  }
  await dispatcher?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('the banner prints the README curl lines (same scenario, this port), each works pasted into bash', () => {
  const banner = stdout
    .split('\n')
    .filter((line) => line.startsWith('  curl '))
    .map((line) => line.trim());
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /It prints these `curl` lines[^`]*```sh\n([^`]*)```/.exec(readme)![1]!;
  // The README shows the default port and the default data folder; this run has its own.
  const expected = block
    .trim()
    .split('\n')
    .map((line) =>
      line.replaceAll('http://127.0.0.1:8787', base).replace('data/portal-key', join(dir, 'data', 'portal-key')),
    );
  expect(banner).toEqual(expected);
  const answers = banner.map((line) =>
    JSON.parse(execFileSync('bash', ['-c', `set -euo pipefail; ${line}`], { encoding: 'utf8' })),
  );
  expect(answers[0]).toMatchObject({ input: '@alice', name: 'alice', namespace: 'handle' });
  expect(answers[1]).toMatchObject({ handle: 'alice' });
  expect(answers[2]).toMatchObject({ input: 'satoshi.x1', namespace: 'x1' });
  expect(answers[3]).toMatchObject({ handle: null, failedRule: 'handle-missing' });
});

it('every shell block of the docs not marked not-runnable works pasted into bash, on this service', () => {
  const blocks = docBlocks().filter((b) => b.lang === 'sh' && b.notRunnable === undefined);
  // The README's curl lines and the portal quickstart's are among them (README.md, "Code blocks in the docs").
  expect(blocks.filter((b) => b.file === 'README.md' && b.code.includes('/resolve/@alice'))).toHaveLength(1);
  expect(blocks.filter((b) => b.file === 'web-portal/app/quickstart/page.tsx')).toHaveLength(1);
  const options = { addresses: { service: base, chain: chainUrl, mcp: mcpUrl }, cwd: dir, env: { SIGIL_API_KEY: key } };
  // An answer with an error status fails a block: here a keyed route without the key (401).
  const unkeyed = {
    ...blocks[0]!,
    code: 'curl -s http://127.0.0.1:8787/v1/reverse/FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
  };
  expect(runShellBlock(unkeyed, options)).toMatchObject({
    status: 22,
    stdout: expect.stringContaining('API_KEY_REQUIRED'),
  });
  for (const block of blocks) {
    const run = runShellBlock(block, options);
    const label = `${block.file}:${block.line}\n${block.code}\n${run.stderr}`;
    expect(run.status, label).toBe(0);
    expect(run.stdout.trim(), label).not.toBe('');
    expect(run.stdout, label).not.toMatch(/"isError":\s*true/);
  }
}, 120_000);

it('GET / on the service and on the local chain answers an index with links that work', async () => {
  const index = (await (await fetch(`${base}/`)).json()) as { links: Record<string, string> };
  expect(index.links).toMatchObject({
    docs: `${base}/docs`,
    openapi: `${base}/openapi.json`,
    health: `${base}/health`,
  });
  expect(index.links.portal).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  for (const link of ['docs', 'openapi', 'health'] as const) expect((await fetch(index.links[link]!)).status).toBe(200);
  const chainIndex = (await (await fetch(`${chainUrl}/`)).json()) as { links: Record<string, string> };
  expect(chainIndex.links).toEqual({ scenario: `${chainUrl}/scenario`, health: `${chainUrl}/health` });
});

it('a webhook registered to the inbox gets a test delivery, verified with both schemes; the demo agents stay at L2', async () => {
  const scenario = (await (await fetch(`${chainUrl}/scenario`)).json()) as {
    wallets: Record<string, { address: string; secretKey: string }>;
  };
  const bob = await createKeyPairSignerFromBytes(base58.decode(scenario.wallets.bob!.secretKey));
  const challenge = await api('POST', '/v1/pay/webhooks/challenge', { scope: bob.address, url: `${inbox.url}/hook` });
  expect(challenge.status, challenge.text).toBe(200);
  const signature = await signRaw(bob, challenge.body.message);
  const created = await api('POST', '/v1/pay/webhooks', { nonce: challenge.body.nonce, signature });
  expect(created.status, created.text).toBe(201);
  const told = await fetch(`${inbox.url}/_inbox/secrets`, {
    method: 'POST',
    dispatcher,
    body: JSON.stringify({ secret: created.body.secret }),
  });
  expect(told.status).toBe(200);

  expect((await api('POST', `/v1/pay/webhooks/${created.body.id}/test`)).status).toBe(200);
  const delivery = await waitFor(
    async () => (await inboxDeliveries()).find((d) => d.path === '/hook'),
    30_000,
    'the test delivery at the inbox',
  );
  expect(delivery.verification).toEqual({ sigil: 'valid', standardWebhooks: 'valid' });
  expect(delivery.status).toBe(204);
  expect(JSON.parse(Buffer.from(delivery.bodyBase64, 'base64').toString('utf8'))).toMatchObject({
    type: 'payment.received',
    test: true,
  });
  await waitFor(() => (stdout.includes('webhook inbox: POST /hook payment.received') ? true : undefined), 5_000);
  expect(stdout).toContain(
    'webhook inbox: POST /hook payment.received · Sigil-Signature valid · Standard Webhooks valid → 204',
  );
  // The service records the inbox's 204 as delivered.
  await waitFor(
    async () =>
      (await api('GET', `/v1/pay/webhooks/${created.body.id}/deliveries`)).body.deliveries.find(
        (d: { status: string }) => d.status === 'delivered',
      ),
    10_000,
    'the delivery recorded as delivered',
  );

  const level = await api('GET', '/v1/agents/@scout/level');
  expect(level.status, level.text).toBe(200);
  expect(level.body).toMatchObject({ handle: 'scout', level: 'L2', next: null });

  // The forwarder: the next delivery reaches a plain HTTP app unchanged, and verifies there with stock verifiers.
  const received: Array<{ headers: IncomingMessage['headers']; body: Buffer }> = [];
  const app = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  }).listen(0, '127.0.0.1');
  await once(app, 'listening');
  const target = `http://localhost:${(app.address() as AddressInfo).port}/hook`;
  const lines: string[] = [];
  const forwarder = await startForwarder({
    inboxUrl: inbox.url,
    caPem: readFileSync(inbox.caFile, 'utf8'),
    target,
    log: (line) => lines.push(line),
    intervalMs: 100,
  });
  try {
    expect((await api('POST', `/v1/pay/webhooks/${created.body.id}/test`)).status).toBe(200);
    const got = await waitFor(() => received[0], 30_000, 'the forwarded delivery');
    const original = await waitFor(async () => (await inboxDeliveries()).find((d) => d.seq > delivery.seq));
    expect(got.body.equals(Buffer.from(original.bodyBase64, 'base64'))).toBe(true);
    for (const name of ['sigil-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type'])
      expect(got.headers[name], name).toBe(original.headers[name]);
    const secret = created.body.secret as string;
    expect(() =>
      new Webhook(secret).verify(got.body, {
        'webhook-id': got.headers['webhook-id'] as string,
        'webhook-timestamp': got.headers['webhook-timestamp'] as string,
        'webhook-signature': got.headers['webhook-signature'] as string,
      }),
    ).not.toThrow();
    expect(await verifyWebhook(got.body, got.headers['sigil-signature'] as string, secret)).toMatchObject({ ok: true });
    await waitFor(() => (lines.length > 0 ? true : undefined), 5_000);
    expect(lines[0]).toBe(`webhooks:forward: POST /hook → ${target} 200`);
  } finally {
    await forwarder.stop();
    app.close();
  }
}, 120_000);
