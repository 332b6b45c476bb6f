// REST face details that procedures declare in their meta: success statuses and the shared answer cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startTestApp, type TestApp } from '@sigil/test/support/http-app';
import * as testing from '@sigil/test/support/http-app';

let cached: TestApp;
let uncached: TestApp;

beforeAll(async () => {
  cached = await startTestApp({ env: { SIGIL_RESOLVE_CACHE_MS: '300' } });
  uncached = await startTestApp({ env: { SIGIL_RESOLVE_CACHE_MS: '0' } });
});
afterAll(async () => {
  await cached.close();
  await uncached.close();
});

const json = { 'content-type': 'application/json' };

describe('success statuses', () => {
  it('201 with the body for a creation', async () => {
    const res = await rawRequest(cached.base, 'POST', '/v1/test/created', { headers: json, body: '{"name":"a"}' });
    expect(res.status, res.text).toBe(201);
    expect(res.json()).toStrictEqual({ name: 'a' });
  });

  it('204 with no body and no content type', async () => {
    const res = await rawRequest(cached.base, 'DELETE', '/v1/test/removed/x');
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
  });

  it('errors keep their own status on such routes', async () => {
    const res = await rawRequest(cached.base, 'POST', '/v1/test/created', { headers: json, body: '{"name":1}' });
    expect(res.status).toBe(400);
    expect(res.json().code).toBe('BAD_REQUEST');
  });
});

describe('shared answer cache (sharedCache routes)', () => {
  it('replays an identical URL within the bound without calling the procedure, then calls it again', async () => {
    const first = (await rawRequest(cached.base, 'GET', '/test/counted/a')).json();
    const again = await rawRequest(cached.base, 'GET', '/test/counted/a');
    expect(again.json()).toStrictEqual(first); // same calls count: the procedure did not run
    expect(again.headers['x-request-id']).toBeDefined(); // hooks still run on a replay
    await new Promise((r) => setTimeout(r, 350));
    expect((await rawRequest(cached.base, 'GET', '/test/counted/a')).json().calls).toBeGreaterThan(first.calls);
  });

  it('is keyed by the exact URL', async () => {
    const a = (await rawRequest(cached.base, 'GET', '/test/counted/b')).json();
    const b = (await rawRequest(cached.base, 'GET', '/test/counted/B')).json();
    expect(b.calls).toBeGreaterThan(a.calls);
  });

  it('replays definitive 4xx answers but never 5xx', async () => {
    const before = testing.probeCalls;
    expect((await rawRequest(cached.base, 'GET', '/test/counted/missing')).status).toBe(404);
    expect((await rawRequest(cached.base, 'GET', '/test/counted/missing')).status).toBe(404);
    expect(testing.probeCalls - before).toBe(1);
    const mid = testing.probeCalls;
    expect((await rawRequest(cached.base, 'GET', '/test/counted/down')).status).toBe(502);
    expect((await rawRequest(cached.base, 'GET', '/test/counted/down')).status).toBe(502);
    expect(testing.probeCalls - mid).toBe(2);
  });

  it('is off when SIGIL_RESOLVE_CACHE_MS is 0', async () => {
    const a = (await rawRequest(uncached.base, 'GET', '/test/counted/c')).json();
    const b = (await rawRequest(uncached.base, 'GET', '/test/counted/c')).json();
    expect(b.calls).toBe(a.calls + 1);
  });
});
