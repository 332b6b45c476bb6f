// A client that goes away while its key step runs: the key step counted the request, so the usage history records
// it exactly once (with the status of the answer decided for it), whichever path served it: the replay below
// Fastify, Fastify's own path, or Fastify after the replay path handed the request on (fast-replay.ts, app.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { freshKey, keyedGet, rateCounts, useKeyedReplayApp } from '@sigil/test/support/keyed-replay';

const world = useKeyedReplayApp({ keptAnswer: true });

/**
 * Sends a keyed GET of `path` (default /v1/resolve/alice) with a fresh key, holds the key step once the gate has counted it, destroys
 * the client's socket, lets the key step go on once the server has seen the response close, and waits for the usage
 * history to record the request. `duringKeyStep` runs while the key step is held.
 */
async function goneDuringKeyStep(
  requestId: string,
  extra = '',
  duringKeyStep?: () => void,
  path = '/v1/resolve/alice',
) {
  const fresh = await freshKey(world.app, 'gone');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let admitted!: () => void;
  const counted = new Promise<void>((resolve) => (admitted = resolve));
  let closed!: () => void;
  const responseClosed = new Promise<void>((resolve) => (closed = resolve));
  const watch = (_req: IncomingMessage, res: ServerResponse) => res.once('close', closed);
  world.app.app.server.on('request', watch);
  world.probe.onAdmitted = () => {
    duringKeyStep?.();
    admitted();
    return held;
  };
  try {
    const socket = connect(Number(new URL(world.app.base).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(keyedGet(path, fresh.secret, requestId, extra));
    await counted;
    socket.destroy();
    await responseClosed;
  } finally {
    world.probe.onAdmitted = undefined;
    world.app.app.server.off('request', watch);
    release();
  }
  await vi.waitFor(() => expect(world.probe.recorded).toContain(requestId));
  const log = await world.app.app.services.usageHistory.requestLog(fresh.key.account, { limit: 100 });
  const usage = await rateCounts(world.app, fresh.key.id);
  return { log: log.requests, usage, recorded: world.probe.recorded.filter((id) => id === requestId).length };
}

/** Answers counted in the request metrics under the route of GET /v1/resolve/{name}. */
async function resolveAnswersCounted(): Promise<number> {
  const metrics = await (await fetch(`${world.app.base}/metrics`)).text();
  return metrics
    .split('\n')
    .filter((l) => l.startsWith('sigil_http_requests_total{') && l.includes('route="/v1/resolve/{name}"'))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

describe('a client that goes away while the key step runs is recorded once', () => {
  it('replayed below Fastify: recorded with the kept answer, not counted as an answer written', async () => {
    const resolves = world.probe.resolves.length;
    const answers = await resolveAnswersCounted();
    const { log, usage, recorded } = await goneDuringKeyStep('req-gone-replay');
    expect(world.probe.resolves.length).toBe(resolves); // the replay path's request: the procedure did not run
    expect(await resolveAnswersCounted()).toBe(answers); // as on Fastify's path: no answer was written
    expect(usage).toStrictEqual({ minute: 1, day: 1 });
    expect(recorded).toBe(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ request_id: 'req-gone-replay', status: 200, route: '/v1/resolve/{name}' });
  });

  it("Fastify's path (a body announced): recorded with the answer the procedure gave", async () => {
    const resolves = world.probe.resolves.length;
    const { log, usage, recorded } = await goneDuringKeyStep('req-gone-fastify', 'Content-Length: 0\r\n');
    expect(world.probe.resolves.length).toBe(resolves + 1);
    expect(usage).toStrictEqual({ minute: 1, day: 1 });
    expect(recorded).toBe(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ request_id: 'req-gone-fastify', status: 200, route: '/v1/resolve/{name}' });
  });

  it('the tRPC face: recorded with the answer the procedure gave', async () => {
    const path = `/trpc/universal.resolve?input=${encodeURIComponent(JSON.stringify({ name: 'alice' }))}`;
    const { log, usage, recorded } = await goneDuringKeyStep('req-gone-trpc', '', undefined, path);
    expect(usage).toStrictEqual({ minute: 1, day: 1 });
    expect(recorded).toBe(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ request_id: 'req-gone-trpc', status: 200, route: '/trpc/universal.resolve' });
  });

  // Last: the drain it begins stays on.
  it('handed to Fastify after the key step (a drain began meanwhile): recorded by Fastify, once', async () => {
    const resolves = world.probe.resolves.length;
    const admits = world.probe.admits.length;
    const { log, usage, recorded } = await goneDuringKeyStep('req-gone-handed', '', () => world.app.app.drain.begin());
    expect(world.probe.admits.length).toBe(admits + 1); // one key step: the replay path's, handed on
    expect(world.probe.resolves.length).toBe(resolves + 1);
    expect(usage).toStrictEqual({ minute: 1, day: 1 });
    expect(recorded).toBe(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ request_id: 'req-gone-handed', status: 200, route: '/v1/resolve/{name}' });
  });
});
