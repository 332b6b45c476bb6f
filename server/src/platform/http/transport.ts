// Limits and refusals below the routes (docs/http.md "Transport limits"): how long a client may take to send a
// request, no body read for a request already answered, malformed HTTP answered in the face's shape, and a close after an early
// answer that lets the client read it.
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyHttpOptions, FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config';
import { HEADER_LIMIT_BYTES } from './body';
import { faceOf, genericError, type ShapedError } from './errors';
import { newRequestId, REQUEST_ID_HEADER } from './request-id';
import { pathOf } from './rest';

/** After an answer sent before the body was read: how long the rest of the body is read and dropped, at most. */
const LINGER_MS = 2000;
/** ...and how many bytes of it, at most. Then the connection is cut. */
const LINGER_MAX_BYTES = 32 * 1024 * 1024;

const MALFORMED = 'malformed HTTP request';

/** The server options these limits need: node's receive timeouts, header size, and our parse-error answer. */
export function transportOptions(
  config: Pick<Config, 'requestTimeoutMs'>,
): Pick<FastifyHttpOptions<Server>, 'requestTimeout' | 'http' | 'clientErrorHandler'> {
  return {
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.requestTimeoutMs,
      // How often node looks for requests past their timeout (its default, 30 s, would let them run far over).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.requestTimeoutMs / 2)),
      maxHeaderSize: HEADER_LIMIT_BYTES,
      // A missing Host is refused in onRequest below, in the face's shape (node's own refusal has an empty body).
      requireHostHeader: false,
    },
    clientErrorHandler: clientError,
  };
}

