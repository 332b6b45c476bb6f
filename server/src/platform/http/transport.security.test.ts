// Transport-level limits over a real socket: whole-request receive deadline, the body limit before routing, shaped
// refusals of malformed HTTP, a 413 that reaches a client that writes before it reads, and one deadline budget
// across all chain reads of a request.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@sigil/test/support/http-app';
import { createChainReader } from '../chain/reader';

interface Exchange {
  /** Everything the server sent before it closed the connection. */
  text: string;
  status: number;
  statusLine: string;
  headers: Record<string, string>;
  body: string;
  /** The socket saw an error (e.g. ECONNRESET) rather than a clean end. */
  error?: string;
}

function parse(text: string, error?: string): Exchange {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return {
    text,
    status: Number(statusLine.split(' ')[1] ?? 0),
    statusLine,
    headers,
    body: rest.join('\r\n\r\n'),
    error,
  };
}

/**
 * Opens a socket, writes `first`, then `drip` one piece at a time every `everyMs` (never finishing the request),
 * and resolves with what the server sent once it closed the connection.
 */
function exchange(base: string, first: string | Buffer, drip: { piece: string; everyMs: number } | null = null) {
  const { hostname, port } = new URL(base);
  return new Promise<Exchange>((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => {
      clearInterval(timer);
      resolve(parse(Buffer.concat(chunks).toString('latin1'), error));
    });
    socket.write(first);
    if (drip) {
      timer = setInterval(() => {
        if (socket.writable) socket.write(drip.piece);
      }, drip.everyMs);
    }
  });
}

