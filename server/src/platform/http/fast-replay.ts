// Replays of the answer cache (rest.ts) served below Fastify. A warm public resolve is one map lookup, but through
// Fastify it also pays the router, five hook stages (each a promise), the reply object and a child logger: measured,
// about as much CPU again as node:http's own work for the request. A GET whose raw URL has a replayable answer is
// written here instead, with the same status, headers (names, values and order) and body Fastify would write, and
// counted in the same metrics; everything else, and every request this path is not sure about, goes to Fastify
// unchanged. `fast-replay.happy.test.ts` compares the raw bytes of both paths.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log';
import type { Metrics } from '../metrics';
import type { Drain } from './drain';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id';
import { REPLAY_CONTENT_TYPE, type Replay } from './rest';

export interface FastReplayDeps {
  /** The answer cache's replay (rest.ts); read on every request, so it may be bound after this is registered. */
  replay: () => ((rawUrl: string) => Replay | undefined) | undefined;
  metrics: Pick<Metrics, 'observeHttp'>;
  logger: Pick<Logger, 'isLevelEnabled'>;
  drain: () => Drain | undefined;
}

/**
 * The requests this path may answer: Fastify would answer them from the answer cache in its onRequest stage, and no
 * other hook would change the answer or need the request. Anything else goes to Fastify:
 *   - not a GET (HEAD, or a method with a body);
 *   - a body announced (transport.ts closes the connection after an answer sent before a body is read);
 *   - no Host header (transport.ts refuses an HTTP/1.1 request without one);
 *   - draining (drain.ts may add Connection: close);
 *   - request logging on (Fastify writes an "incoming request" and a "request completed" line at info, which cost
 *     more than the layers skipped here; the lines are written by Fastify, so they stay exactly as they are).
 */
function eligible(req: IncomingMessage, deps: FastReplayDeps): boolean {
  const { headers } = req;
  return (
    req.method === 'GET' &&
    headers['content-length'] === undefined &&
    headers['transfer-encoding'] === undefined &&
    headers.host !== undefined &&
    deps.drain()?.draining !== true &&
    !deps.logger.isLevelEnabled('info')
  );
}

/**
 * Puts the replay path in front of Fastify's request handler. Call it right after Fastify is constructed, when that
 * handler is the server's only `request` listener (listeners added later, like drain.ts's, still run first).
 */
export function registerFastReplay(app: FastifyInstance, deps: FastReplayDeps): void {
  const listeners = app.server.listeners('request');
  if (listeners.length !== 1) throw new Error("registerFastReplay: expected Fastify's handler as the only listener");
  const fastify = listeners[0] as (req: IncomingMessage, res: ServerResponse) => void;
  app.server.removeListener('request', fastify);
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const hit = eligible(req, deps) ? deps.replay()?.(req.url!) : undefined;
    if (!hit) return fastify(req, res);
    // The order and spelling of Fastify's own reply: the request id (app.ts onRequest), Cache-Control and
    // Content-Type (rest.ts), Content-Length (set by Fastify's send, as a string).
    res.writeHead(hit.status, {
      [REQUEST_ID_HEADER]: requestIdFor(req),
      'cache-control': hit.cacheControl,
      'content-type': REPLAY_CONTENT_TYPE,
      'content-length': String(typeof hit.body === 'string' ? Buffer.byteLength(hit.body) : hit.body.length),
    });
    res.end(hit.body);
    deps.metrics.observeHttp('GET', hit.routeLabel, hit.status, (performance.now() - started) / 1000);
  });
}
