// The answer cache's replays served below Fastify (fast-replay.ts): byte for byte what Fastify writes, counted in the
// same metrics, and only for the requests that path may answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, rawRequest, startTestApp, withoutDate, type TestApp } from '@sigil/test/support/http-app';

let app: TestApp;
let logged: TestApp;
/** Requests that went through Fastify's hooks, per app. */
const throughFastify = { quiet: 0, logged: 0 };

beforeAll(async () => {
  // Request logging off (LOG_LEVEL warn): replays may bypass Fastify.
  app = await startTestApp({
    env: { SIGIL_RESOLVE_CACHE_MS: '60000', LOG_LEVEL: 'warn' },
    beforeListen: (fastify) => fastify.addHook('onRequest', async () => void throughFastify.quiet++),
  });
  logged = await startTestApp({
    env: { SIGIL_RESOLVE_CACHE_MS: '60000', LOG_LEVEL: 'info' },
    beforeListen: (fastify) => fastify.addHook('onRequest', async () => void throughFastify.logged++),
  });
});
afterAll(async () => {
  await app.close();
  await logged.close();
});

const get = (path: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: req-fast-1\r\n${extra}\r\n`;

describe('replays below Fastify', () => {
  it('write the bytes Fastify writes for the same replay (200 and 4xx)', async () => {
    for (const path of ['/test/counted/fast-a', '/test/counted/missing']) {
      await rawRequest(app.base, 'GET', path); // the fresh answer, now cached
      const before = throughFastify.quiet;
      const fast = await exchange(app.base, get(path));
      expect(throughFastify.quiet).toBe(before); // served below Fastify
      // A request that announces a (empty) body is Fastify's: the same replay through every hook.
      const slow = await exchange(app.base, get(path, 'Content-Length: 0\r\n'));
      expect(throughFastify.quiet).toBe(before + 1);
      expect(withoutDate(fast)).toBe(withoutDate(slow));
      expect(fast).toMatch(
        /^HTTP\/1\.1 (200 OK|404 Not Found)\r\nx-request-id: req-fast-1\r\ncache-control: public, max-age=\d+\r\n/,
      );
    }
  });

  it('are counted in the request metrics under the route template', async () => {
    await rawRequest(app.base, 'GET', '/test/counted/fast-m');
    const before = throughFastify.quiet;
    for (let i = 0; i < 3; i++) expect((await rawRequest(app.base, 'GET', '/test/counted/fast-m')).status).toBe(200);
    expect(throughFastify.quiet).toBe(before);
    const metrics = (await rawRequest(app.base, 'GET', '/metrics')).text;
    const line = metrics
      .split('\n')
      .find(
        (l) =>
          l.startsWith('sigil_http_requests_total{') &&
          l.includes('route="/test/counted/{value}"') &&
          l.includes('status="200"'),
      );
    expect(Number(line?.split(' ').pop())).toBeGreaterThanOrEqual(4);
  });

  it('leave to Fastify what they may not answer: HEAD, a body, no Host, request logging on', async () => {
    await rawRequest(app.base, 'GET', '/test/counted/fast-h');
    await rawRequest(logged.base, 'GET', '/test/counted/fast-h');
    let before = throughFastify.quiet;
    expect((await rawRequest(app.base, 'HEAD', '/test/counted/fast-h')).status).toBe(200);
    expect(throughFastify.quiet).toBe(before + 1);
    // Refused by transport.ts's Host check, which a replay below Fastify would have skipped.
    const noHost = await exchange(app.base, 'GET /test/counted/fast-h HTTP/1.1\r\n\r\n');
    expect(noHost).toMatch(/^HTTP\/1\.1 400 /);
    const loggedBefore = throughFastify.logged;
    const lines = logged.logs.length;
    expect((await rawRequest(logged.base, 'GET', '/test/counted/fast-h')).status).toBe(200);
    expect(throughFastify.logged).toBe(loggedBefore + 1);
    expect(logged.logs.slice(lines).map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
  });
});
