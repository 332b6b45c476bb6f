// /version when the chain RPC fails: 502 rpc unreachable, and the RPC metrics see it.
import { afterEach, describe, expect, it } from 'vitest';
import { createChainReader } from '../../platform/chain/reader';
import { ChainError } from '../../platform/chain/types';
import { TEST_PROGRAM_ID } from '../../platform/config';
import { createMetrics } from '../../platform/metrics';
import { fakeChain, rawRequest, startTestApp, type TestApp } from '@sigil/test/support/http-app';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('GET /version when the RPC does not answer', () => {
  it.each([
    [
      'getVersion unreachable',
      { getVersion: async () => Promise.reject(new ChainError('unreachable', 'ECONNREFUSED 10.0.0.1')) },
    ],
    [
      'getGenesisHash unreachable',
      { getGenesisHash: async () => Promise.reject(new ChainError('unreachable', 'timeout after 5000 ms')) },
    ],
    ['getSlot malformed', { getSlot: async () => Promise.reject(new ChainError('malformed', 'not a u64')) }],
  ])('%s → 502 {"error":"rpc unreachable"}', async (_case, overrides) => {
    t = await startTestApp({ deps: { chain: fakeChain(overrides) } });
    const res = await rawRequest(t.base, 'GET', '/version');
    expect(res.status, res.text).toBe(502);
    expect(res.json()).toEqual({ error: 'rpc unreachable' });
  });

  it('a real chain reader pointed at a closed port → 502, counted in sigil_rpc_errors_total', async () => {
    const metrics = createMetrics();
    const chain = createChainReader({
      rpcUrl: 'http://127.0.0.1:1',
      programId: TEST_PROGRAM_ID,
      timeoutMs: 2000,
      onRpcCall: metrics.recordRpcCall,
    });
    t = await startTestApp({ deps: { chain, metrics } });
    const res = await rawRequest(t.base, 'GET', '/version');
    expect(res.status, res.text).toBe(502);
    expect(res.json()).toEqual({ error: 'rpc unreachable' });
    const text = (await rawRequest(t.base, 'GET', '/metrics')).text;
    expect(text).toMatch(/^sigil_rpc_errors_total\{method="getVersion",kind="unreachable"\} 1$/m);
    expect(text).toMatch(/^sigil_rpc_calls_total\{method="getVersion"\} 1$/m);
  });

  it('a non-chain failure is a 500 with a generic body, not a 502', async () => {
    t = await startTestApp({
      deps: { chain: fakeChain({ getVersion: async () => Promise.reject(new TypeError('x is undefined')) }) },
    });
    const res = await rawRequest(t.base, 'GET', '/version');
    expect(res.status, res.text).toBe(500);
    expect(res.json()).toEqual({ error: 'internal error' });
  });
});