/** A POST of a 10 MB JSON body, head and body written at once, before any answer is read. */
function tenMegabyteUpload(): Buffer {
  const body = Buffer.alloc(10 * 1024 * 1024, 0x61);
  const head = `POST /v1/auth/challenge HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}
describe('whole-request receive deadline', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { SIGIL_REQUEST_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => t.close());

  it('a body sent one byte at a time → 408 in the /v1 shape, then close', async () => {
    const res = await exchange(
      t.base,
      'POST /v1/auth/challenge HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{',
      { piece: ' ', everyMs: 100 },
    );
    expect(res.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(res.body)).toEqual({ code: 'REQUEST_TIMEOUT', message: 'the request was not received in time' });
    expect(res.headers['x-request-id']).toMatch(/^req_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(res.headers.connection).toBe('close');
  });

  it('headers that never finish on a /v1 path → 408 in the /v1 shape, then close', async () => {
    const res = await exchange(t.base, 'GET /v1/health HTTP/1.1\r\nHost: a\r\nX-Slow: ', { piece: 'a', everyMs: 100 });
    expect(res.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(res.body)).toEqual({ code: 'REQUEST_TIMEOUT', message: 'the request was not received in time' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('headers that never finish on a /v1 path, after a public request on the same connection → the /v1 shape', async () => {
    const res = await exchange(t.base, 'GET /health HTTP/1.1\r\nHost: a\r\n\r\nGET /v1/health HTTP/1.1\r\nX-Slow: ', {
      piece: 'a',
      everyMs: 100,
    });
    const answers = res.text.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 /);
    const last = parse(answers[1]!);
    expect(last.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(last.body)).toEqual({ code: 'REQUEST_TIMEOUT', message: 'the request was not received in time' });
  });

  it('headers sent one byte at a time → 408 in the public shape, then close', async () => {
    const res = await exchange(t.base, 'GET /health HTTP/1.1\r\nHost: a\r\nX-Slow: ', { piece: 'a', everyMs: 100 });
    expect(res.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(res.body)).toEqual({ error: 'request timeout' });
  });
});

describe('a body no route will read is not read', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each([
    ['an unknown route', '/nope', 404, { error: 'not found' }],
    ['a known path with another method', '/resolve/@alice', 405, { error: 'method not allowed' }],
    ['an unknown /v1 route', '/v1/nope', 404, { code: 'NOT_FOUND', message: 'no such route' }],
    [
      'a known route',
      '/v1/auth/challenge',
      413,
      { code: 'PAYLOAD_TOO_LARGE', message: 'request body larger than 65536 bytes' },
    ],
  ])('a declared 200 MB body to %s → %i and close, the body never awaited', async (_what, path, status, body) => {
    const res = await exchange(t.base, `POST ${path} HTTP/1.1\r\nHost: a\r\nContent-Length: 200000000\r\n\r\nxxxx`);
    expect(res.status, res.text).toBe(status);
    expect(JSON.parse(res.body)).toEqual(body);
    expect(res.headers.connection).toBe('close');
  });

  it('a chunked body that never ends, to an unknown route → 404 and close, the body not awaited', async () => {
    const res = await exchange(
      t.base,
      'POST /nope HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nxxxx\r\n',
    );
    expect(res.status, res.text).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ error: 'not found' });
    expect(res.headers.connection).toBe('close');
  });

  it('a 10 MB upload written before reading gets the whole 413, not a reset', async () => {
    const res = await exchange(t.base, tenMegabyteUpload());
    expect(res.error).toBeUndefined();
    expect(res.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    expect(JSON.parse(res.body)).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'request body larger than 65536 bytes',
    });
  });
});

/**
 * Opens a socket, writes `head`, then writes zeros as fast as the connection takes them until the server closes it.
 * Resolves with how many bytes the server read from that connection (its own count, not the client's).
 */
function flood(t: TestApp, sockets: net.Socket[], head: string, totalBytes: number): Promise<number> {
  const { hostname, port } = new URL(t.base);
  const seen = sockets.length;
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunk = Buffer.alloc(1024 * 1024);
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => {
      const server = sockets[seen];
      if (server?.destroyed) return resolve(server.bytesRead);
      server?.once('close', () => resolve(server.bytesRead));
    });
    socket.write(head, pump);
  });
}

describe('the drop of a body no route will read is bounded', () => {
  let t: TestApp;
  const sockets: net.Socket[] = [];
  beforeAll(async () => {
    t = await startTestApp({ beforeListen: (app) => void app.server.on('connection', (s) => sockets.push(s)) });
  });
  afterAll(() => t.close());

  it.each([
    ['an unknown /v1 route', '/v1/nope'],
    ['a known route over the body limit', '/v1/auth/challenge'],
  ])('a 200 MB body written at full speed to %s is read for at most 32 MiB', async (_what, path) => {
    const total = 200 * 1024 * 1024;
    const head = `POST ${path} HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`;
    const read = await flood(t, sockets, head, total);
    // The bound, plus what the socket had already taken in when the bound was crossed (node reads up to 64 KiB at a
    // time, several times per poll): far below the 200 MB that would show the drop unbounded.
    expect(read).toBeLessThanOrEqual(33 * 1024 * 1024);
  });
});

describe('malformed HTTP on /v1 paths answers {code, message} with a request id', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const bad = { code: 'BAD_REQUEST', message: 'malformed HTTP request' };
  it.each([
    ['a control byte in a header', 'GET /v1/health HTTP/1.1\r\nHost: a\r\nX-A: a\x01b\r\n\r\n'],
    ['an obs-fold header', 'GET /v1/health HTTP/1.1\r\nHost: a\r\nX-A: a\r\n b\r\n\r\n'],
    [
      'two Content-Length',
      'POST /v1/auth/challenge HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'a bad chunk',
      'POST /v1/auth/challenge HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
  ])('%s → 400 BAD_REQUEST', async (_what, request) => {
    const res = await exchange(t.base, request);
    expect(res.statusLine, res.text).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(res.body)).toEqual(bad);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('a lowercase method → 400 BAD_REQUEST', async () => {
    const res = await exchange(t.base, 'get /v1/usage HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(res.statusLine, res.text).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(res.body)).toEqual(bad);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('a request line over 16 KB → 431 HEADERS_TOO_LARGE', async () => {
    const res = await exchange(t.base, `GET /v1/resolve/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(res.body)).toEqual({
      code: 'HEADERS_TOO_LARGE',
      message: 'request headers larger than 16384 bytes',
    });
  });

  it('a request line over 16 KB arriving in pieces → 431 HEADERS_TOO_LARGE', async () => {
    const res = await exchange(t.base, 'GET /v1/resolve/', { piece: 'a'.repeat(4096), everyMs: 20 });
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(res.body)).toMatchObject({ code: 'HEADERS_TOO_LARGE' });
  });

  it('no Host header → 400 BAD_REQUEST naming it', async () => {
    const res = await exchange(t.base, 'GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(res.statusLine, res.text).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(res.body)).toEqual({ code: 'BAD_REQUEST', message: 'the Host header is required' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('over 16 KB of headers → 431 HEADERS_TOO_LARGE with its own status text', async () => {
    const res = await exchange(t.base, `GET /v1/health HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(res.body)).toEqual({
      code: 'HEADERS_TOO_LARGE',
      message: 'request headers larger than 16384 bytes',
    });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('over 16 KB of headers on a public path → 431 {"error":"request header fields too large"}', async () => {
    const res = await exchange(t.base, `GET /health HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(res.body)).toEqual({ error: 'request header fields too large' });
  });

  it('an Expect other than 100-continue → 417 EXPECTATION_FAILED', async () => {
    const res = await exchange(
      t.base,
      'GET /v1/health HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n',
    );
    expect(res.statusLine).toBe('HTTP/1.1 417 Expectation Failed');
    expect(JSON.parse(res.body)).toEqual({
      code: 'EXPECTATION_FAILED',
      message: 'only Expect: 100-continue is supported',
    });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('a public path keeps the public shape', async () => {
    const res = await exchange(t.base, 'GET /health HTTP/1.1\r\nHost: a\r\nX-A: a\x01b\r\n\r\n');
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(res.body)).toEqual({ error: 'bad request' });
  });
});

