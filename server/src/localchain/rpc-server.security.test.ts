// The server binds loopback only and speaks strict JSON-RPC 2.0: error objects for unknown methods, bad params,
// parse errors and invalid requests; batches answered in order.
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from './index';

let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
});
afterAll(() => chain.close());

const post = async (body: string) => {
  const res = await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, json: await res.json() };
};

describe('loopback only', () => {
  it('listens on 127.0.0.1 and is not reachable through other interfaces', async () => {
    expect(chain.url).toBe(`http://127.0.0.1:${chain.port}`);
    expect(chain.host).toBe('127.0.0.1');
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    if (external) {
      await expect(fetch(`http://${external.address}:${chain.port}`, { method: 'POST', body: '{}' })).rejects.toThrow();
    } else {
      console.info('no non-loopback IPv4 interface on this machine: external-bind check skipped');
    }
  });

  it('refuses to start on a non-loopback host', async () => {
    await expect(startLocalChain({ host: '0.0.0.0' as never, scenario: false, autoAdvance: false })).rejects.toThrow(
      /loopback only/,
    );
  });

  it('close() frees the port', async () => {
    const other = await startLocalChain({ scenario: false, autoAdvance: false });
    await other.close();
    await expect(fetch(other.url, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});

describe('JSON-RPC framing', () => {
  it('unknown method → -32601', async () => {
    expect((await post('{"jsonrpc":"2.0","id":1,"method":"getNothing"}')).json).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: 'Method not found' },
    });
    // Prototype names are not methods.
    expect((await post('{"jsonrpc":"2.0","id":2,"method":"constructor"}')).json.error.code).toBe(-32601);
  });

  it('bad params → -32602', async () => {
    const bad = await post('{"jsonrpc":"2.0","id":"a","method":"getBalance","params":["not-an-address"]}');
    expect(bad.json.id).toBe('a');
    expect(bad.json.error.code).toBe(-32602);
    expect(
      (await post('{"jsonrpc":"2.0","id":3,"method":"getSlot","params":[{"commitment":"soon"}]}')).json.error.code,
    ).toBe(-32602);
    expect((await post('{"jsonrpc":"2.0","id":4,"method":"getBalance","params":"x"}')).json.error.code).toBe(-32602);
    expect((await post('{"jsonrpc":"2.0","id":5,"method":"sendTransaction","params":["!!!"]}')).json.error.code).toBe(
      -32602,
    );
  });

  it('parse error → -32700, invalid request → -32600', async () => {
    expect((await post('{not json')).json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
    expect((await post('{"id":9,"method":"getSlot"}')).json).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32600, message: 'Invalid request' },
    });
    expect((await post('[]')).json.error.code).toBe(-32600);
  });

  it('batch requests are answered in order, errors per entry', async () => {
    const { json } = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getHealth' },
        { jsonrpc: '2.0', id: 2, method: 'nope' },
        { jsonrpc: '2.0', id: 3, method: 'getSlot', params: [{ commitment: 'processed' }] },
      ]),
    );
    expect(json).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'ok' },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 3, result: Number(chain.slot()) },
    ]);
  });

  it('u64 values beyond 2^53 are emitted as exact JSON numbers', async () => {
    const info = await fetch(chain.url, {
      method: 'POST',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getAccountInfo',
        params: ['SysvarC1ock11111111111111111111111111111111', { encoding: 'base64' }],
      }),
    }).then((r) => r.text());
    expect(info).toContain('"rentEpoch":18446744073709551615');
  });

  it('other paths and methods → 404 JSON', async () => {
    const res = await fetch(`${chain.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not found' });
    expect((await fetch(`${chain.url}/`, { method: 'PUT' })).status).toBe(404); // another method on the RPC path
    expect(await (await fetch(`${chain.url}/health`)).text()).toBe('ok');
  });
});
