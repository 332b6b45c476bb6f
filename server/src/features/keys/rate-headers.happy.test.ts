// Every keyed response carries each rate-limit header exactly once: the HTTP layer applies the request's header bag
// and nothing else adds a copy (a 429's error carries none of its own). Counted on the raw header list, where a
// duplicate would show even if a client merged it.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIER_LIMITS } from '@sigil/contract/keys';
import { setUsage } from '@sigil/test/support/ratelimit-usage';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';

const RATE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-daily-limit',
  'x-ratelimit-daily-remaining',
];

function rawHeaderCounts(base: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  const url = new URL(base);
  return new Promise<{ status: number; counts: Map<string, number> }>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
      const counts = new Map<string, number>();
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        const name = res.rawHeaders[i]!.toLowerCase();
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, counts }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('rate-limit headers appear once', () => {
  let app: KeyedApp;
  beforeAll(async () => {
    app = await startKeyedApp({ dialect: 'sqlite' });
  });
  afterAll(async () => {
    await app.close();
  });

  const body = JSON.stringify({ wallet: '11111111111111111111111111111112' });
  const json = { 'content-type': 'application/json' };
  const cases = [
    ['REST', 'POST', '/v1/auth/challenge'],
    ['tRPC', 'POST', '/trpc/connect.challenge'],
  ] as const;

  for (const [face, method, path] of cases) {
    it(`${face}: a 200 and a 429 each carry every X-RateLimit-* header once, and the 429 one Retry-After`, async () => {
      const ok = await rawHeaderCounts(app.base, method, path, { ...json, 'x-api-key': app.key.secret }, body);
      expect(ok.status).toBe(200);
      for (const name of RATE_HEADERS) expect(ok.counts.get(name), `${name} on the 200`).toBe(1);
      expect(ok.counts.get('retry-after')).toBeUndefined();

      await setUsage(app.database.db, app.key.key.id, { day: TIER_LIMITS.free.day });
      const refused = await rawHeaderCounts(app.base, method, path, { ...json, 'x-api-key': app.key.secret }, body);
      await setUsage(app.database.db, app.key.key.id, {});
      expect(refused.status).toBe(429);
      for (const name of RATE_HEADERS) expect(refused.counts.get(name), `${name} on the 429`).toBe(1);
      expect(refused.counts.get('retry-after')).toBe(1);
    });
  }
});
