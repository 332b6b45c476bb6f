// Which requests the hot path answers itself and which go to a per-request SDK server: only plainly valid pings,
// tool listings and calls of a tool we have, with headers the SDK's transport accepts. The answers of both paths are
// compared byte for byte over HTTP in mcp.http.test.ts; this pins the routing, so a case cannot silently change path.
import { describe, expect, it } from 'vitest';
import { compileTools, hotRequest } from './server';
import { mcpTools } from './tools/index';

const tools = compileTools(mcpTools({ network: 'testnet' }));
const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const rpc = (method: string, params?: unknown, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
/** A request's headers as node gives them: joined where node joins, and every value of each name. */
const route = (body: unknown, headers: Record<string, string | string[]> = HEADERS) =>
  hotRequest(
    {
      headers: Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [
          k,
          Array.isArray(v) ? (k === 'content-type' ? v[0] : v.join(', ')) : v,
        ]),
      ),
      headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v : [v]])),
    },
    body,
    tools,
  )?.method;

describe('hotRequest', () => {
  it('takes ping, tools/list and tools/call of a known tool', () => {
    expect(route(rpc('ping'))).toBe('ping');
    expect(route(rpc('ping', {}, 'a'))).toBe('ping');
    expect(route(rpc('tools/list'))).toBe('tools/list');
    expect(route(rpc('tools/list', {}))).toBe('tools/list');
    expect(route(rpc('tools/call', { name: 'resolve_name', arguments: { name: 'alice' } }))).toBe('tools/call');
    expect(route(rpc('tools/call', { name: 'resolve_name' }))).toBe('tools/call');
    // Bad arguments of a known tool are the tool's own BAD_REQUEST result, written by the same callTool.
    expect(route(rpc('tools/call', { name: 'resolve_name', arguments: { name: 42 } }))).toBe('tools/call');
    expect(
      route(rpc('tools/call', { name: 'resolve_name', arguments: {} }), {
        ...HEADERS,
        'mcp-protocol-version': '2025-06-18',
      }),
    ).toBe('tools/call');
  });

  it('leaves to the SDK every header its transport would refuse', () => {
    const body = rpc('ping');
    expect(route(body, { ...HEADERS, accept: 'application/json' })).toBeUndefined();
    expect(route(body, { ...HEADERS, accept: 'text/event-stream' })).toBeUndefined();
    expect(route(body, { ...HEADERS, 'content-type': 'text/plain' })).toBeUndefined();
    expect(route(body, { ...HEADERS, 'mcp-protocol-version': '1999-01-01' })).toBeUndefined();
    expect(route(body, { accept: HEADERS.accept })).toBeUndefined();
    // Node keeps the first Content-Type; the SDK's transport sees both and answers 415.
    expect(route(body, { ...HEADERS, 'content-type': ['application/json', 'application/json'] })).toBeUndefined();
  });

  it('leaves to the SDK every envelope that is not a plain single request', () => {
    for (const body of [
      [rpc('ping')],
      { ...rpc('ping'), extra: true },
      { ...rpc('ping'), jsonrpc: '1.0' },
      rpc('ping', undefined, null),
      rpc('ping', undefined, 1.5),
      rpc('ping', undefined, 2 ** 60),
      { jsonrpc: '2.0', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      rpc('ping', null),
      rpc('ping', []),
      rpc('initialize', {}),
      rpc('resources/list', {}),
      'ping',
      null,
    ]) {
      expect(route(body), JSON.stringify(body)).toBeUndefined();
    }
  });

  it('leaves to the SDK _meta, task augmentation, a cursor, an unknown tool and malformed params', () => {
    for (const params of [
      { name: 'resolve_name', arguments: {}, _meta: { progressToken: 1 } },
      { name: 'resolve_name', arguments: {}, task: { ttl: 1000 } },
      { name: 'no_such_tool', arguments: {} },
      { name: 7, arguments: {} },
      { arguments: {} },
      { name: 'resolve_name', arguments: null },
      { name: 'resolve_name', arguments: 'alice' },
      { name: 'resolve_name', arguments: [] },
    ]) {
      expect(route(rpc('tools/call', params)), JSON.stringify(params)).toBeUndefined();
    }
    expect(route(rpc('tools/call'))).toBeUndefined();
    expect(route(rpc('tools/list', { cursor: 'next' }))).toBeUndefined();
    expect(route(rpc('ping', { _meta: {} }))).toBeUndefined();
    // No tasks capability: the SDK refuses task augmentation of any method.
    expect(route(rpc('ping', { task: {} }))).toBeUndefined();
    expect(route(rpc('tools/list', { task: { ttl: 1 } }))).toBeUndefined();
  });
});
