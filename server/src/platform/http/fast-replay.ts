// Replays of the answer cache (rest.ts) served below Fastify. A warm public resolve is one map lookup, but through
// Fastify it also pays the router, five hook stages (each a promise), the reply object and a child logger: measured,
// about as much CPU again as node:http's own work for the request. A GET whose raw URL has a replayable answer is
// written here instead, with the same status, headers (names, values and order) and body Fastify would write, and
// counted in the same metrics; everything else, and every request this path is not sure about, goes to Fastify
// unchanged. `fast-replay.happy.test.ts` compares the raw bytes of both paths.
//
// Keyed answers (rest.ts keyedReplay routes) are replayed here too, after the key step: a GET carrying an API key
// whose raw URL has a kept keyed answer asks the key gate itself (the same secret, the same cost the answer was
// counted at) and, when the key is admitted, writes the answer with the admission's rate-limit headers and records
// the request in the usage history, as Fastify's path would. Otherwise the request goes to Fastify with the gate's
// answer on it (`handedOver`), so the key step is never taken twice for one request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log';
import type { Metrics } from '../metrics';
import type { Drain } from './drain';
import { apiKeySecretOf } from './api-key';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id';
import { REPLAY_CONTENT_TYPE, type KeyedReplay, type Replay } from './rest';

/** What this path needs of the key gate's answer (trpc/context.ts KeyAdmission, which platform/ does not import). */
export interface ReplayAdmission {
  key: { id: string; account: string };
  /** The X-RateLimit-* headers, in the order Fastify's path writes them. */
  rateHeaders: Record<string, string>;
  /** Set when over a limit: the key step's 429 is Fastify's to write. */
  denied?: unknown;
}

export interface FastReplayDeps<A extends ReplayAdmission = ReplayAdmission> {
  /** The answer cache's replay (rest.ts); read on every request, so it may be bound after this is registered. */
  replay: () => ((rawUrl: string) => Replay | undefined) | undefined;
  /** The keyed answer cache's replay (rest.ts), bound likewise. */
  keyedReplay: () => ((rawUrl: string) => KeyedReplay | undefined) | undefined;
  /** The key step (KeyGate.admit). */
  admit: (secret: string, cost: number, log: Logger) => Promise<A | null>;
  /** Records a replayed keyed request in the usage history, as app.ts's onResponse hook does. */
  recordUsage: (mark: { keyId: string; account: string }, status: number, answered: AnsweredReplay) => void;
  metrics: Pick<Metrics, 'observeHttp'>;
  logger: Pick<Logger, 'isLevelEnabled' | 'child' | 'error'>;
  drain: () => Drain | undefined;
}

/** What the usage history's request log keeps of an answered request. */
export interface AnsweredReplay {
  method: string;
  route: string;
  requestId: string;
  latencyMs: number;
}

/** What this path hands on to Fastify with a request it took the key step for. */
export interface HandedOver<A extends ReplayAdmission = ReplayAdmission> {
  /** The request id this path gave the request (its key step logged under it): Fastify keeps it (app.ts genReqId). */
  requestId: string;
  /** The key step taken, unless the gate threw (then Fastify's path takes it, and shapes the error). */
  keyStep?: { secret: string; cost: number; admission: A | null };
}

/** Private to this module: nothing a client sends can set it. */
const HANDED_OVER = Symbol('sigil.fastReplay.handedOver');

