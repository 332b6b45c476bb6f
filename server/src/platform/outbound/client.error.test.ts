// Failure classes of the outbound client against real local HTTPS receivers.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, OutboundError, type OutboundClient } from './client';
import {
  loopbackResolver,
  loopbackTestClient,
  startHttpsReceiver,
  type HttpsReceiver,
} from '@sigil/test/support/https-receiver';
import { rejection } from '@sigil/test/support/failures';

let receiver: HttpsReceiver;
let client: OutboundClient;
const stalled: Array<() => void> = [];

const failure = (promise: Promise<unknown>) => rejection(promise, OutboundError);

beforeAll(async () => {
  receiver = await startHttpsReceiver((req, res) => {
    switch (req.url) {
      case '/500':
        res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
        return;
      case '/redirect':
        res.writeHead(307, { location: `https://127.0.0.1:${receiver.port}/target` }).end();
        return;
      case '/target':
        res.writeHead(200).end();
        return;
      case '/hang':
        stalled.push(() => res.destroy());
        return; // never answers
      case '/hangup':
        req.socket.destroy();
        return;
      case '/html':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
        return;
      case '/no-type':
        res.writeHead(200).end('{}');
        return;
      case '/bad-json':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":');
        return;
      case '/declared-big':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10_000_000) });
        res.write('{"a":"');
        stalled.push(() => res.destroy());
        return;
      case '/streamed-big': {
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked, no length declared
        res.write('["');
        let sent = 0;
        const timer = setInterval(() => {
          if (res.destroyed || sent > 5_000_000) return clearInterval(timer);
          res.write('x'.repeat(1_000));
          sent += 1_000;
        }, 1);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/stall-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"a":');
        stalled.push(() => res.destroy());
        return;
      case '/manifest-404':
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no"}');
        return;
      default:
        res.writeHead(404).end();
    }
  });
  client = loopbackTestClient({ timeoutMs: 1_500, resolver: loopbackResolver }); // room for a loaded CI machine
});

afterAll(async () => {
  for (const release of stalled) release();
  await client.close();
  await receiver.close();
});

const url = (path: string) => `https://127.0.0.1:${receiver.port}${path}`;

describe('post: answers that are results, not errors', () => {
  it('reports a 500 as a status', async () => {
    await expect(client.post(url('/500'), '{}', {})).resolves.toMatchObject({ status: 500 });
  });

  it('never follows a redirect: the 3xx is the result', async () => {
    const before = receiver.requests.filter((r) => r.url === '/target').length;
    await expect(client.post(url('/redirect'), '{}', {})).resolves.toMatchObject({ status: 307 });
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.requests.filter((r) => r.url === '/target').length).toBe(before);
  });
});

describe('post: failure classes', () => {
  it('times out a receiver that never answers, within the deadline', async () => {
    const started = Date.now();
    const err = await failure(client.post(url('/hang'), '{}', {}));
    expect(err.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(err.ms).toBeGreaterThanOrEqual(350);
  });

  it('classifies a receiver that hangs up mid-request as connection_closed', async () => {
    const err = await failure(client.post(url('/hangup'), '{}', {}));
    expect(err.kind).toBe('connection_closed');
  });

  it('classifies a refused connection as connect_failed', async () => {
    const closed: Server = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await failure(client.post(`https://127.0.0.1:${port}/x`, '{}', {}));
    expect(err.kind).toBe('connect_failed');
  });

  it('classifies an untrusted certificate as tls_failed', async () => {
    const strict = createOutboundClient({ allowLoopback: true, timeoutMs: 2_000 }); // system CAs only
    try {
      const err = await failure(strict.post(url('/500'), '{}', {}));
      expect(err.kind).toBe('tls_failed');
    } finally {
      await strict.close();
    }
  });

  it('classifies resolver failures and empty answers as dns_failed', async () => {
    const failing = loopbackTestClient({
      resolver: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    const empty = loopbackTestClient({ resolver: async () => [] });
    try {
      expect((await failure(failing.post(`https://localhost:${receiver.port}/x`, '{}', {}))).kind).toBe('dns_failed');
      expect((await failure(empty.post(`https://localhost:${receiver.port}/x`, '{}', {}))).kind).toBe('dns_failed');
    } finally {
      await failing.close();
      await empty.close();
    }
  });
});

describe('getJson: caps and content rules', () => {
  it('refuses non-JSON content types', async () => {
    expect((await failure(client.getJson(url('/html')))).kind).toBe('not_json');
    expect((await failure(client.getJson(url('/no-type')))).kind).toBe('not_json');
  });

  it('refuses invalid JSON', async () => {
    expect((await failure(client.getJson(url('/bad-json')))).kind).toBe('invalid_json');
  });

  it('refuses a declared length over the cap without reading it', async () => {
    const started = Date.now();
    const err = await failure(client.getJson(url('/declared-big'), { maxBytes: 1_000 }));
    expect(err.kind).toBe('body_too_large');
    expect(Date.now() - started).toBeLessThan(350);
  });

  it('enforces the cap while streaming an undeclared body', async () => {
    const err = await failure(client.getJson(url('/streamed-big'), { maxBytes: 4_096, timeoutMs: 5_000 }));
    expect(err.kind).toBe('body_too_large');
  });

  it('times out a body that stalls after the headers', async () => {
    const err = await failure(client.getJson(url('/stall-body')));
    expect(err.kind).toBe('timeout');
  });

  it('times out when headers never come', async () => {
    expect((await failure(client.getJson(url('/hang')))).kind).toBe('timeout');
  });

  it('reports non-2xx, redirects included, as http_status without following', async () => {
    expect(await failure(client.getJson(url('/manifest-404')))).toMatchObject({ kind: 'http_status', status: 404 });
    const before = receiver.requests.filter((r) => r.url === '/target').length;
    expect(await failure(client.getJson(url('/redirect')))).toMatchObject({ kind: 'http_status', status: 307 });
    expect(receiver.requests.filter((r) => r.url === '/target').length).toBe(before);
  });
});
