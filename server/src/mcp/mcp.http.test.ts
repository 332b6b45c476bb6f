// The MCP server over real HTTP with the official SDK client, next to the real service on the local chain's demo
// scenario: tools/list, each read tool's answers and errors, the relay's byte-for-byte promise, and the transport
// rules (405, 403, 413, -32602, concurrency).
import http from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { startMcpWorld, type McpWorld } from '@sigil/test/support/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/log';
import { startMcpHttpServer } from './server';
import type { ToolDefinition } from './tool';
import { mcpTools } from './tools/index';

/** The served tools, on the demo scenario's network. */
const TOOLS = mcpTools({ network: 'testnet' });

let world: McpWorld;
let client: Client;

beforeAll(async () => {
  world = await startMcpWorld();
  client = await world.connect();
}, 60_000);
afterAll(async () => {
  await world?.close();
});

/** A tools/call through the SDK client, which validates structuredContent against the listed outputSchema. */
async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return result as { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
}

/** A raw HTTP request (Host and Origin set by hand, which fetch does not allow). */
function raw(
  method: string,
  body: string | Buffer | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(world.mcp.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const listRequest = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

describe('tools/list', () => {
  it('lists every tool with a title, the four annotations and input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(Object.keys(tool.annotations ?? {})).toEqual(
        expect.arrayContaining(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']),
      );
      expect(tool.annotations!.destructiveHint).toBe(false);
    }
    const names = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const read of ['resolve_name', 'reverse_lookup', 'check_availability', 'get_records']) {
      expect(names[read]!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: true });
    }
  });
});

describe('resolve_name and reverse_lookup relay the HTTP API byte for byte', () => {
  const direct = async (path: string) => {
    const res = await fetch(world.app.base + path);
    return { status: res.status, text: await res.text() };
  };

  it.each([
    ['alice', 200],
    ['@ALICE', 200],
    ['satoshi.x1', 200],
    ['bad!name', 400],
    ['bad_label.x1', 400],
    ['nobody', 404],
    ['nobody.x1', 404],
    ['@satoshi.x1', 409],
  ])('resolve_name %s → %i, exactly the body of GET /resolve', async (name, status) => {
    const want = await direct(`/resolve/${encodeURIComponent(name)}`);
    expect(want.status).toBe(status);
    const got = await call('resolve_name', { name });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent.status).toBe(want.status);
    expect(got.structuredContent.body).toBe(want.text);
    expect(got.structuredContent.json).toEqual(JSON.parse(want.text));
  });

  it('reverse_lookup: primary, no primary, a pointer that fails a trust rule, an invalid address', async () => {
    const { reverse } = world.app.chain.scenario!;
    for (const [address, status] of [
      [reverse.plainWithPrimary!, 200],
      [reverse.noPrimary!, 404],
      [reverse.primaryLostAuthority!, 404],
      ['not-base58!', 400],
    ] as const) {
      const want = await direct(`/reverse/${encodeURIComponent(address)}`);
      expect(want.status, address).toBe(status);
      const got = await call('reverse_lookup', { address });
      expect(got.isError).toBeFalsy();
      expect(got.structuredContent).toMatchObject({ status: want.status, body: want.text });
    }
  });

  it('502 when the chain is down: the relay still carries the exact status and body', async () => {
    world.app.chain.faults.set({ unreachable: true });
    try {
      const wantResolve = await direct('/resolve/alice');
      const wantReverse = await direct(`/reverse/${world.app.chain.scenario!.reverse.plainWithPrimary}`);
      expect(wantResolve.status).toBe(502);
      expect(wantReverse.status).toBe(502);
      const got = await call('resolve_name', { name: 'alice' });
      expect(got.structuredContent).toMatchObject({ status: 502, body: wantResolve.text });
      const gotReverse = await call('reverse_lookup', { address: world.app.chain.scenario!.reverse.plainWithPrimary });
      expect(gotReverse.structuredContent).toMatchObject({ status: 502, body: wantReverse.text });
    } finally {
      world.app.chain.faults.clear();
    }
  });

  it('502 malformed account: relayed as the service answers it', async () => {
    world.app.chain.faults.set({ malformedAccounts: [world.app.chain.scenario!.handles.alice!.account] });
    try {
      const want = await direct('/resolve/alice');
      expect(want.status).toBe(502);
      const got = await call('resolve_name', { name: 'alice' });
      expect(got.structuredContent).toMatchObject({ status: 502, body: want.text });
    } finally {
      world.app.chain.faults.clear();
    }
  });
});