/** What this path handed on with the request, if it took the key step for it. */
export function handedOver<A extends ReplayAdmission>(req: IncomingMessage): HandedOver<A> | undefined {
  return (req as IncomingMessage & { [HANDED_OVER]?: HandedOver<A> })[HANDED_OVER];
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
 * A keyed answer further needs an API key (the one the key step would read: apiKeySecretOf) and the key admitted
 * with no drain begun by the time the gate answers.
 */
function eligible(req: IncomingMessage, deps: Pick<FastReplayDeps, 'drain' | 'logger'>): boolean {
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

/** Writes a replayed answer: `head` in order, then Content-Length last (Fastify's send sets it, as a string). */
function writeReplay(res: ServerResponse, status: number, head: Record<string, string>, body: string | Buffer): void {
  head['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.writeHead(status, head);
  res.end(body);
}

/**
 * Puts the replay path in front of Fastify's request handler. Call it right after Fastify is constructed, when that
 * handler is the server's only `request` listener (listeners added later, like drain.ts's, still run first).
 */
export function registerFastReplay<A extends ReplayAdmission>(app: FastifyInstance, deps: FastReplayDeps<A>): void {
  const listeners = app.server.listeners('request');
  if (listeners.length !== 1) throw new Error("registerFastReplay: expected Fastify's handler as the only listener");
  const fastify = listeners[0] as (req: IncomingMessage, res: ServerResponse) => void;
  app.server.removeListener('request', fastify);

  /** Fastify takes the request, with what this path already did for it. */
  function handOver(req: IncomingMessage, res: ServerResponse, carried: HandedOver<A>): void {
    (req as IncomingMessage & { [HANDED_OVER]?: HandedOver<A> })[HANDED_OVER] = carried;
    fastify(req, res);
  }

  /**
   * A kept keyed answer for an API key: the key step, then the answer if the key is admitted and the answer still
   * kept (and no drain began meanwhile); otherwise Fastify, with the gate's answer.
   */
  async function replayKeyed(req: IncomingMessage, res: ServerResponse, secret: string, cost: number, started: number) {
    const requestId = requestIdFor(req);
    let admission: A | null;
    try {
      admission = await deps.admit(secret, cost, deps.logger.child({ requestId }));
    } catch {
      return handOver(req, res, { requestId });
    }
    const hit = admission && !admission.denied && deps.drain()?.draining !== true && deps.keyedReplay()?.(req.url!);
    if (!admission || !hit || hit.cost !== cost)
      return handOver(req, res, { requestId, keyStep: { secret, cost, admission } });
    // The order and spelling of Fastify's own reply: the request id (app.ts onRequest), Content-Type (rest.ts), the
    // key step's X-RateLimit-* headers (app.ts onSend), Content-Length (set by Fastify's send, as a string).
    // Fastify spells every header name in lower case.
    const head: Record<string, string> = { [REQUEST_ID_HEADER]: requestId, 'content-type': REPLAY_CONTENT_TYPE };
    for (const name in admission.rateHeaders) head[name.toLowerCase()] = admission.rateHeaders[name]!;
    // A client that went away while the key step ran was counted all the same: nothing is written, but the request
    // is recorded in the usage history, with the answer's status and the latency until it was ready, as app.ts's
    // onSend hook records one Fastify answered; like Fastify's, the request metrics count answers written only.
    const gone = res.destroyed;
    if (!gone) writeReplay(res, hit.status, head, hit.body);
    const latencyMs = performance.now() - started;
    if (!gone) deps.metrics.observeHttp('GET', hit.routeLabel, hit.status, latencyMs / 1000);
    const mark = { keyId: admission.key.id, account: admission.key.account };
    deps.recordUsage(mark, hit.status, { method: 'GET', route: hit.routeLabel, requestId, latencyMs });
  }

  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    if (!eligible(req, deps)) return fastify(req, res);
    const hit = deps.replay()?.(req.url!);
    if (!hit) {
      const secret = apiKeySecretOf(req.headers);
      const keyed = secret ? deps.keyedReplay()?.(req.url!) : undefined;
      if (!keyed) return fastify(req, res);
      return void replayKeyed(req, res, secret!, keyed.cost, started).catch((err: unknown) => {
        deps.logger.error({ err }, 'unexpected error in the keyed replay');
        // Only a response nothing was written to yet: one Fastify took over, or already sent, keeps its connection.
        if (!res.headersSent) res.destroy();
      });
    }
    // The order and spelling of Fastify's own reply: the request id (app.ts onRequest), Cache-Control and
    // Content-Type (rest.ts), Content-Length (set by Fastify's send, as a string).
    const head = {
      [REQUEST_ID_HEADER]: requestIdFor(req),
      'cache-control': hit.cacheControl,
      'content-type': REPLAY_CONTENT_TYPE,
    };
    writeReplay(res, hit.status, head, hit.body);
    deps.metrics.observeHttp('GET', hit.routeLabel, hit.status, (performance.now() - started) / 1000);
  });
}
