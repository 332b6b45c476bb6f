// Every REST error-shaping rule, over real HTTP: bodies are exactly the spec's shapes, with nothing internal.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startTestApp, type RawResponse, type TestApp } from '@sigil/test/support/http-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const req = (method: string, path: string, opts?: Parameters<typeof rawRequest>[3]) =>
  rawRequest(t.base, method, path, opts);
const json = { 'content-type': 'application/json' };

/** Nothing internal in a REST error body: no stack, no tRPC code names, no zod issues, no file paths. */
function expectNoLeak(res: RawResponse) {
  const text = res.text;
  for (const forbidden of [
    'stack',
    'issues',
    'TRPC',
    'INTERNAL_SERVER_ERROR',
    'PARSE_ERROR',
    'UNPROCESSABLE',
    'METHOD_NOT_SUPPORTED',
    'Input validation failed',
    '.ts',
    '/srv',
    'hunter2',
    'ECONNREFUSED',
    'FST_',
    'statusCode',
  ]) {
    expect(text, `leaked ${forbidden}: ${text}`).not.toContain(forbidden);
  }
  expect(res.headers['content-type'], text).toMatch(/^application\/json/);
}

describe('unknown routes', () => {
  it.each(['/nope', '/resolve', '/resolve/a/b', '/trpcx', '/v'])('GET %s → 404 {"error":"not found"}', async (path) => {
    const res = await req('GET', path);
    expect(res.status, res.text).toBe(404);
    expect(res.json()).toEqual({ error: 'not found' });
    expectNoLeak(res);
  });

  it('an unknown /v1 route answers in the /v1 shape', async () => {
    const res = await req('GET', '/v1/nope');
    expect(res.status, res.text).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'no such route' });
  });

  it('POST / is the REST face 404 (only GET / is the index)', async () => {
    const res = await req('POST', '/', { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status, res.text).toBe(404);
    expect(res.json()).toEqual({ error: 'not found' });
  });

  it('a POST to an unknown route is 404 even with a bad or oversized body (routing comes first)', async () => {
    const bad = await req('POST', '/nope', { headers: json, body: '{not json' });
    expect(bad.status, bad.text).toBe(404);
    expect(bad.json()).toEqual({ error: 'not found' });
    const big = await req('POST', '/nope', { headers: json, body: 'x'.repeat(100_000) });
    expect(big.status, big.text).toBe(404);
  });
});

describe('405 on /resolve and /reverse', () => {
  const methods = ['POST', 'PUT', 'DELETE', 'PATCH'];
  const paths = [
    '/resolve/alice',
    '/resolve/@alice.x1',
    '/reverse/So11111111111111111111111111111111111111112',
    '/resolve',
    '/reverse',
    '/RESOLVE/alice',
  ];
  for (const method of methods) {
    for (const path of paths) {
      it(`${method} ${path} → 405 {"error":"method not allowed"} with Allow`, async () => {
        const res = await req(method, path, { headers: json, body: '{}' });
        expect(res.status, res.text).toBe(405);
        expect(res.json()).toEqual({ error: 'method not allowed' });
        expect(res.headers.allow).toBe('GET, HEAD');
        expectNoLeak(res);
      });
    }
  }

  it('the 405 is decided before the body is parsed: malformed and oversized bodies still get 405', async () => {
    const bad = await req('POST', '/resolve/alice', { headers: json, body: '{not json' });
    expect(bad.status, bad.text).toBe(405);
    const big = await req('PUT', '/reverse/x', { headers: json, body: 'x'.repeat(100_000) });
    expect(big.status, big.text).toBe(405);
    expect(big.json()).toEqual({ error: 'method not allowed' });
  });

  it('any other route answers 405 for a method it does not serve (not 404 as trpc-to-openapi would)', async () => {
    const res = await req('DELETE', '/health');
    expect(res.status, res.text).toBe(405);
    expect(res.json()).toEqual({ error: 'method not allowed' });
    expect(res.headers.allow).toBe('GET, HEAD');
    const v1 = await req('GET', '/v1/test/body');
    expect(v1.status, v1.text).toBe(405);
    expect(v1.json()).toEqual({ code: 'METHOD_NOT_ALLOWED', message: 'method not allowed on this route' });
    expect(v1.headers.allow).toBe('POST');
  });
});

