// A client that goes away while its key step runs, or once its answer is being written: the key step counted the
// request, so the usage history records it exactly once (with the status of the answer decided for it), whichever
// path served it: the replay below Fastify, Fastify's own path, or Fastify after the replay path handed the request
// on (fast-replay.ts, app.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { exchange } from '@sigil/test/support/http-app';
import { freshKey, keyedGet, rateCounts, useKeyedReplayApp } from '@sigil/test/support/keyed-replay';
import { awayFromMinuteEdge } from '@sigil/test/support/ratelimit-usage';

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
  // The usage read after the request is of the minute it was counted in (rateCounts reads the current window).
  await awayFromMinuteEdge(5_000);
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

/**
 * Sends a keyed GET of `path` with a fresh key, lets the server write the head and only the first half of the body
 * (the rest still on its way, as for a large answer to a slow reader: no keyed answer is large enough to outlast the
 * loopback buffers for real, which hold tens of megabytes), destroys the client's socket once the head arrived, and
 * waits for the server to see the response close. What the client read of the head, and what was recorded.
 */
async function goneMidResponse(requestId: string, extra = '', path = '/v1/resolve/alice') {
  await awayFromMinuteEdge(5_000);
  const fresh = await freshKey(world.app, 'mid-response');
  let closed!: (finished: boolean) => void;
  const responseClosed = new Promise<boolean>((resolve) => (closed = resolve));
  const holdBack = (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers['x-request-id'] !== requestId) return;
    res.once('close', () => closed(res.writableFinished));
    res.end = ((body?: string | Buffer | null) => {
      // A streamed answer (the tRPC face's) was written already: only its end is held back.
      if (body === undefined || body === null) return res;
      const bytes = Buffer.from(body);
      res.write(bytes.subarray(0, bytes.length >> 1));
      return res;
    }) as ServerResponse['end'];
  };
  world.app.app.server.on('request', holdBack);
  let head = '';
  try {
    const socket = connect(Number(new URL(world.app.base).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.setEncoding('latin1');
    const headRead = new Promise<void>((resolve) =>
      socket.on('data', (chunk: string) => {
        head += chunk;
        if (head.includes('\r\n\r\n')) resolve();
      }),
    );
    socket.write(keyedGet(path, fresh.secret, requestId, extra));
    await headRead;
    socket.destroy();
    expect(await responseClosed).toBe(false); // the response was cut short, not finished
  } finally {
    world.app.app.server.off('request', holdBack);
  }
  await vi.waitFor(() => expect(world.probe.recorded).toContain(requestId));
  const log = await world.app.app.services.usageHistory.requestLog(fresh.key.account, { limit: 100 });
  const usage = await rateCounts(world.app, fresh.key.id);
  const recorded = world.probe.recorded.filter((id) => id === requestId).length;
  return { status: head.slice(0, head.indexOf('\r\n')), log: log.requests, usage, recorded };
}

describe('a client that goes away once its answer is being written is recorded once', () => {
  it("Fastify's path (a body announced): recorded with the answer's status", async () => {
    const resolves = world.probe.resolves.length;
    const { status, log, usage, recorded } = await goneMidResponse('req-mid-fastify', 'Content-Length: 0\r\n');
    expect(world.probe.resolves.length).toBe(resolves + 1);
    expect(status).toBe('HTTP/1.1 200 OK');
    expect(usage).toStrictEqual({ minute: 1, day: 1 });
    expect(recorded).toBe(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ request_id: 'req-mid-fastify', status: 200, route: '/v1/resolve/{name}' });
  });

  it("the tRPC face: recorded with the answer's status", async () => {
    const path = `/trpc/universal.resolve?input=${encodeURIComponent(JSON.stringify({ name: 'alice' }))}`;
    const { status, log, recorded } = await goneMidResponse('req-mid-trpc', '', path);
    expect(status).toBe('HTTP/1.1 200 OK');
    expect(recorded).toBe(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ request_id: 'req-mid-trpc', status: 200, route: '/trpc/universal.resolve' });
  });

  it('replayed below Fastify: recorded with the kept answer', async () => {
    const resolves = world.probe.resolves.length;
    const { status, log, usage, recorded } = await goneMidResponse('req-mid-replay');
    expect(world.probe.resolves.length).toBe(resolves); // the replay path's request: the procedure did not run
    expect(status).toBe('HTTP/1.1 200 OK');
    expect(usage).toStrictEqual({ minute: 1, day: 1 });
    expect(recorded).toBe(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ request_id: 'req-mid-replay', status: 200, route: '/v1/resolve/{name}' });
  });

  it("a response that finishes on Fastify's path is recorded once, not again when it closes", async () => {
    const fresh = await freshKey(world.app, 'finished');
    let closed!: (finished: boolean) => void;
    const responseClosed = new Promise<boolean>((resolve) => (closed = resolve));
    const watch = (req: IncomingMessage, res: ServerResponse) => {
      if (req.headers['x-request-id'] === 'req-finished') res.once('close', () => closed(res.writableFinished));
    };
    world.app.app.server.on('request', watch);
    try {
      const raw = await exchange(
        world.app.base,
        keyedGet('/v1/resolve/alice', fresh.secret, 'req-finished', 'Content-Length: 0\r\n'),
      );
      expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(await responseClosed).toBe(true);
    } finally {
      world.app.app.server.off('request', watch);
    }
    await vi.waitFor(() => expect(world.probe.recorded).toContain('req-finished'));
    expect(world.probe.recorded.filter((id) => id === 'req-finished')).toHaveLength(1);
    const log = await world.app.app.services.usageHistory.requestLog(fresh.key.account, { limit: 100 });
    expect(log.requests).toHaveLength(1);
    expect(log.requests[0]).toMatchObject({ request_id: 'req-finished', status: 200, route: '/v1/resolve/{name}' });
  });
});

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
