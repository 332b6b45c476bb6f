// Draining (SIGTERM → app.close()): a request that reaches the service on a connection it already had, after the
// drain began (sent just before the balancer took the replica out of rotation), is served, not refused with a 503:
// the replica has everything it needs until the drain ends. Its answer carries Connection: close, so the client
// moves on. A slow preClose hook holds the drain open so that the request surely arrives inside it.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '@sigil/test/support/http-app';

describe('drain', () => {
  it('a request arriving on a kept connection during the drain is served, with Connection: close', async () => {
    const t = await startTestApp({
      beforeListen: (app) => app.addHook('preClose', (done) => void setTimeout(done, 400)),
    });
    const { hostname, port } = new URL(t.base);
    const socket = net.connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const socketClosed = new Promise((r) => socket.on('close', r));
    socket.write('GET /test/echo/before HTTP/1.1\r\nHost: a\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200)); // answered; the connection is kept, idle
    const drained = t.close();
    await new Promise((r) => setTimeout(r, 100)); // the drain has begun; the preClose hook holds it open
    socket.write('GET /test/echo/after HTTP/1.1\r\nHost: a\r\n\r\n');
    await socketClosed;
    await drained;
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200 /);
    expect(answers[1]).toMatch(/\r\nconnection: close\r\n/i);
    expect(answers[1]).toMatch(/\{"value":"after"\}$/);
  });
});