describe('check_availability', () => {
  it('a registered handle is taken; an unregistered one is available', async () => {
    const taken = await call('check_availability', { name: '@Alice' });
    expect(taken.isError).toBeFalsy();
    expect(taken.structuredContent).toMatchObject({ handle: 'alice', available: false, reason: 'registered' });
    const free = await call('check_availability', { name: 'nobody' });
    expect(free.structuredContent).toMatchObject({ handle: 'nobody', available: true });
    expect(free.structuredContent.reason).toBeUndefined();
    expect(JSON.parse(free.content[0]!.text)).toEqual(free.structuredContent);
  });

  it.each(['bad!name', 'satoshi.x1', '@satoshi.x1', 'a'.repeat(33)])(
    '%s is not a handle: isError INVALID_HANDLE',
    async (name) => {
      const got = await call('check_availability', { name });
      expect(got.isError).toBe(true);
      expect(got.structuredContent.code).toBe('INVALID_HANDLE');
      expect(got.content[0]!.text).toContain('INVALID_HANDLE');
    },
  );

  it('chain down: isError RPC_ERROR', async () => {
    world.app.chain.faults.set({ unreachable: true });
    try {
      const got = await call('check_availability', { name: 'alice' });
      expect(got.isError).toBe(true);
      expect(got.structuredContent).toEqual({ code: 'RPC_ERROR', message: 'the chain RPC is unreachable' });
    } finally {
      world.app.chain.faults.clear();
    }
  });
});

describe('get_records', () => {
  it('verified and unverified live address records', async () => {
    const { cases } = world.app.chain.scenario!;
    const alice = await call('get_records', { name: cases.verifiedAddressRecords! });
    expect(alice.isError).toBeFalsy();
    expect(alice.structuredContent.records.length).toBeGreaterThan(0);
    expect(alice.structuredContent.records.some((r: { verified: boolean }) => r.verified)).toBe(true);
    const bob = await call('get_records', { name: cases.unverifiedAddressRecords! });
    expect(bob.structuredContent.records.length).toBeGreaterThan(0);
    expect(bob.structuredContent.records.some((r: { verified: boolean }) => !r.verified)).toBe(true);
  });

  it('the same records as GET /v1/resolve', async () => {
    const v1 = await world.app.call('GET', '/v1/resolve/alice', { key: world.app.key.secret });
    expect(v1.status).toBe(200);
    const got = await call('get_records', { name: 'alice' });
    expect(got.structuredContent.records).toEqual(v1.body.addresses);
  });

  it('errors: INVALID_HANDLE, HANDLE_NOT_REGISTERED, RPC_ERROR', async () => {
    expect((await call('get_records', { name: 'satoshi.x1' })).structuredContent.code).toBe('INVALID_HANDLE');
    expect((await call('get_records', { name: 'nobody' })).structuredContent.code).toBe('HANDLE_NOT_REGISTERED');
    world.app.chain.faults.set({ unreachable: true });
    try {
      const down = await call('get_records', { name: 'alice' });
      expect(down.isError).toBe(true);
      expect(down.structuredContent.code).toBe('RPC_ERROR');
    } finally {
      world.app.chain.faults.clear();
    }
  });
});

describe('protocol errors and bad arguments', () => {
  it('an unknown tool is JSON-RPC error -32602', async () => {
    const err = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
  });

  it('schema-invalid arguments are an isError BAD_REQUEST result that validates', async () => {
    const wrongType = await call('resolve_name', { name: 42 });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.structuredContent.code).toBe('BAD_REQUEST');
    const missing = await call('get_records', {});
    expect(missing.structuredContent.code).toBe('BAD_REQUEST');
  });

  it('arguments that are not an object are JSON-RPC -32602; the server keeps serving', async () => {
    const res = await raw(
      'POST',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'resolve_name', arguments: 'alice' },
      }),
    );
    expect(JSON.parse(res.text).error.code).toBe(-32602);
    expect((await call('resolve_name', { name: 'alice' })).structuredContent.status).toBe(200);
  });

  it('a body that is not JSON is -32700', async () => {
    const res = await raw('POST', '{not json');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.code).toBe(-32700);
  });
});