/** A whole HTTP response for a refusal written straight to a socket (no request object to answer through). */
function rawResponse(shaped: ShapedError, requestId: string): string {
  const body = JSON.stringify(shaped.body);
  return (
    `HTTP/1.1 ${shaped.status} ${STATUS_CODES[shaped.status]}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** A request line's start: any token as the method (node refuses a lowercase one, we still want its path). */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,16} (\/[^\s]*)/;
/** Enough of a target to tell its face; a longer one is cut, not missed (node refuses long ones with a 431). */
const TARGET_PREFIX_BYTES = 1024;

/** The target of a request line starting at `at` in `bytes`, when one starts there. */
function targetAt(bytes: Buffer, at: number): string | undefined {
  const space = bytes.subarray(at, at + 18).indexOf(0x20);
  if (space < 1 || bytes[at + space + 1] !== 0x2f) return undefined;
  return REQUEST_LINE.exec(bytes.subarray(at, at + TARGET_PREFIX_BYTES).toString('latin1'))?.[1];
}

/** The target of the last request line that starts in a chunk: after its last blank line, or at its start. */
function lastTargetIn(chunk: Buffer): string | undefined {
  const end = chunk.lastIndexOf('\r\n\r\n');
  return (end >= 0 ? targetAt(chunk, end + 4) : undefined) ?? targetAt(chunk, 0);
}

/**
 * The target of the last request line each connection sent. Node gives no request for a head it refused or never
 * finished, and the bytes it reports with a refusal are only the last piece it read, so the face of such a refusal
 * comes from here.
 */
const lastTargets = new WeakMap<Duplex, string>();

/** What node's server puts on a connection's socket: its HTTP parser, while the connection lasts. */
interface ParsedSocket extends Socket {
  parser?: Record<string, unknown> & {
    getCurrentBuffer?: () => Buffer;
    /** The request whose head it parsed last (it stays there once complete, until the next head). */
    incoming?: IncomingMessage | null;
  };
}

/**
 * The parser slot of the callback node runs after each chunk it parsed natively (HTTPParser's kOnExecute), found by
 * the function node binds there; undefined when the parser does not read the socket natively.
 */
function afterChunkSlot(parser: NonNullable<ParsedSocket['parser']>): string | undefined {
  if (parser._consumed !== true || typeof parser.getCurrentBuffer !== 'function') return undefined;
  return Object.keys(parser).find((key) => (parser[key] as { name?: string } | null)?.name === 'bound onParserExecute');
}

/**
 * Remembers each connection's last request target. Node parses a connection's bytes natively, without a JS stream
 * event per chunk, for as long as nothing listens for the socket's `data`; a listener would switch it to reading
 * through JS streams for good (measured: about a third more CPU per request). So the target is read in the callback
 * node runs after each chunk it parsed, where the parser hands out that chunk (a copy). A chunk parsed from the middle
 * of a request's body to the middle of the same body is body bytes only, holding no request line: it is not asked
 * for, so an upload is not copied chunk by chunk (the chunk where its body ends is, as the next head may start in it).
 * A runtime whose parser does not work that way gets the `data` listener instead.
 */
function rememberTargets(socket: ParsedSocket): void {
  const remember = (chunk: Buffer) => {
    const target = lastTargetIn(chunk);
    if (target !== undefined) lastTargets.set(socket, target);
  };
  const parser = socket.parser;
  const slot = parser ? afterChunkSlot(parser) : undefined;
  if (!parser || slot === undefined) return void socket.on('data', remember);
  const afterChunk = parser[slot] as (...args: unknown[]) => unknown;
  // Node binds a fresh callback for every connection a pooled parser serves, so this wrapper ends with the connection.
  let inBody: IncomingMessage | undefined;
  parser[slot] = (...args: unknown[]) => {
    const incoming = parser.incoming ?? undefined;
    if (inBody === undefined || incoming !== inBody || incoming.complete) remember(parser.getCurrentBuffer!());
    inBody = incoming?.complete === false ? incoming : undefined;
    return afterChunk(...args);
  };
}

/**
 * Bytes node's HTTP parser refused, or a request not received within the request timeout. The face comes from the
 * request's path when node has it (the request in progress, or the request line of the refused bytes); the answer
 * is written only when no response has started, then the connection is closed.
 */
function clientError(err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse & { req?: IncomingMessage } })._httpMessage;
  if (socket.writable && !pending?.headersSent) {
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    // The refused piece itself: the parser's callback has remembered it already, the data listener (the fallback)
    // would see it only after the parser refused it.
    const packet = Buffer.isBuffer(err.rawPacket) ? lastTargetIn(err.rawPacket) : undefined;
    const path = pending?.req?.url ?? packet ?? lastTargets.get(socket);
    const face = path === undefined ? 'public' : faceOf(pathOf(path));
    const shaped = genericError(face, status, status === 400 ? { message: MALFORMED } : {});
    const id = pending?.getHeader(REQUEST_ID_HEADER);
    socket.write(rawResponse(shaped, typeof id === 'string' ? id : newRequestId()));
  }
  socket.destroy(err);
}

/**
 * Once the response to a request whose body is still arriving is sent, node closes the socket at once; unread bytes
 * then make the kernel send a reset, and a client still writing its body loses the answer. Instead: read and drop
 * the rest of the body, close once it has arrived, and cut the connection when that takes longer or more bytes than
 * the linger bounds. The body is read here, before the response is written, rather than left to node: node's own
 * drop (after the response) detaches every reader and no longer passes the bytes on, so nothing could count them.
 */
function lingerOnClose(socket: Socket, request: IncomingMessage): void {
  let dropped = 0;
  request.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_MAX_BYTES) socket.destroy();
  });
  const closeNow = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    if (request.complete) return closeNow();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => clearTimeout(timer));
    request.once('end', closeNow);
  };
}

/** The refusals that need the app: Expect, Host, and the close after an answer sent before the body was read. */
export function registerTransport(
  app: FastifyInstance,
  send: (reply: FastifyReply, shaped: ShapedError) => FastifyReply,
): void {
  // Expect other than 100-continue: node answers 417 with an empty body unless the server chooses.
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const shaped = genericError(faceOf(pathOf(req.url ?? '/')), 417);
    const body = JSON.stringify(shaped.body);
    res.writeHead(shaped.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      [REQUEST_ID_HEADER]: newRequestId(),
    });
    res.end(body);
  });

  app.server.on('connection', rememberTargets);

  app.addHook('onRequest', async (request, reply) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
      return send(reply, genericError(faceOf(pathOf(request.url)), 400, { message: 'the Host header is required' }));
  });
  app.addHook('onSend', async (request, reply, payload) => {
    // Answered before the whole body arrived (404 and 405 are decided before reading it, 413 on its declared length):
    // close the connection rather than read a body no one will use. (Injected requests have no socket to close.)
    if (request.raw.complete === false && typeof request.raw.socket?.destroySoon === 'function') {
      reply.header('connection', 'close');
      lingerOnClose(request.raw.socket, request.raw);
    }
    return payload;
  });
}
