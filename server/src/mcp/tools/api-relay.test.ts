// Concurrent identical relays share one request to the service; nothing is kept once it has answered.
import { describe, expect, it } from 'vitest';
import type { ApiFetch, ToolDeps } from '../tool';
import { relayGet } from './api-relay';

function countingDeps(): { deps: ToolDeps; urls: string[]; answer: () => void } {
  const urls: string[] = [];
  const waiting: (() => void)[] = [];
  const fetch: ApiFetch = (url) => {
    const n = urls.push(url);
    return new Promise((resolve) => waiting.push(() => resolve(new Response(`{"n":${n}}`, { status: 200 }))));
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

  it('a call after the answer sends a new request (nothing is cached)', async () => {
    const { deps, urls, answer } = countingDeps();
    const first = relayGet(deps, 'resolve', 'alice');
    answer();
    await first;
    const second = relayGet(deps, 'resolve', 'alice');
    answer();
    expect(await second).toEqual({ ok: true, value: { status: 200, body: '{"n":2}', json: { n: 2 } } });
    expect(urls).toHaveLength(2);
  });
});