describe('transport rules', () => {
  it('GET and DELETE are 405 with a JSON-RPC error body', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await raw(method, undefined);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    }
  });

  it('a foreign Host or Origin is 403 (DNS rebinding); loopback names pass', async () => {
    const badHost = await raw('POST', listRequest, { host: 'evil.example:8696' });
    expect(badHost.status).toBe(403);
    expect(JSON.parse(badHost.text).error.message).toContain('Host');
    const badOrigin = await raw('POST', listRequest, { origin: 'http://evil.example' });
    expect(badOrigin.status).toBe(403);
    expect(JSON.parse(badOrigin.text).error.message).toContain('Origin');
    expect((await raw('POST', listRequest, { origin: 'null' })).status).toBe(403);
    const port = new URL(world.mcp.url).port;
    const good = await raw('POST', listRequest, { host: `localhost:${port}`, origin: `http://localhost:${port}` });
    expect(good.status).toBe(200);
    expect(JSON.parse(good.text).result.tools.length).toBe(TOOLS.length);
  });

  it('a body over 1 MiB is 413, with or without Content-Length', async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
    const declared = await raw('POST', big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text).error.code).toBe(-32000);
    const chunked = await raw('POST', big, { 'transfer-encoding': 'chunked' });
    expect(chunked.status).toBe(413);
  });

  it('50 parallel tools/call all succeed', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 ? call('resolve_name', { name: 'alice' }) : call('check_availability', { name: `free${i}` }),
      ),
    );
    results.forEach((r, i) => {
      expect(r.isError, String(i)).toBeFalsy();
      if (i % 2) expect(r.structuredContent.status).toBe(200);
      else expect(r.structuredContent.available).toBe(true);
    });
  });
});

