// The forwarder replays each delivery as the inbox received it and reports the app's own answer: exactly the
// delivery's headers (only host, connection and content-length belong to the new hop), no redirect followed. It keeps
// forwarding across an inbox restart (seq starts again from 1 under a new run id; a restarted npm start may also move
// the inbox), and says so when deliveries were dropped by the inbox before it could read them.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { demoCertificates } from './demo-cert';
import { replayedHeaders, startForwarder, type ForwarderOptions } from './webhook-forward';
import { startWebhookInbox, type WebhookInbox } from './webhook-inbox';

interface Received {
  method: string;
  headerNames: string[];
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A plain HTTP app that records what it is sent; `answer` decides each response (200 by default). */
async function startApp(
  answer: (req: Received, res: ServerResponse) => unknown = (_, res) => res.writeHead(200).end(),
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const names = req.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
      const got = {
        method: req.method!,
        headerNames: names,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(got);
      void answer(got, res);
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://localhost:${(server.address() as AddressInfo).port}/hook`, received };
}

async function startInbox(port = 0): Promise<WebhookInbox> {
  const inbox = await startWebhookInbox({ port });
  cleanups.push(() => inbox.close());
  return inbox;
}

// Every inbox of this process has a certificate from the one demo CA.
const dispatcher = new Agent({ connect: { ca: demoCertificates().caPem } });
afterAll(() => dispatcher.close());

/** Posts one delivery to the inbox with undici's `request`, which adds only host, connection and content-length. */
async function deliver(inbox: WebhookInbox, body: string, headers: Record<string, string> = {}) {
  const response = await request(`${inbox.url}/hook`, { method: 'POST', dispatcher, headers, body });
  await response.body.dump();
}

async function forward(inbox: WebhookInbox, target: string, more: Pick<ForwarderOptions, 'locate'>) {
  const lines: string[] = [];
  const caPem = readFileSync(inbox.caFile, 'utf8');
  const forwarder = await startForwarder({
    inboxUrl: inbox.url,
    caPem,
    target,
    log: (l) => lines.push(l),
    intervalMs: 20,
    ...more,
  });
  cleanups.push(() => forwarder.stop());
  return lines;
}

async function until<T>(probe: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}
const forwardedLines = (lines: string[]) => lines.filter((line) => line.startsWith('webhooks:forward: POST '));

describe('what the forwarder sends', () => {
  it("sends exactly the delivery's headers and body, with the new hop's host, connection, content-length", async () => {
    const inbox = await startInbox();
    const app = await startApp();
    const lines = await forward(inbox, app.url, {});
    const body = '{"type":"payment.received","amount":"1"}';
    const sent = {
      'content-type': 'application/json',
      'user-agent': 'sigil-webhooks/1',
      'sigil-signature': 't=1,v1=abc',
      'sigil-event-id': 'pev_1',
      'webhook-id': 'pev_1',
      'webhook-timestamp': '1',
      'webhook-signature': 'v1,abc',
    };
    await deliver(inbox, body, sent);
    const got = await until(() => app.received[0], 'the forwarded delivery');
    expect(got.method).toBe('POST');
    expect(got.body.toString()).toBe(body);
    expect(got.headerNames.sort()).toEqual([...Object.keys(sent), 'host', 'connection', 'content-length'].sort());
    for (const [name, value] of Object.entries(sent)) expect(got.headers[name], name).toBe(value);
    await until(() => forwardedLines(lines).length === 1, 'the line');
    expect(forwardedLines(lines)).toEqual([`webhooks:forward: POST /hook → ${app.url} 200`]);
  });

  it("leaves out the inbox hop's own headers, and any that its connection header names", () => {
    const headers = {
      host: '127.0.0.1:8698',
      connection: 'keep-alive, x-hop',
      'x-hop': '1',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      'transfer-encoding': 'chunked',
      'content-length': '2',
      expect: '100-continue',
      upgrade: 'h2c',
      'proxy-connection': 'keep-alive',
      'webhook-id': 'pev_1',
    };
    expect(replayedHeaders(headers)).toEqual({ 'webhook-id': 'pev_1' });
  });

  it("follows no redirect: a 307 is reported as the app's answer and the Location gets nothing", async () => {
    const inbox = await startInbox();
    const elsewhere = await startApp();
    const app = await startApp((_, res) => res.writeHead(307, { location: elsewhere.url }).end());
    const lines = await forward(inbox, app.url, {});
    await deliver(inbox, '{}');
    await until(() => forwardedLines(lines).length === 1, 'the line');
    expect(forwardedLines(lines)).toEqual([`webhooks:forward: POST /hook → ${app.url} 307`]);
    expect(app.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('says why an app could not be reached', async () => {
    const inbox = await startInbox();
    const lines = await forward(inbox, 'http://127.0.0.1:9/hook', {});
    await deliver(inbox, '{}');
    const line = await until(() => forwardedLines(lines)[0], 'the line');
    expect(line).toMatch(
      /^webhooks:forward: POST \/hook → http:\/\/127\.0\.0\.1:9\/hook \(not reachable: .*ECONNREFUSED/,
    );
  });
});

describe('where the forwarder reads', () => {
  it('keeps forwarding after the inbox restarts (seq from 1 again, under a new run id) and says so', async () => {
    const first = await startInbox();
    const app = await startApp();
    const lines = await forward(first, app.url, {});
    await deliver(first, '{"n":1}');
    await deliver(first, '{"n":2}');
    await until(() => app.received.length === 2, 'the first run forwarded');
    await first.close();
    const second = await startInbox(Number(new URL(first.url).port));
    await deliver(second, '{"n":3}');
    await until(() => app.received.length === 3, "the restarted inbox's first delivery forwarded");
    expect(app.received.map((r) => r.body.toString())).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(lines).toContain(
      `webhooks:forward: the inbox was restarted (run ${second.run}); forwarding its deliveries from the first`,
    );
  });

  it('finds a moved inbox (a restarted npm start: another port, another CA file) through locate', async () => {
    const first = await startInbox();
    const app = await startApp();
    let current = first;
    const locate = () => ({ url: current.url, caPem: readFileSync(current.caFile, 'utf8') });
    const lines = await forward(first, app.url, { locate });
    await first.close();
    current = await startInbox();
    await deliver(current, '{"moved":true}');
    await until(() => app.received[0], 'the moved inbox forwarded');
    expect(app.received[0]!.body.toString()).toBe('{"moved":true}');
    expect(lines.filter((line) => line.includes('cannot read the inbox'))).toHaveLength(1);
  });

  it('says how many deliveries the inbox dropped unread (more than 100 arrived while it was busy)', async () => {
    const inbox = await startInbox();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const app = await startApp(async (req, res) => {
      if (req.body.toString() === '{"n":1}') await held;
      res.writeHead(200).end();
    });
    const lines = await forward(inbox, app.url, {});
    await deliver(inbox, '{"n":1}');
    await until(() => app.received.length === 1, 'the first delivery at the app');
    for (let n = 2; n <= 151; n++) await deliver(inbox, `{"n":${n}}`);
    release();
    await until(() => app.received.length === 101, 'the kept 100 forwarded');
    expect(lines).toContain(
      'webhooks:forward: missed 50 deliveries (seq 2–51): the inbox keeps only its newest 100, and these were ' +
        'dropped before they could be read',
    );
    expect(app.received.at(1)!.body.toString()).toBe('{"n":52}');
    expect(app.received.at(-1)!.body.toString()).toBe('{"n":151}');
  });
});
