// Concurrent identical relays share one request to the service; an answer is reused afterwards only as long as the
// service's Cache-Control lets a shared cache reuse it, and never past it.
import { describe, expect, it } from 'vitest';
import type { UpstreamFetch } from '../../platform/outbound/upstream';
import type { ToolDeps } from '../tool';
import { freshForMs, relayGet } from './api-relay';

function countingDeps(opts: { headers?: Record<string, string>; status?: number; delayMs?: number } = {}): {
  deps: ToolDeps;
  urls: string[];
  answer: () => void;
} {
  const urls: string[] = [];
  const waiting: (() => void)[] = [];
  const fetch: UpstreamFetch = (url) => {
    const n = urls.push(url);
    const respond = () => new Response(`{"n":${n}}`, { status: opts.status ?? 200, headers: opts.headers });
    if (opts.delayMs !== undefined) return new Promise((r) => setTimeout(() => r(respond()), opts.delayMs));
    return new Promise((resolve) => waiting.push(() => resolve(respond())));
  };
  const deps = { apiUrl: 'http://sigil.test', fetch } as unknown as ToolDeps;
  return { deps, urls, answer: () => waiting.splice(0).forEach((go) => go()) };
}

describe('relayGet', () => {
  it('calls that arrive while the same GET is in flight share its answer', async () => {
    const { deps, urls, answer } = countingDeps();
    const calls = Array.from({ length: 10 }, () => relayGet(deps, 'resolve', 'alice'));
    const other = relayGet(deps, 'reverse', 'alice');
    answer();
    const results = await Promise.all([...calls, other]);
    expect(urls).toEqual(['http://sigil.test/resolve/alice', 'http://sigil.test/reverse/alice']);
    for (const r of results.slice(0, 10))
      expect(r).toEqual({ ok: true, value: { status: 200, body: '{"n":1}', json: { n: 1 } } });
  });

  it('a call after the answer sends a new request when the service allowed no reuse', async () => {
    const { deps, urls, answer } = countingDeps();
    const first = relayGet(deps, 'resolve', 'alice');
    answer();
    await first;
    const second = relayGet(deps, 'resolve', 'alice');
    answer();
    expect(await second).toEqual({ ok: true, value: { status: 200, body: '{"n":2}', json: { n: 2 } } });
    expect(urls).toHaveLength(2);
  });

  it('reuses an answer for the seconds the service allows, then asks again', async () => {
    const { deps, urls } = countingDeps({ headers: { 'cache-control': 'public, max-age=1' }, delayMs: 0 });
    const first = await relayGet(deps, 'resolve', 'alice');
    expect(first).toEqual({ ok: true, value: { status: 200, body: '{"n":1}', json: { n: 1 } } });
    expect(await relayGet(deps, 'resolve', 'alice')).toEqual(first);
    expect(await relayGet(deps, 'resolve', 'alice')).toEqual(first);
    expect(urls).toHaveLength(1);
    // Another URL is another answer.
    await relayGet(deps, 'resolve', 'Alice');
    expect(urls).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 1_050));
    expect(await relayGet(deps, 'resolve', 'alice')).toEqual({
      ok: true,
      value: { status: 200, body: '{"n":3}', json: { n: 3 } },
    });
  });

  it('reuses nothing the service does not allow a shared cache to reuse', async () => {
    for (const headers of <Record<string, string>[]>[
      {},
      { 'cache-control': 'public, max-age=0' },
      { 'cache-control': 'private, max-age=60' },
      { 'cache-control': 'no-store, max-age=60' },
      { 'cache-control': 'no-cache, max-age=60' },
      { 'cache-control': 'public, s-maxage=0, max-age=60' },
      { 'cache-control': 'public, max-age=60', age: '60' },
      { 'cache-control': 'max-age=60', 'set-cookie': 'a=b' },
      { 'cache-control': 'public, max-age=60', vary: '*' },
      { 'cache-control': 'public, immutable' },
      { 'cache-control': 'public, stale-while-revalidate=60' },
      { 'last-modified': 'Mon, 01 Jan 2024 00:00:00 GMT' }, // no heuristic freshness
    ]) {
      const { deps, urls } = countingDeps({ headers, delayMs: 0 });
      await relayGet(deps, 'resolve', 'alice');
      await relayGet(deps, 'resolve', 'alice');
      expect(urls, JSON.stringify(headers)).toHaveLength(2);
    }
  });

  it('reuses no refusal the caching rules do not understand (400, 409) and no failure', async () => {
    for (const status of [400, 409, 502]) {
      const { deps, urls } = countingDeps({ headers: { 'cache-control': 'public, max-age=60' }, status, delayMs: 0 });
      await relayGet(deps, 'resolve', 'alice');
      await relayGet(deps, 'resolve', 'alice');
      expect(urls, String(status)).toHaveLength(2);
    }
    // A 404 with a lifetime is a definitive answer: reused like a 200.
    const { deps, urls } = countingDeps({
      headers: { 'cache-control': 'public, max-age=60' },
      status: 404,
      delayMs: 0,
    });
    await relayGet(deps, 'resolve', 'alice');
    await relayGet(deps, 'resolve', 'alice');
    expect(urls).toHaveLength(1);
  });

  it('counts the freshness from when the request left, not from when the answer arrived', () => {
    const res = new Response('{}', { headers: { 'cache-control': 'public, max-age=2', age: '1' } });
    const now = performance.now();
    expect(freshForMs('http://sigil.test/resolve/a', res, now)).toBeLessThanOrEqual(1_000);
    expect(freshForMs('http://sigil.test/resolve/a', res, now)).toBeGreaterThan(990);
    // An answer that took 400 ms to come back has 400 ms less to live.
    expect(freshForMs('http://sigil.test/resolve/a', res, now - 400)).toBeLessThanOrEqual(600);
    // s-maxage is the shared cache's own lifetime.
    const shared = new Response('{}', { headers: { 'cache-control': 'public, max-age=1, s-maxage=5' } });
    expect(freshForMs('http://sigil.test/resolve/a', shared, performance.now())).toBeGreaterThan(4_900);
  });
});