/** A POST with raw header lines (repeats kept, as fetch would not): status, content type and body. */
function rawPost(url: string, body: string, rawHeaders: string[]) {
  const { port } = new URL(url);
  return new Promise<{ status: number; type: string | undefined; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: rawHeaders }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the hot path answers exactly as a per-request SDK server and transport', () => {
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
  const rpc = (id: number | string, method: string, params?: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

  it('the same bytes, status and content type for every kind of answer', async () => {
    const reference = await startMcpHttpServer({
      tools: TOOLS,
      deps: world.deps,
      logger: createLogger({ logLevel: 'silent' }),
      bindHost: '127.0.0.1',
      port: 0,
      hotPath: false,
    });
    try {
      const bodies = [
        rpc(1, 'ping'),
        rpc('list-1', 'tools/list', {}),
        rpc(2, 'tools/call', { name: 'resolve_name', arguments: { name: 'alice' } }),
        rpc(3, 'tools/call', { name: 'resolve_name', arguments: { name: '@satoshi.x1' } }),
        rpc(4, 'tools/call', { name: 'get_records', arguments: { name: 'nobody-registered-this' } }),
        rpc(5, 'tools/call', { name: 'check_availability', arguments: { name: 42 } }),
        rpc(6, 'tools/call', { name: 'no_such_tool', arguments: {} }),
        rpc(7, 'tools/call', { name: 'resolve_name', arguments: 'alice' }),
        rpc(8, 'tools/call', {}),
        rpc('call-9', 'tools/call', { name: 'check_availability', arguments: { name: 'Not Valid!' } }),
        rpc(10, 'tools/call', { name: 'reverse_lookup', arguments: { address: 'not-an-address' } }),
        rpc(11, 'tools/call', { name: 'resolve_name' }),
        rpc(12, 'tools/call', { name: 'resolve_name', arguments: null }),
        rpc(13, 'tools/call', { name: 7, arguments: {} }),
        rpc(14, 'tools/call', { name: 'resolve_name', arguments: { name: 'alice' }, _meta: { progressToken: 1 } }),
        rpc(15, 'tools/call', { name: 'resolve_name', arguments: { name: 'alice' }, task: { ttl: 1000 } }),
        rpc(16, 'tools/list', { cursor: 'next' }),
        rpc(17, 'tools/list', { cursor: 5 }),
        rpc(18, 'ping', { _meta: {} }),
        rpc('18-task', 'ping', { task: {} }),
        rpc('18-list-task', 'tools/list', { task: { ttl: 1 } }),
        rpc(19, 'ping', null),
        rpc(1.5, 'ping'),
        rpc(2 ** 60, 'ping'),
        rpc(-3, 'ping'),
        JSON.stringify({ jsonrpc: '2.0', id: 20, method: 'ping', extra: true }),
        JSON.stringify({ jsonrpc: '1.0', id: 21, method: 'ping' }),
        JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }),
        JSON.stringify([{ jsonrpc: '2.0', id: 22, method: 'ping' }]),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        rpc(23, 'resources/list', {}),
      ];
      for (const body of bodies) {
        const [hot, fresh] = await Promise.all([post(world.mcp.url, body), post(reference.url, body)]);
        expect(hot.status, body).toBe(fresh.status);
        expect(hot.headers.get('content-type'), body).toBe(fresh.headers.get('content-type'));
        expect(await hot.text(), body).toBe(await fresh.text());
      }
      // Two Content-Type headers (fetch cannot send them): node keeps the first, the SDK's transport sees both.
      const twice = [world.mcp.url, reference.url].map((url) =>
        rawPost(url, rpc(1, 'ping'), [
          'Content-Type',
          'application/json',
          'Content-Type',
          'application/json',
          'Accept',
          'application/json, text/event-stream',
          'Host',
          '127.0.0.1',
        ]),
      );
      const [hotTwice, freshTwice] = await Promise.all(twice);
      expect(hotTwice.status).not.toBe(200);
      expect(hotTwice).toEqual(freshTwice);
    } finally {
      await reference.close();
    }
  });

  it('40 concurrent clients that all use id 1 each get their own answer under id 1', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `concurrent${i}`);
    const answers = await Promise.all(
      names.map(async (name) => {
        const res = await post(
          world.mcp.url,
          rpc(1, 'tools/call', { name: 'check_availability', arguments: { name } }),
        );
        return (await res.json()) as { id: unknown; result: { structuredContent: { handle: string } } };
      }),
    );
    answers.forEach((answer, i) => {
      expect(answer.id).toBe(1);
      expect(answer.result.structuredContent.handle).toBe(names[i]);
    });
  });

  it("a request whose headers the SDK transport refuses gets that transport's own answer", async () => {
    const list = rpc(1, 'tools/list', {});
    const version = await post(world.mcp.url, list, { 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    expect(((await version.json()) as { error: { message: string } }).error.message).toMatch(
      /^Bad Request: Unsupported protocol version: 1999-01-01/,
    );
    const accept = await post(world.mcp.url, list, { accept: 'application/json' });
    expect(accept.status).toBe(406);
    const type = await post(world.mcp.url, list, { 'content-type': 'text/plain' });
    expect(type.status).toBe(415);
  });
});

describe('the request deadline', () => {
  it('a call that outlives the deadline is 504 with a JSON-RPC error; the server keeps serving', async () => {
    const slow: ToolDefinition = {
      name: 'slow',
      title: 'Slow',
      description: 'sleeps',
      inputSchema: {},
      outputSchema: {},
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true, value: {} }), 2000)),
    };
    const server = await startMcpHttpServer({
      tools: [slow],
      deps: world.deps,
      logger: createLogger({ logLevel: 'silent' }),
      bindHost: '127.0.0.1',
      port: 0,
      deadlineMs: 200,
    });
    try {
      const post = (method: string, params: unknown) =>
        fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
      const late = await post('tools/call', { name: 'slow', arguments: {} });
      expect(late.status).toBe(504);
      expect((await late.json()).error.code).toBe(-32603);
      expect((await post('tools/list', {})).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
