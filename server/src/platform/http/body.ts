// Request bodies. Every body is read as bytes and kept on `request.rawBody` (x402 hashes the exact bytes a client
// sent); JSON is then parsed from those bytes with Fastify's own hardened parser (rejects __proto__ and
// constructor.prototype keys). Limit: BODY_LIMIT_BYTES for every route; larger bodies answer 413 before any
// handler runs. Nothing the service accepts comes close (the biggest are webhook registrations, a few KiB).
import type { FastifyInstance } from 'fastify';

/** 64 KiB: the maximum request body on any route. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** 16 KiB: the most header bytes of one request (node's default, stated so the 431 message can name it). */
export const HEADER_LIMIT_BYTES = 16 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request body bytes; undefined when the request had none. */
    rawBody?: Buffer;
  }
}

export function registerBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    request.rawBody = bytes;
    if (bytes.length === 0) return done(null, undefined); // an empty body is "no input", not a syntax error
    parseJson(request, bytes.toString('utf8'), done);
  });
  // Other media types: keep the bytes, parse nothing; routes that need JSON answer 415 (trpc-to-openapi checks).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer;
    done(null, undefined);
  });
}
