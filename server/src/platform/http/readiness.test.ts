// GET /ready: 200 only when both the database and the chain RPC answer; 503 naming what does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeChain, rawRequest, startTestApp, type TestApp } from '@sigil/test/support/http-app';
import { ChainError } from '../chain/types';

describe('GET /ready', () => {
  let up: TestApp;
  let rpcDown: TestApp;
  beforeAll(async () => {
    [up, rpcDown] = await Promise.all([
      startTestApp(),
      startTestApp({
        deps: { chain: fakeChain({ getSlot: () => Promise.reject(new ChainError('unreachable', 'ECONNREFUSED')) }) },
      }),
    ]);
  });
  afterAll(() => Promise.all([up.close(), rpcDown.close()]));

  it('200 when the database and the RPC answer', async () => {
    const res = await rawRequest(up.base, 'GET', '/ready');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"ready":true,"checks":{"database":"ok","rpc":"ok"}}');
  });

  it('503 naming the RPC when it does not answer', async () => {
    const res = await rawRequest(rpcDown.base, 'GET', '/ready');
    expect(res.status).toBe(503);
    expect(res.text).toBe('{"ready":false,"checks":{"database":"ok","rpc":"unavailable"}}');
  });
});
