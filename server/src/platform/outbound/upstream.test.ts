// The upstream client behaves as fetch does where its callers depend on it: status, headers and body exactly as sent,
// request headers and body delivered, no redirect followed, a timeout named TimeoutError; and it refuses an answer
// over its cap whole.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamFetch, UpstreamTooLarge } from './upstream';

let server: http.Server;
let base: string;
const seen: { method?: string; url?: string; headers?: http.IncomingHttpHeaders; body?: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url === '/redirect') return res.writeHead(302, { location: '/elsewhere' }).end();
      if (req.url === '/empty') return res.writeHead(204).end();
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
      if (req.url === '/big') return res.end('x'.repeat(3_000));
      if (req.url === '/streamed') {
        res.write('y'.repeat(1_500));
        return void setTimeout(() => res.end('y'.repeat(1_500)), 20);
      }
      res.writeHead(409, { 'content-type': 'application/json', 'x-two': ['a', 'b'] });
      res.end('{"code":"AMBIGUOUS","message":"é"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('createUpstreamFetch', () => {
  const apiFetch = createUpstreamFetch();

  it('returns the status, the headers and the body bytes as the service sent them', async () => {
    const res = await apiFetch(`${base}/resolve/%40alice?x=1`);
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-two')).toBe('a, b');
    expect(await res.text()).toBe('{"code":"AMBIGUOUS","message":"é"}');
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/resolve/%40alice?x=1' });
  });

  it('sends the method, the headers and a string body', async () => {
    await apiFetch(`${base}/v1/x`, { method: 'POST', headers: { 'x-payer': 'abc' }, body: '{"a":1}' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/x', body: '{"a":1}' });
    expect(seen.at(-1)!.headers!['x-payer']).toBe('abc');
  });

  it('refuses a request body that is not a string rather than dropping it', async () => {
    await expect(apiFetch(`${base}/v1/x`, { method: 'POST', body: new Uint8Array([1]) })).rejects.toThrow(
      'upstream calls send string bodies',
    );
  });

  it('never follows a redirect; redirect "error" throws as fetch does', async () => {
    const res = await apiFetch(`${base}/redirect`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/elsewhere');
    expect(seen.at(-1)!.url).toBe('/redirect');
    await expect(apiFetch(`${base}/redirect`, { redirect: 'error' })).rejects.toThrow('redirect refused (302)');
  });

  it('refuses a URL with credentials rather than dropping them', async () => {
    await expect(apiFetch(base.replace('http://', 'http://user:secret@') + '/empty')).rejects.toThrow(
      'upstream URLs carry no credentials',
    );
  });

  it('answers a 204 with an empty body', async () => {
    const res = await apiFetch(`${base}/empty`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });

  it('a call past its timeoutMs rejects with a TimeoutError, which the relay reports as such', async () => {
    const err = await apiFetch(`${base}/slow`, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    expect((err as Error).message).toBe('no answer within 50 ms');
  });

  it('a call that names no timeout still has one: the default the fetch was made with', async () => {
    const err = await createUpstreamFetch({ timeoutMs: 50 })(`${base}/slow`).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    expect((err as Error).message).toBe('no answer within 50 ms');
  });

  it('refuses an answer over its cap, declared or streamed, and keeps serving', async () => {
    const capped = createUpstreamFetch({ maxBytes: 2_000 });
    for (const path of ['/big', '/streamed']) {
      const err = await capped(`${base}${path}`).catch((e: unknown) => e);
      expect(err, path).toBeInstanceOf(UpstreamTooLarge);
      expect((err as Error).message).toBe('the answer is larger than 2000 bytes');
    }
    expect((await capped(`${base}/empty`)).status).toBe(204);
    expect(await (await createUpstreamFetch({ maxBytes: 3_000 })(`${base}/big`)).text()).toHaveLength(3_000);
  });
});
