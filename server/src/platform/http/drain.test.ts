// Draining (app.drain.begin(), what main.ts does on SIGTERM before app.close()): a request that reaches the service
// on a connection it already had is served, not refused with a 503: the replica has everything it needs until the
// drain ends. The last answer of each connection carries Connection: close, so the client moves on; answers with
// requests pipelined behind them do not (closing would drop those). The process itself: server/src/main.test.ts.
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@sigil/test/support/http-app';

let t: TestApp;
let app: FastifyInstance;
afterEach(() => t.close());

async function start() {
  t = await startTestApp({ beforeListen: (a) => void (app = a) });
  const { hostname, port } = new URL(t.base);
  const socket = net.connect(Number(port), hostname);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const answers = () => text.split(/(?=HTTP\/1\.1 \d{3} )/).filter(Boolean);
  const closed = new Promise<string[]>((r) => socket.on('close', () => r(answers())));
  const answered = (n: number) =>
    new Promise<void>((r) => {
      const check = () => (answers().length >= n ? r() : socket.once('data', check));
      check();
    });
  return { socket, closed, answered };
}

describe('drain', () => {
  it('a request arriving on a kept connection during the drain is served, with Connection: close', async () => {
    const { socket, closed, answered } = await start();
    socket.write('GET /test/echo/before HTTP/1.1\r\nHost: a\r\n\r\n');
    await answered(1); // the connection is kept, idle
    app.drain.begin();
    socket.write('GET /test/echo/after HTTP/1.1\r\nHost: a\r\n\r\n');
    const answers = await closed;
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/\r\nconnection: keep-alive\r\n/i);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200 /);
    expect(answers[1]).toMatch(/\r\nconnection: close\r\n/i);
    expect(answers[1]).toMatch(/\{"value":"after"\}$/);
  });

  it('pipelined requests during the drain are all served; only the last answer closes the connection', async () => {
    const { socket, closed } = await start();
    app.drain.begin();
    socket.write(
      'GET /test/echo/one HTTP/1.1\r\nHost: a\r\n\r\nGET /test/echo/two HTTP/1.1\r\nHost: a\r\n\r\n' +
        'GET /test/echo/three HTTP/1.1\r\nHost: a\r\n\r\n',
    );
    const answers = await closed;
    expect(answers.map((a) => a.slice(a.lastIndexOf('\r\n\r\n') + 4))).toEqual([
      '{"value":"one"}',
      '{"value":"two"}',
      '{"value":"three"}',
    ]);
    expect(answers.map((a) => /\r\nconnection: close\r\n/i.test(a))).toEqual([false, false, true]);
  });

  it('/ready answers 503 draining once the drain began', async () => {
    (await start()).socket.destroy();
    app.drain.begin();
    const res = await fetch(`${t.base}/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ready: false, draining: true });
  });
});