describe('request bodies', () => {
  it('malformed JSON on a REST route → 400 in the route face shape', async () => {
    const res = await req('POST', '/v1/test/body', { headers: json, body: '{"name":' });
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: 'request body is not valid JSON' });
    expectNoLeak(res);
  });

  it('malformed JSON on /trpc → 400 in the tRPC envelope', async () => {
    const res = await req('POST', '/trpc/probe.body', { headers: json, body: '{"name":' });
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toEqual({
      error: {
        message: 'request body is not valid JSON',
        code: -32600,
        data: { code: 'BAD_REQUEST', httpStatus: 400, errorCode: 'BAD_REQUEST' },
      },
    });
  });

  it('a prototype-poisoning body is refused with 400', async () => {
    const res = await req('POST', '/v1/test/body', { headers: json, body: '{"name":"a","__proto__":{"admin":true}}' });
    expect(res.status, res.text).toBe(400);
    expect(res.json().code).toBe('BAD_REQUEST');
  });

  it('a body over 64 KiB → 413 before any handler runs', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(64 * 1024) });
    const res = await req('POST', '/v1/test/body', { headers: json, body });
    expect(res.status, res.text).toBe(413);
    expect(res.json()).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'request body larger than 65536 bytes' });
    expectNoLeak(res);
  });

  it('a body of exactly 64 KiB is accepted', async () => {
    const name = 'x'.repeat(64 * 1024 - '{"name":""}'.length);
    const res = await req('POST', '/v1/test/body', { headers: json, body: JSON.stringify({ name }) });
    expect(res.status, res.text.slice(0, 200)).toBe(200);
  });

  it('a non-JSON media type on a JSON route → 415', async () => {
    const res = await req('POST', '/v1/test/body', { headers: { 'content-type': 'text/plain' }, body: 'name=a' });
    expect(res.status, res.text).toBe(415);
    expect(res.json()).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'send the body as application/json' });
  });

  it('a body that fails the input schema → 400 with one readable message, no issues array', async () => {
    const res = await req('POST', '/v1/test/body', { headers: json, body: '{"name":""}' });
    expect(res.status, res.text).toBe(400);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['code', 'message']);
    expect(body.code).toBe('BAD_REQUEST');
    expect(body.message).toMatch(/^invalid input: name: /);
    expectNoLeak(res);
  });
});

describe('input validation', () => {
  it('public route: zod failure → 400 {"error":"bad request"}', async () => {
    const res = await req('GET', '/test/count?n=zero');
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toEqual({ error: 'bad request' });
    expectNoLeak(res);
  });

  it('/v1 route: zod failure → 400 {code:"BAD_REQUEST", message}', async () => {
    const res = await req('GET', '/v1/test/count?n=0');
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toEqual({
      code: 'BAD_REQUEST',
      message: 'invalid input: n: Too small: expected number to be >=1',
    });
    expectNoLeak(res);
  });
});

describe('input validation on /trpc', () => {
  it('zod failure → 400 with the REST face’s readable line and errorCode BAD_REQUEST, no issues array', async () => {
    const res = await req('POST', '/trpc/probe.body', { headers: json, body: '{"name":""}' });
    expect(res.status, res.text).toBe(400);
    const body = res.json();
    expect(body.error.message).toBe('invalid input: name: Too small: expected string to have >=1 characters');
    expect(body.error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, errorCode: 'BAD_REQUEST' });
    expect(res.text).not.toContain('issues');
  });
});

describe('percent-encoding of path parameters', () => {
  it.each([
    ['/test/echo/%ZZ', '%ZZ'],
    ['/test/echo/%E0%A4%A', '%E0%A4%A'],
    ['/test/echo/%', '%'],
  ])('malformed %s → 400 bad request echoing the raw input', async (path, raw) => {
    const res = await req('GET', path);
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toEqual({ error: 'bad request', input: raw });
    expectNoLeak(res);
  });

  it('a malformed %-sequence outside any route is still a 404, not a 400', async () => {
    const res = await req('GET', '/nowhere/%ZZ');
    expect(res.status, res.text).toBe(404);
    expect(res.json()).toEqual({ error: 'not found' });
  });

  it('a long path is routed, not refused for its length', async () => {
    const res = await req('GET', `/test/echo/${'a'.repeat(500)}`);
    expect(res.status, res.text.slice(0, 100)).toBe(200);
    expect(res.json()).toEqual({ value: 'a'.repeat(500) });
  });

  it('malformed percent-encoding on a /v1 route → 400 BAD_REQUEST', async () => {
    const res = await req('GET', '/v1/test/echo/%C0%AF');
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toEqual({
      code: 'BAD_REQUEST',
      message: 'path parameter "value" has malformed percent-encoding',
    });
  });
});

describe('dot segments in a path', () => {
  // A proxy in front that allows or denies by path prefix sees the raw path; were the service to resolve dot
  // segments, `/resolve/%2e%2e/v1/keys` would pass a rule for `/resolve/` and reach `/v1/keys`.
  const v1 = { code: 'BAD_REQUEST', message: 'the path has a dot segment or a backslash' };
  it.each([
    ['/resolve/%2e%2e/v1/keys', { error: 'bad request' }],
    ['/resolve/%2E%2e/health', { error: 'bad request' }],
    ['/resolve/.%2e/health', { error: 'bad request' }],
    ['/resolve/%2e/@alice', { error: 'bad request' }],
    ['/resolve/../health', { error: 'bad request' }],
    ['/test/echo/./x', { error: 'bad request' }],
    ['/test/echo\\..\\x', { error: 'bad request' }],
    ['/v1/resolve/%2e%2e/%2e%2e/health', v1],
    ['/v1/test/echo/%2e%2e/x', v1],
    ['/v1/test/echo/x/..', v1],
    ['/v1/test/echo/x/%2e%2E?n=1', v1],
    ['/v1\\health', v1],
  ])('%s → 400, whatever it would resolve to', async (path, body) => {
    const res = await req('GET', path);
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toEqual(body);
  });

  it.each([
    ['/test/echo/%2e%2e%2fx', '../x'],
    ['/test/echo/...', '...'],
    ['/test/echo/a.', 'a.'],
    ['/test/echo/%252e%252e', '%2e%2e'],
  ])('%s is no dot segment: routed, the value decoded once', async (path, value) => {
    const res = await req('GET', path);
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({ value });
  });
});