/** JSON-RPC answers for the three reads of GET /version, matched by id (single calls and batches). */
function answer(payload: unknown): unknown {
  if (Array.isArray(payload)) return payload.map(answer);
  const { id, method } = payload as { id: string; method: string };
  const results: Record<string, unknown> = {
    getSlot: 7,
    getGenesisHash: 'GenesisHash1111111111111111111111111111111111',
    getVersion: { 'solana-core': '2.1.0', 'feature-set': 7 },
  };
  return { jsonrpc: '2.0', id, result: results[method] };
}

describe('one deadline budget per request across its chain reads', () => {
  // Every RPC call answers after 400 ms: inside the 5 s per-call timeout.
  const slow = async ({ payload }: { payload: unknown }) => {
    await new Promise((r) => setTimeout(r, 400));
    return answer(payload) as never;
  };
  const start = (budgetMs: string) =>
    startTestApp({
      env: { SIGIL_REQUEST_DEADLINE_MS: budgetMs },
      deps: {
        chain: createChainReader({
          rpcUrl: 'http://127.0.0.1:8899',
          programId: '8mX76L5CgmVY1Eks7ucFupmhRy1YraFpmUpeiEcj6dJF',
          timeoutMs: 5000,
          transport: slow,
        }),
      },
    });
  let roomy: TestApp;
  let tight: TestApp;
  beforeAll(async () => {
    [roomy, tight] = await Promise.all([start('6000'), start('200')]);
  });
  afterAll(() => Promise.all([roomy.close(), tight.close()]));

  const version = 'GET /version HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n';
  it('GET /version answers when its reads fit the budget', async () => {
    const res = await exchange(roomy.base, version);
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.body).chain.slot).toBe(7);
  });

  it('GET /version whose reads outlast the budget → 502 rpc unreachable', async () => {
    const res = await exchange(tight.base, version);
    expect(res.status, res.text).toBe(502);
    expect(JSON.parse(res.body)).toEqual({ error: 'rpc unreachable' });
  });
});

describe('connections are parsed natively', () => {
  // A `data` listener on a socket makes node read that connection through JS streams for good, about a third more
  // CPU per request; remembering each connection's last request target must not add one. Node's own server keeps
  // one listener of its own (idle while it parses natively): a bare node:http server tells how many that is.
  async function dataListenersOf(server: http.Server, listen: () => Promise<string>): Promise<number[]> {
    const counts: number[] = [];
    server.on('request', (req: http.IncomingMessage) => void counts.push(req.socket.listenerCount('data')));
    const base = await listen();
    const res = await exchange(
      base,
      'GET /health HTTP/1.1\r\nHost: a\r\n\r\nGET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    expect(res.text.split(/(?=HTTP\/1\.1 )/)).toHaveLength(2);
    return counts;
  }

  it("a keep-alive connection's sockets carry no data listener beyond node's own", async () => {
    const bare = http.createServer((_req, res) => res.end('{}'));
    const nodeOwn = await dataListenersOf(bare, async () => {
      await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(bare.address() as net.AddressInfo).port}`;
    });
    bare.close();
    let server: http.Server | undefined;
    const t = await startTestApp({ beforeListen: (app) => void (server = app.server) });
    try {
      const ours = await dataListenersOf(server!, async () => t.base);
      expect(ours).toHaveLength(2);
      expect(ours).toStrictEqual(nodeOwn);
    } finally {
      await t.close();
    }
  });
});

describe('an upload is not copied to find request targets', () => {
  it("a 10 MB body: only the chunks that may hold a request line are copied out of node's parser", async () => {
    // The parser's getCurrentBuffer is the copy (node hands out a fresh buffer of the chunk it parsed): counted on the
    // parser of each connection, and put back as it was when the connection closes (node pools its parsers).
    let copied = 0;
    const t = await startTestApp({
      beforeListen: (app) =>
        void app.server.on('connection', (socket: net.Socket & { parser?: { getCurrentBuffer(): Buffer } }) => {
          const parser = socket.parser!;
          const own = Object.getOwnPropertyDescriptor(parser, 'getCurrentBuffer');
          const copy = parser.getCurrentBuffer;
          parser.getCurrentBuffer = () => {
            const chunk = copy.call(parser);
            copied += chunk.length;
            return chunk;
          };
          socket.once('close', () =>
            own
              ? Object.defineProperty(parser, 'getCurrentBuffer', own)
              : delete (parser as object as Record<string, unknown>).getCurrentBuffer,
          );
        }),
    });
    try {
      const res = await exchange(t.base, tenMegabyteUpload());
      expect(res.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
      // The first chunk (the head, and the body's start) and the last (the body's end, where a next head may start),
      // at most 64 KiB each as node reads them: far below the 10 MB every body chunk copied would make.
      expect(copied).toBeGreaterThan(0);
      expect(copied).toBeLessThanOrEqual(1024 * 1024);
    } finally {
      await t.close();
    }
  });
});
