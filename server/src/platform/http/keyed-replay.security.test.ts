// Keyed replays below Fastify never widen who gets an answer, nor count a key twice: a refused key gets Fastify's
// own 401 / 429 from the one key step already taken; a keyless request never sees a keyed answer; an answer an x402
// payment bought is never kept; an answer is not kept past the bound of the data it was built from.
import { describe, expect, it, vi } from 'vitest';
import { TIER_LIMITS } from '@sigil/contract/keys';
import { exchange, withoutDate } from '@sigil/test/support/http-app';
import { keyedGet, useKeyedReplayApp } from '@sigil/test/support/keyed-replay';
import { awayFromMinuteEdge, setUsage } from '@sigil/test/support/ratelimit-usage';

const world = useKeyedReplayApp({ keptAnswer: true });

/**
 * Retry-After counts down with the clock: the other part of two 429s that may differ (they may straddle a second),
 * in the header and in the message that states the same wait.
 */
const withoutRetryAfter = (raw: string) =>
  raw.replace(/\r\nretry-after: \d+\r\n/i, '\r\nretry-after: -\r\n').replace(/retry after \d+ s"/, 'retry after - s"');

/**
 * The same keyed GET twice: eligible for the replay path (which hands it on), and with an empty body announced
 * (Fastify's from the start). Each must take exactly one key step and neither runs the procedure. Each carries its
 * own request id (the request log keeps one line per account, key, millisecond and request id, so two requests with
 * one id answered in the same millisecond would be one line); `fastify` is returned with the first one's id, so the
 * two answers compare byte for byte.
 */
async function bothPaths(path: string, key: string): Promise<{ handedOn: string; fastify: string }> {
  const admits = world.probe.admits.length;
  const resolves = world.probe.resolves.length;
  const handedOn = await exchange(world.app.base, keyedGet(path, key, 'req-keyed-s1'));
  expect(world.probe.admits.length).toBe(admits + 1);
  const fastify = await exchange(world.app.base, keyedGet(path, key, 'req-keyed-s2', 'Content-Length: 0\r\n'));
  expect(world.probe.admits.length).toBe(admits + 2);
  expect(world.probe.resolves.length).toBe(resolves);
  expect(fastify).toContain('\r\nx-request-id: req-keyed-s2\r\n');
  return { handedOn, fastify: fastify.replaceAll('req-keyed-s2', 'req-keyed-s1') };
}

describe('keyed replays: refusals are handed to Fastify with the key step taken', () => {
  it('an unknown key: the same 401, one key step', async () => {
    const { handedOn, fastify } = await bothPaths('/v1/resolve/alice', 'sigil_sk_1111111111111111111111111111111111');
    expect(withoutDate(handedOn)).toBe(withoutDate(fastify));
    expect(handedOn).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\nx-request-id: req-keyed-s1\r\n/);
    expect(handedOn).toMatch(/\r\n\r\n\{"code":"INVALID_KEY",/);
  });

  it('a key over its daily limit: the same 429 with its headers, one key step, nothing counted', async () => {
    await setUsage(world.app.database.db, world.app.otherKey.key.id, { day: TIER_LIMITS.free.day });
    const { handedOn, fastify } = await bothPaths('/v1/resolve/alice', world.app.otherKey.secret);
    expect(withoutRetryAfter(withoutDate(handedOn))).toBe(withoutRetryAfter(withoutDate(fastify)));
    expect(handedOn).toMatch(
      new RegExp(
        '^HTTP/1\\.1 429 Too Many Requests\\r\\n' +
          'x-request-id: req-keyed-s1\\r\\n' +
          'content-type: application/json; charset=utf-8\\r\\n' +
          'x-ratelimit-limit: 300\\r\\n' +
          'x-ratelimit-remaining: 300\\r\\n' +
          'x-ratelimit-daily-limit: 15000\\r\\n' +
          'x-ratelimit-daily-remaining: 0\\r\\n' +
          'retry-after: \\d+\\r\\n',
      ),
    );
    // A refused request counts nothing: both answers state the same remaining units. Each is logged once its
    // response has been sent, so the second may still be on its way when the client has read it.
    await vi.waitFor(async () => {
      const log = await world.app.app.services.usageHistory.requestLog(world.app.otherKey.key.account, { limit: 100 });
      const refused = log.requests.filter((r) => ['req-keyed-s1', 'req-keyed-s2'].includes(r.request_id));
      expect(refused.map((r) => [r.request_id, r.status]).sort()).toEqual([
        ['req-keyed-s1', 429],
        ['req-keyed-s2', 429],
      ]);
    }, 5000);
  });
});

describe('keyed answers are for admitted keys only', () => {
  it('a keyless request, or one with a blank key, never gets a kept keyed answer', async () => {
    const admits = world.probe.admits.length;
    for (const key of [undefined, '']) {
      const raw = await exchange(world.app.base, keyedGet('/v1/resolve/alice', key, 'req-keyed-s3'));
      expect(raw).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
      expect(raw).toMatch(/\r\n\r\n\{"code":"API_KEY_REQUIRED",/);
      expect(raw).not.toMatch(/cache-control/i);
    }
    expect(world.probe.admits.length).toBe(admits);
  });
});

describe('what the keyed answer cache keeps', () => {
  it('never an answer an x402 payment bought', async () => {
    const { services } = world.app.app;
    const meter = services.meter;
    services.meter = {
      authorize: async () => ({ paid: true }),
      settle: async () => ({}),
      payerOf: () => '11111111111111111111111111111112',
    };
    try {
      const paid = await exchange(world.app.base, keyedGet('/v1/resolve/vault', undefined, 'req-keyed-s4'));
      expect(paid).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    } finally {
      services.meter = meter;
    }
    const resolves = world.probe.resolves.length;
    const admits = world.probe.admits.length;
    // The first keyed request runs the procedure (nothing was kept); the second is replayed. One key step each.
    for (let i = 0; i < 2; i++)
      expect(
        (await exchange(world.app.base, keyedGet('/v1/resolve/vault', world.app.key.secret, `req-keyed-s5${i}`))).slice(
          0,
          15,
        ),
      ).toBe('HTTP/1.1 200 OK');
    expect(world.probe.resolves.length).toBe(resolves + 1);
    expect(world.probe.admits.length).toBe(admits + 2);
  });

  it('never an answer whose data is at the end of its bound', async () => {
    const { universal } = world.app.app.services;
    const resolve = universal.resolve;
    // The data behind the answer leaves its bound now: the answer may not outlive it.
    universal.resolve = async (name, replay) => {
      const answer = await resolve(name, replay);
      if (replay) replay.until = performance.now();
      return answer;
    };
    const resolves = world.probe.resolves.length;
    try {
      for (let i = 0; i < 2; i++)
        expect((await world.app.call('GET', '/v1/resolve/satoshi.x1', { key: world.app.key.secret })).status).toBe(200);
    } finally {
      universal.resolve = resolve;
    }
    expect(world.probe.resolves.length).toBe(resolves + 2);
  });
});

// Last: the drain it begins stays on.
describe('keyed replays: an admitted key handed to Fastify', () => {
  it('an admitted key whose answer cannot be replayed any more is served by Fastify with that admission', async () => {
    // A drain begun while the gate answered: the replay path may no longer write; Fastify's path does, once.
    await awayFromMinuteEdge(5_000); // both answers' remaining units read from one minute window
    const fresh = await world.app.call('GET', '/v1/resolve/alice', { key: world.app.key.secret });
    const before = Number(fresh.headers.get('x-ratelimit-remaining'));
    const admits = world.probe.admits.length;
    const resolves = world.probe.resolves.length;
    world.probe.onAdmitted = () => world.app.app.drain.begin();
    try {
      const raw = await exchange(world.app.base, keyedGet('/v1/resolve/alice', world.app.key.secret, 'req-keyed-s2'));
      expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(raw).toMatch(/\r\nconnection: close\r\n/i);
      expect(raw).toContain(`\r\nx-ratelimit-remaining: ${before - 1}\r\n`);
    } finally {
      world.probe.onAdmitted = undefined;
    }
    expect(world.probe.admits.length).toBe(admits + 1);
    expect(world.probe.resolves.length).toBe(resolves + 1);
  });
});
