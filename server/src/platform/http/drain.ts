// Draining (docs/deploy.md "Graceful drain"): from the signal on, /ready answers 503 so the balancer stops sending,
// while the listener and every connection stay open for the drain window; the answer to the last request a connection
// sent then carries Connection: close (an answer with requests pipelined behind it does not: closing would drop them). Then the server closes as Fastify does (in-flight requests finish, idle connections close).
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface Drain {
  readonly draining: boolean;
  /** Starts the drain (idempotent); app.close() starts it too. */
  begin(): void;
}

export function registerDrain(app: FastifyInstance): Drain {
  let draining = false;
  // The last request each connection sent: node reads pipelined requests before answering the first, and writes the
  // answers in order, so only the answer to the last one may close the connection.
  const latest = new WeakMap<Socket, IncomingMessage>();
  const drain: Drain = {
    get draining() {
      return draining;
    },
    begin: () => void (draining = true),
  };
  app.addHook('preClose', async () => drain.begin());
  app.server.prependListener('request', (request: IncomingMessage) => latest.set(request.socket, request));
  app.addHook('onSend', async (request, reply, payload) => {
    if (draining && latest.get(request.raw.socket) === request.raw) reply.header('connection', 'close');
    return payload;
  });
  return drain;
}
