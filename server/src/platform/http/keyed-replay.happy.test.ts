// Keyed answers replayed below Fastify (fast-replay.ts, rest.ts keyedReplay): after the key step, byte for byte what
// Fastify writes for the same request, counted once against the key's windows, recorded in the usage history.
import { describe, expect, it } from 'vitest';
import { exchange, withoutDate } from '@sigil/test/support/http-app';
import { keyedGet, useKeyedReplayApp } from '@sigil/test/support/keyed-replay';
import { awayFromMinuteEdge } from '@sigil/test/support/ratelimit-usage';

const world = useKeyedReplayApp();

describe('keyed replays below Fastify', () => {
  it('write the bytes Fastify writes for the same keyed hit, after one key step', async () => {
    // The portal key fills the keyed answer cache; the two integrator keys have not been used yet, so both answers
    // carry the same X-RateLimit-* values.
    expect((await world.app.call('GET', '/v1/resolve/alice', { key: world.app.portal.secret })).status).toBe(200);
    const resolves = world.probe.resolves.length;
    const admits = world.probe.admits.length;

    const fast = await exchange(world.app.base, keyedGet('/v1/resolve/alice', world.app.key.secret, 'req-keyed-1'));
    expect(world.probe.resolves.length).toBe(resolves); // the procedure did not run: served below Fastify
    expect(world.probe.admits.length).toBe(admits + 1);

    // A request that announces an (empty) body is Fastify's: the key step and the procedure, through every hook.
    const slow = await exchange(
      world.app.base,
      keyedGet('/v1/resolve/alice', world.app.otherKey.secret, 'req-keyed-1', 'Content-Length: 0\r\n'),
    );
    expect(world.probe.resolves.length).toBe(resolves + 1);
    expect(world.probe.admits.length).toBe(admits + 2);

    expect(withoutDate(fast)).toBe(withoutDate(slow));
    expect(fast).toMatch(
      new RegExp(
        '^HTTP/1\\.1 200 OK\\r\\n' +
          'x-request-id: req-keyed-1\\r\\n' +
          'content-type: application/json; charset=utf-8\\r\\n' +
          'x-ratelimit-limit: 300\\r\\n' +
          'x-ratelimit-remaining: 299\\r\\n' +
          'x-ratelimit-daily-limit: 15000\\r\\n' +
          'x-ratelimit-daily-remaining: 14999\\r\\n' +
          'content-length: \\d+\\r\\n' +
          'Date: [^\\r]+\\r\\n' +
          'Connection: keep-alive\\r\\n' +
          'Keep-Alive: timeout=\\d+\\r\\n\\r\\n\\{"input":"alice","name":"alice",',
      ),
    );
    expect(fast).not.toMatch(/cache-control/i);
  });

  it('count each replay once against the key, in the metrics and in the usage history', async () => {
    await awayFromMinuteEdge(5_000); // both replays' remaining units read from one minute window
    await world.app.call('GET', '/v1/resolve/alice', { key: world.app.portal.secret });
    const resolves = world.probe.resolves.length;
    const remaining: string[] = [];
    for (const id of ['req-keyed-h1', 'req-keyed-h2']) {
      const raw = await exchange(world.app.base, keyedGet('/v1/resolve/alice', world.app.key.secret, id));
      remaining.push(/\r\nx-ratelimit-remaining: (\d+)\r\n/.exec(raw)![1]!);
    }
    expect(world.probe.resolves.length).toBe(resolves);
    // One unit per request: the second replay sees exactly one more used than the first.
    expect(Number(remaining[0]) - Number(remaining[1])).toBe(1);

    const metrics = await (await fetch(`${world.app.base}/metrics`)).text();
    const line = metrics
      .split('\n')
      .find((l) => l.startsWith('sigil_http_requests_total{') && l.includes('route="/v1/resolve/{name}"'));
    expect(Number(line?.split(' ').pop())).toBeGreaterThanOrEqual(3);

    const log = await world.app.app.services.usageHistory.requestLog(world.app.key.key.account, { limit: 100 });
    const replayed = log.requests.find((r) => r.request_id === 'req-keyed-h2');
    expect(replayed).toMatchObject({
      method: 'GET',
      route: '/v1/resolve/{name}',
      status: 200,
      key_id: world.app.key.key.id,
      kind: 'keyed',
    });
  });
});