describe('domain errors thrown by procedures', () => {
  it('PublicError → its status and {error, input}', async () => {
    const res = await req('GET', '/test/throw/public');
    expect(res.status, res.text).toBe(404);
    expect(res.json()).toEqual({ error: 'handle not registered', input: 'alice' });
    expectNoLeak(res);
  });

  it('ApiError on /v1 → its status, {code, message} and its headers', async () => {
    const res = await req('GET', '/v1/test/throw/api');
    expect(res.status, res.text).toBe(429);
    expect(res.json()).toEqual({ code: 'RATE_LIMITED', message: 'slow down' });
    expect(res.headers['retry-after']).toBe('7');
  });

  it('ChainError unreachable → 502 rpc unreachable (public) / RPC_ERROR (/v1), no transport detail', async () => {
    const pub = await req('GET', '/test/throw/chain-unreachable');
    expect(pub.status, pub.text).toBe(502);
    expect(pub.json()).toEqual({ error: 'rpc unreachable', input: 'chain-unreachable' });
    expectNoLeak(pub);
    const v1 = await req('GET', '/v1/test/throw/chain-unreachable');
    expect(v1.status, v1.text).toBe(502);
    expect(v1.json()).toEqual({ code: 'RPC_ERROR', message: 'the chain RPC did not answer' });
    expectNoLeak(v1);
  });

  it('ChainError malformed → 502 malformed account', async () => {
    const res = await req('GET', '/test/throw/chain-malformed');
    expect(res.status, res.text).toBe(502);
    expect(res.json()).toEqual({ error: 'malformed account', input: 'chain-malformed' });
  });

  it('a bare TRPCError → its status with a generic body, no tRPC code name', async () => {
    const res = await req('GET', '/v1/test/throw/trpc');
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: 'bad request' });
    expectNoLeak(res);
  });

  it('an unexpected exception → 500 generic body, and one error log line with the request id', async () => {
    const res = await req('GET', '/v1/test/throw/boom', { headers: { 'x-request-id': 'boom-1' } });
    expect(res.status, res.text).toBe(500);
    expect(res.json()).toEqual({ code: 'INTERNAL_ERROR', message: 'internal error' });
    expectNoLeak(res);
    const pub = await req('GET', '/test/throw/boom');
    expect(pub.status, pub.text).toBe(500);
    expect(pub.json()).toEqual({ error: 'internal error', input: 'boom' });
    expectNoLeak(pub);
    const line = t.logs.find((l) => l.requestId === 'boom-1' && l.level === 'error');
    expect(line, JSON.stringify(t.logs.filter((l) => l.requestId === 'boom-1'))).toBeDefined();
    expect(JSON.stringify(line)).toContain('boom at /srv/app/secret.ts'); // the log keeps what the client must not see
  });
});

describe('tRPC face errors', () => {
  it('carries our code and status in error.data, no stack, no internal message', async () => {
    const res = await req('GET', `/trpc/probe.throwsV1?input=${encodeURIComponent(JSON.stringify({ value: 'api' }))}`);
    expect(res.status, res.text).toBe(429);
    const body = res.json();
    expect(body.error.message).toBe('slow down');
    expect(body.error.data).toMatchObject({ errorCode: 'RATE_LIMITED', httpStatus: 429 });
    expect(res.headers['retry-after']).toBe('7');
    expect(res.text).not.toContain('stack');

    const pub = await req('GET', `/trpc/probe.throws?input=${encodeURIComponent(JSON.stringify({ value: 'public' }))}`);
    expect(pub.status, pub.text).toBe(404);
    expect(pub.json().error.data).toMatchObject({
      errorCode: 'HANDLE_NOT_REGISTERED',
      httpStatus: 404,
      input: 'alice',
    });

    const boom = await req('GET', `/trpc/probe.throws?input=${encodeURIComponent(JSON.stringify({ value: 'boom' }))}`);
    expect(boom.status, boom.text).toBe(500);
    expect(boom.json().error.message).toBe('internal error');
    expect(boom.text).not.toContain('hunter2');
    expect(boom.text).not.toContain('stack');
  });
});

describe('bytes that are not HTTP', () => {
  it('answer 400 {"error":"bad request"} and close, without Fastify’s default body', async () => {
    const { port } = new URL(t.base);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.endsWith('\r\n\r\n{"error":"bad request"}')).toBe(true);
  });
});
