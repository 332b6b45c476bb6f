// The HTTP application: both faces of the one router, docs, metrics, request ids and error shaping, assembled
// on one Fastify instance. No listening, no signals: main.ts owns the process; tests call buildApp directly.
import type { AnyTRPCRouter } from '@trpc/server';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { SERVICE_VERSION } from './platform/config';
import { BODY_LIMIT_BYTES, registerBodyParsers } from './platform/http/body';
import { registerDrain, type Drain } from './platform/http/drain';
import { faceOf, genericError, shapeFrameworkError, shapeRestError, type ShapedError } from './platform/http/errors';
import { registerIndex } from './platform/http/index-page';
import { buildOpenApiDocument, registerDocs } from './platform/http/openapi';
import { REQUEST_ID_HEADER, requestIdFor } from './platform/http/request-id';
import { handedOver, registerFastReplay } from './platform/http/fast-replay';
import { pathOf, registerRest, type RestFace, type RestRoute } from './platform/http/rest';
import { registerRawMount } from './platform/http/raw-mount';
import { registerReadiness } from './platform/http/readiness';
import { registerTransport, transportOptions } from './platform/http/transport';
import { registerTrpc } from './platform/http/trpc';
import { createLogger, type Logger } from './platform/log';
import { createMetrics, type Metrics } from './platform/metrics';
import {
  markedAccount,
  type KeyAdmission,
  type ReplayFacts,
  type RequestContext,
  type UsageMark,
} from './trpc/context';
import type { AppServices } from './compose';
import { appRouter } from './router';

export interface AppDeps {
  /** The composed services (compose.ts). */
  services: AppServices;
  /** Default: a pino logger at config.logLevel on stdout. */
  logger?: Logger;
  /** Default: a fresh registry (pass the one the chain reader's onRpcCall hook feeds). */
  metrics?: Metrics;
  /** Default: the service's router. Tests pass one with extra procedures (see trpc/init.ts mergeRouters). */
  router?: AnyTRPCRouter;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** ctx.responseHeaders of the procedure that served this request (applied in onSend). */
    responseHeaders?: Record<string, string>;
    /** ctx.usage of the procedure that served this request (recorded in onResponse). */
    usageMark?: UsageMark;
    /** Set once the request is in the usage history: it is recorded once, however its response ended. */
    usageRecorded?: boolean;
  }
  interface FastifyInstance {
    /** The composed services the procedures use (the same object main.ts hands to the workers). */
    services: AppServices;
    /** The drain main.ts begins on SIGTERM, a window before app.close() (platform/http/drain.ts). */
    drain: Drain;
  }
}

function sendShaped(reply: FastifyReply, shaped: ShapedError): FastifyReply {
  if (shaped.headers) reply.headers(shaped.headers);
  return reply.code(shaped.status).type('application/json; charset=utf-8').send(JSON.stringify(shaped.body));
}

/**
 * The hooks every response passes: the request id, the procedure's header bag,
 * metrics, and error and not-found bodies shaped by face (never Fastify's defaults).
 */
function registerHooks(app: FastifyInstance, metrics: Metrics, services: AppServices): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  /** In memory only (written in batches): once per request, with the status of the answer decided for it. */
  function recordUsage(request: FastifyRequest, reply: FastifyReply, route: string): void {
    if (!request.usageMark || request.usageRecorded) return;
    request.usageRecorded = true;
    services.usageHistory.recordResponse(request.usageMark, reply.statusCode, {
      method: request.method,
      route,
      requestId: request.id,
      latencyMs: reply.elapsedTime,
    });
  }
  const routeOf = (request: FastifyRequest) => request.routeLabel ?? request.routeOptions.url ?? 'unmatched';

  app.addHook('onSend', async (request, reply, payload) => {
    // Headers procedures asked for (ctx.responseHeaders), on success and error alike: e.g. X-RateLimit-*.
    if (request.responseHeaders) reply.headers(request.responseHeaders);
    // A client that went away before its answer was written: the response never finishes, so onResponse never
    // runs, but the key step may have counted the request. It is recorded now, with the status of the answer the
    // service decided on and the latency until then (what it would have recorded had the client stayed); the
    // request metrics, like node's own, count answers written only.
    if (reply.raw.destroyed) recordUsage(request, reply, routeOf(request));
    // A client that goes away once the answer is being written (a large body, a slow reader): the socket closes
    // before the response finishes, and again onResponse never runs. Recorded when the response closes unfinished,
    // like the case above; a response that finishes closes finished and is recorded by onResponse. Only requests a
    // key or a payment marked get the listener (recordResponse ignores the others).
    else if (request.usageMark && markedAccount(request.usageMark)) {
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) recordUsage(request, reply, routeOf(request));
      });
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = routeOf(request);
    metrics.observeHttp(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // The final status is known only here.
    recordUsage(request, reply, route);
  });

  // Anything thrown outside a procedure (body parser, hooks): shaped by face, never Fastify's default body.
  app.setErrorHandler((error, request, reply) => {
    const face = faceOf(pathOf(request.url));
    const shaped = face === 'trpc' ? shapeFrameworkError(face, error) : shapeRestError(face, error);
    if (shaped.unexpected) request.log.error({ err: error }, 'unexpected error');
    return sendShaped(reply, shaped);
  });
  app.setNotFoundHandler((request, reply) => {
    request.routeLabel = 'unmatched';
    return sendShaped(reply, genericError(faceOf(pathOf(request.url)), 404));
  });
}

