// Real HTTPS receivers on loopback (allowLoopback, the local-only setting) and the outbound client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundClient } from './client';
import {
  loopbackResolver,
  loopbackTestClient,
  startHttpsReceiver,
  type HttpsReceiver,
} from '@sigil/test/support/https-receiver';

let receiver: HttpsReceiver;
let client: OutboundClient;

beforeAll(async () => {
  receiver = await startHttpsReceiver((req, res) => {
    switch (req.url) {
      case '/ok':
        res.writeHead(204).end();
        return;
      case '/created':
        res.writeHead(201, { 'content-type': 'text/plain' }).end('thanks');
        return;
      case '/manifest':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"sigil":{"version":1},"name":"agent"}');
        return;
      case '/manifest-plus':
        res.writeHead(200, { 'content-type': 'application/manifest+json; charset=utf-8' }).end('[1,2,3]');
        return;
      case '/pay':
        res.writeHead(402, { 'content-type': 'application/json', 'payment-required': 'eyJ4IjoxfQ==' }).end('{"x":1}');
        return;
      case '/moved':
        res.writeHead(302, { location: '/pay' }).end();
        return;
      case '/big':
        res.writeHead(402, { 'content-type': 'application/json' }).end('x'.repeat(2_000));
        return;
      default:
        res.writeHead(404).end();
    }
  });
  client = loopbackTestClient({ timeoutMs: 2_000, resolver: loopbackResolver });
});

afterAll(async () => {
  await client.close();
  await receiver.close();
});

describe('post', () => {
  it('delivers the exact bytes and headers and returns the status and time', async () => {
    const body = '{"id":"pev_1","memo":"café"}';
    const result = await client.post(`https://127.0.0.1:${receiver.port}/ok`, body, {
      'content-type': 'application/json',
      'sigil-signature': 't=1,v1=ab',
      'sigil-event-id': 'pev_1',
    });
    expect(result.status).toBe(204);
    expect(result.ms).toBeGreaterThanOrEqual(0);
    expect(result.ms).toBeLessThan(2_000);
    const seen = receiver.requests.at(-1)!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/ok');
    expect(seen.body.toString('utf8')).toBe(body);
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['sigil-signature']).toBe('t=1,v1=ab');
    expect(seen.headers['sigil-event-id']).toBe('pev_1');
    expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers['user-agent']).toBe('sigil-outbound/1');
  });

  it('reaches a name through the injected resolver (localhost → 127.0.0.1) and reports any 2xx', async () => {
    const result = await client.post(`https://localhost:${receiver.port}/created`, new TextEncoder().encode('{}'), {
      'content-type': 'application/json',
    });
    expect(result.status).toBe(201);
  });

  it('reuses a keep-alive connection for consecutive deliveries', async () => {
    const before = receiver.connections;
    for (let i = 0; i < 6; i++) {
      expect((await client.post(`https://127.0.0.1:${receiver.port}/ok`, '{}', {})).status).toBe(204);
    }
    // undici alternates between at most two sockets for back-to-back requests; never one per request.
    expect(receiver.connections - before).toBeLessThanOrEqual(2);
  });
});

describe('getJson', () => {
  it('returns the parsed document', async () => {
    const result = await client.getJson(`https://127.0.0.1:${receiver.port}/manifest`);
    expect(result).toMatchObject({ status: 200, json: { sigil: { version: 1 }, name: 'agent' } });
    expect(receiver.requests.at(-1)!.headers.accept).toBe('application/json');
  });

  it('accepts +json media types with parameters', async () => {
    const result = await client.getJson(`https://127.0.0.1:${receiver.port}/manifest-plus`);
    expect(result.json).toEqual([1, 2, 3]);
  });
});

describe('probe', () => {
  it('reports any status with its headers and body: a 402 challenge', async () => {
    const result = await client.probe(`https://127.0.0.1:${receiver.port}/pay`);
    expect(result.status).toBe(402);
    expect(result.headers['payment-required']).toBe('eyJ4IjoxfQ==');
    expect(result.headers['content-type']).toBe('application/json');
    expect(result.body.toString('utf8')).toBe('{"x":1}');
    expect(receiver.requests.at(-1)!.method).toBe('GET');
  });

  it('a redirect is a result, never followed', async () => {
    const before = receiver.requests.length;
    const result = await client.probe(`https://127.0.0.1:${receiver.port}/moved`);
    expect(result.status).toBe(302);
    expect(result.headers.location).toBe('/pay');
    expect(receiver.requests.length - before).toBe(1);
  });

  it('a body over the cap rejects with body_too_large', async () => {
    await expect(client.probe(`https://127.0.0.1:${receiver.port}/big`, { maxBytes: 1_000 })).rejects.toMatchObject({
      kind: 'body_too_large',
      status: 402,
    });
  });
});
