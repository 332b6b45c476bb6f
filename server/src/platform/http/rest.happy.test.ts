// REST face details that procedures declare in their meta: success statuses and the shared answer cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startTestApp, type TestApp } from '@sigil/test/support/http-app';
import * as testing from '@sigil/test/support/http-app';

let cached: TestApp;
let uncached: TestApp;
let longer: TestApp;

beforeAll(async () => {
  cached = await startTestApp({ env: { SIGIL_RESOLVE_CACHE_MS: '300' } });
  uncached = await startTestApp({ env: { SIGIL_RESOLVE_CACHE_MS: '0' } });
  longer = await startTestApp({ env: { SIGIL_RESOLVE_CACHE_MS: '2500' } });
});
afterAll(async () => {
  await cached.close();
  await uncached.close();
  await longer.close();
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
    // Within the bound: the 2.5 s one, so a stalled machine between the two requests cannot outlast it.
    const first = (await rawRequest(longer.base, 'GET', '/test/counted/a')).json();
    const again = await rawRequest(longer.base, 'GET', '/test/counted/a');
    expect(again.json()).toStrictEqual(first); // same calls count: the procedure did not run
    expect(again.headers['x-request-id']).toBeDefined(); // hooks still run on a replay
    // Past the bound: the 300 ms one, waited out.
    const short = (await rawRequest(cached.base, 'GET', '/test/counted/a')).json();
    await new Promise((r) => setTimeout(r, 350));
    expect((await rawRequest(cached.base, 'GET', '/test/counted/a')).json().calls).toBeGreaterThan(short.calls);
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

describe('Cache-Control on replayable answers', () => {
  it('a fresh answer may be reused for the whole seconds the service will replay it', async () => {
    const fresh = await rawRequest(longer.base, 'GET', '/test/counted/cc1');
    expect(fresh.status).toBe(200);
    expect(fresh.headers['cache-control']).toBe('public, max-age=2');
  });

  it('a replay says what is left of its lifetime, rounded down', async () => {
    const fresh = (await rawRequest(longer.base, 'GET', '/test/counted/cc2')).json();
    await new Promise((r) => setTimeout(r, 600));
    const replay = await rawRequest(longer.base, 'GET', '/test/counted/cc2');
    expect(replay.json()).toStrictEqual(fresh); // a replay indeed
    expect(replay.headers['cache-control']).toBe('public, max-age=1');
  });

  it('under a second left (or a bound under a second): max-age=0, so nobody reuses it', async () => {
    expect((await rawRequest(cached.base, 'GET', '/test/counted/cc3')).headers['cache-control']).toBe(
      'public, max-age=0',
    );
    expect((await rawRequest(cached.base, 'GET', '/test/counted/cc3')).headers['cache-control']).toBe(
      'public, max-age=0',
    );
  });

  it('definitive 4xx answers carry it; 5xx answers and an uncached service do not', async () => {
    const missing = await rawRequest(longer.base, 'GET', '/test/counted/missing');
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBe('public, max-age=2');
    const down = await rawRequest(longer.base, 'GET', '/test/counted/down');
    expect(down.status).toBe(502);
    expect(down.headers['cache-control']).toBeUndefined();
    expect((await rawRequest(uncached.base, 'GET', '/test/counted/cc4')).headers['cache-control']).toBeUndefined();
  });

  it('routes that are not sharedCache never carry it', async () => {
    const res = await rawRequest(longer.base, 'POST', '/v1/test/created', { headers: json, body: '{"name":"a"}' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBeUndefined();
  });
});