/** A request's replay facts: at first, the key step the replay path below Fastify took for it, if it did. */
function replayFactsOf(request: FastifyRequest): ReplayFacts {
  return { keyStep: handedOver<KeyAdmission>(request.raw)?.keyStep };
}

/** The per-request context of both faces, over the one services object. */
function requestContextFor(services: AppServices) {
  return (request: FastifyRequest, face: RequestContext['face'], route?: RestRoute): RequestContext => ({
    services,
    // One bag per request, shared with the onSend hook of registerHooks.
    responseHeaders: (request.responseHeaders ??= {}),
    usage: (request.usageMark ??= {}),
    replay: (request.replay ??= replayFactsOf(request)),
    requestId: request.id,
    face,
    method: request.method,
    url: request.url,
    rawBody: request.rawBody,
    headers: request.headers,
    clientIp: request.ip,
    log: request.log as Logger,
    pathParams: route?.pathParams,
  });
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const { services } = deps;
  const { config } = services;
  const logger = deps.logger ?? createLogger(config);
  const metrics = deps.metrics ?? createMetrics();
  const router = deps.router ?? appRouter;

  let rest: RestFace | undefined;
  const decideRest: RestFace['decide'] = (method, url) =>
    rest ? rest.decide(method, url) : { routeLabel: 'unmatched', error: genericError('public', 404) };
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // A request the replay path below Fastify handed on keeps the id that path gave it (its key step logged it).
    genReqId: (req) => handedOver(req)?.requestId ?? requestIdFor(req),
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Draining: a request that still arrives on a connection this replica already had (sent just before the
    // balancer took it out of rotation) is served, with Connection: close, instead of Fastify's own 503 (not our
    // error shape, and a failed request for the client): until the drain ends the replica has all it needs.
    return503OnClosing: false,
    // A whole path is one wildcard parameter of the REST catch-all route: allow long ones (e.g. several ids).
    routerOptions: { maxParamLength: 2048 },
    // URLs Fastify's router refuses (a malformed %-sequence anywhere in the path): the REST routing rules decide
    // the answer, so a 404 stays a 404 and a bad path parameter gets the same 400 as anywhere else.
    frameworkErrors: (error, request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      const face = faceOf(pathOf(request.url));
      const decision = face === 'trpc' ? undefined : decideRest(request.method, request.url);
      request.routeLabel = decision?.routeLabel ?? 'unmatched';
      sendShaped(reply, decision && 'error' in decision ? decision.error : shapeFrameworkError(face, error));
    },
    ...transportOptions(config),
  });

  // First, while Fastify's handler is the server's only request listener (platform/http/fast-replay.ts).
  registerFastReplay(app, {
    replay: () => rest?.replay,
    keyedReplay: () => rest?.keyedReplay,
    admit: (secret, cost, log) => services.keyGate.admit(secret, cost, log),
    recordUsage: (mark, status, answered) => services.usageHistory.recordResponse(mark, status, answered),
    metrics,
    logger,
    drain: () => drain,
  });
  const drain = registerDrain(app);
  app.decorate('services', services);
  app.decorate('drain', drain);
  registerBodyParsers(app);

  registerHooks(app, metrics, services);
  registerTransport(app, sendShaped);

  const contextFor = requestContextFor(services);
  registerTrpc(app, { router, createContext: (request) => contextFor(request, 'trpc') });
  rest = registerRest(app, {
    router,
    createContext: (request, route) => contextFor(request, 'rest', route),
    responseCacheMs: config.resolveCacheMs,
  });
  registerDocs(app, buildOpenApiDocument(router, { version: SERVICE_VERSION, baseUrl: config.publicUrl }));
  registerIndex(app, { publicUrl: config.publicUrl, portalUrl: config.portalUrl });

  // The OpenID Connect provider (a Koa application) owns discovery and everything under /oidc/ (docs/oidc.md).
  registerRawMount(app, ['/.well-known/openid-configuration', '/oidc/*'], services.oidc.handle, (error, res) => {
    app.log.error({ err: error }, 'unexpected error in the OpenID Connect handler');
    if (!res.headersSent) {
      const shaped = genericError('v1', 500);
      res.writeHead(shaped.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(shaped.body));
    } else res.destroy();
  });

  registerReadiness(app, { ...services, drain: app.drain });
  // The body is returned, not sent: an async handler that sends and resolves with nothing makes Fastify send a
  // second time while the first send still runs its onSend hooks (a 500 counted for every scrape).
  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.contentType);
    return metrics.render();
  });

  return app;
}
