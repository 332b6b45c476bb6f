// The HTTP application: both faces of the one router, docs, metrics, request ids and error shaping, assembled
// on one Fastify instance. No listening, no signals: main.ts owns the process; tests call buildApp directly.
import type { AnyTRPCRouter } from '@trpc/server';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { SERVICE_VERSION, type Config } from './platform/config';
import type { ChainReader } from './platform/chain/types';
import type { Database } from './platform/db/schema';
import { BODY_LIMIT_BYTES, registerBodyParsers } from './platform/http/body';
import { faceOf, genericError, shapeFrameworkError, shapeRestError, type ShapedError } from './platform/http/errors';
import { buildOpenApiDocument, registerDocs } from './platform/http/openapi';
import { REQUEST_ID_HEADER, requestIdFor } from './platform/http/request-id';
import { pathOf, registerRest, type RestRoute } from './platform/http/rest';
import { registerTrpc } from './platform/http/trpc';
import { Lifecycle } from './platform/lifecycle';
import { createLogger, type Logger } from './platform/log';
import { createMetrics, type Metrics } from './platform/metrics';
import type { AppServices, RequestContext } from './trpc/context';
import { appRouter } from './trpc/router';

export interface AppDeps {
  config: Config;
  chain: ChainReader;
  db?: Kysely<Database>;
  /** Default: a pino logger at config.logLevel on stdout. */
  logger?: Logger;
  /** Default: a fresh registry (pass the one the chain reader's onRpcCall hook feeds). */
  metrics?: Metrics;
  /** Default: a fresh one. Features register stop callbacks here; main.ts runs them at shutdown. */
  lifecycle?: Lifecycle;
  /** Default: the service's router. Tests pass one with extra procedures (see trpc/init.ts mergeRouters). */
  router?: AnyTRPCRouter;
}

function sendShaped(reply: FastifyReply, shaped: ShapedError): FastifyReply {
  if (shaped.headers) reply.headers(shaped.headers);
  return reply.code(shaped.status).type('application/json; charset=utf-8').send(JSON.stringify(shaped.body));
}

function safePath(rawUrl: string): string {
  try {
    return pathOf(rawUrl);
  } catch {
    return '/';
  }
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const { config } = deps;
  const logger = deps.logger ?? createLogger(config);
  const metrics = deps.metrics ?? createMetrics();
  const router = deps.router ?? appRouter;
  const services: AppServices = { config, chain: deps.chain, db: deps.db, metrics, lifecycle: deps.lifecycle ?? new Lifecycle() };

  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT_BYTES,
    // URLs Fastify cannot even route (e.g. a malformed %-sequence): same shapes as everything else.
    frameworkErrors: (error, request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      sendShaped(reply, shapeFrameworkError(faceOf(safePath(request.url)), error));
    },
  });

  registerBodyParsers(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeLabel ?? request.routeOptions.url ?? 'unmatched';
    metrics.observeHttp(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });

  // Anything thrown outside a procedure (body parser, hooks): shaped by face, never Fastify's default body.
  app.setErrorHandler((error, request, reply) => {
    const face = faceOf(safePath(request.url));
    const shaped = face === 'trpc' ? shapeFrameworkError(face, error) : shapeRestError(face, error);
    if (shaped.unexpected) request.log.error({ err: error }, 'unexpected error');
    return sendShaped(reply, shaped);
  });
  app.setNotFoundHandler((request, reply) => {
    request.routeLabel = 'unmatched';
    return sendShaped(reply, genericError(faceOf(safePath(request.url)), 404));
  });

  const contextFor = (request: FastifyRequest, face: RequestContext['face'], route?: RestRoute): RequestContext => ({
    ...services,
    requestId: request.id,
    face,
    method: request.method,
    rawBody: request.rawBody,
    headers: request.headers,
    clientIp: request.ip,
    log: request.log as Logger,
    pathParams: route?.pathParams,
  });

  registerTrpc(app, { router, createContext: (request) => contextFor(request, 'trpc') });
  registerRest(app, { router, createContext: (request, route) => contextFor(request, 'rest', route) });
  registerDocs(app, buildOpenApiDocument(router, { version: SERVICE_VERSION, baseUrl: config.publicUrl }));

  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.contentType).send(await metrics.render());
  });

  return app;
}
