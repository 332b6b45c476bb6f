// A node:http handler mounted on the Fastify host (a library that owns its own routing and body parsing, e.g. a
// Koa application): its routes skip Fastify's body parsers, so the request stream reaches the handler unread, and
// the reply is hijacked (the handler writes the response itself). The handler must answer every request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

export type RawHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'];

export function registerRawMount(
  app: FastifyInstance,
  urls: readonly string[],
  handler: RawHandler,
  onError: (error: unknown, res: ServerResponse) => void,
): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    for (const url of urls) {
      scope.route({
        method: METHODS,
        url,
        handler: (request, reply) => {
          request.routeLabel = url;
          reply.hijack();
          handler(request.raw, reply.raw).catch((error) => onError(error, reply.raw));
        },
      });
    }
  });
}
