// Public liveness, deployment health, version and namespaces over real HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { fakeChain, rawRequest, startTestApp, type TestApp } from '@sigil/test/support/http-app';
import { TEST_PROGRAM_ID } from '../../platform/config';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const get = (path: string) => rawRequest(t!.base, 'GET', path);

describe('health', () => {
  it('GET /health → {ok:true}', async () => {
    t = await startTestApp();
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it('GET /v1/health → status, service, x402, rails, rpc host (no path, no credentials), program', async () => {
    t = await startTestApp({
      env: { SIGIL_RPC_URL: 'https://user:secret@rpc.example.org:8443/v1/KEY123?api-key=zzz' },
    });
    const res = await get('/v1/health');
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      service: 'sigil',
      x402: false,
      rails: [],
      rpc: 'rpc.example.org:8443',
      program: TEST_PROGRAM_ID,
    });
    expect(res.text).not.toContain('secret');
    expect(res.text).not.toContain('KEY123');
  });
});

describe('version', () => {
  it('GET /version → service version and the chain it reads, live', async () => {
    t = await startTestApp({ env: { SIGIL_RPC_URL: 'http://rpc.local:8899' } });
    const res = await get('/version');
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({
      service: 'sigil',
      version: '0.1.0',
      rpc: 'rpc.local:8899',
      program: TEST_PROGRAM_ID,
      chain: { version: '2.1.0', genesisHash: 'GenesisHash1111111111111111111111111111111111', slot: 1234 },
    });
  });

  it('reads the slot at the time of the request', async () => {
    let slot = 10n;
    t = await startTestApp({ deps: { chain: fakeChain({ getSlot: async () => slot++ }) } });
    expect((await get('/version')).json().chain.slot).toBe(10);
    expect((await get('/version')).json().chain.slot).toBe(11);
  });
});

describe('namespaces', () => {
  it('GET /v1/namespaces → native namespaces on; sol and eth off without their RPCs', async () => {
    t = await startTestApp();
    const res = await get('/v1/namespaces');
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({
      namespaces: [
        { namespace: 'handle', source: 'sigil', configured: true },
        { namespace: 'x1', source: 'sigil', configured: true },
        { namespace: 'xnt', source: 'sigil', configured: true },
        { namespace: 'xen', source: 'sigil', configured: true },
        { namespace: 'sol', source: 'sns', configured: false },
        { namespace: 'eth', source: 'ens', configured: false },
      ],
    });
  });

  it('sol and eth are configured exactly when SIGIL_SOL_RPC_URL / SIGIL_ETH_RPC_URL are set', async () => {
    t = await startTestApp({ env: { SIGIL_SOL_RPC_URL: 'https://sol.example', SIGIL_DOMAIN_SUFFIXES: 'x1' } });
    expect((await get('/v1/namespaces')).json().namespaces).toEqual([
      { namespace: 'handle', source: 'sigil', configured: true },
      { namespace: 'x1', source: 'sigil', configured: true },
      { namespace: 'sol', source: 'sns', configured: true },
      { namespace: 'eth', source: 'ens', configured: false },
    ]);
    await t.close();
    t = await startTestApp({ env: { SIGIL_ETH_RPC_URL: 'https://eth.example' } });
    const entries = (await get('/v1/namespaces')).json().namespaces;
    expect(entries.find((e: { namespace: string }) => e.namespace === 'sol').configured).toBe(false);
    expect(entries.find((e: { namespace: string }) => e.namespace === 'eth').configured).toBe(true);
  });

  it('needs no key (ungated) on either face', async () => {
    t = await startTestApp();
    const res = await get('/trpc/health.namespaces');
    expect(res.status).toBe(200);
    expect(res.json().result.data.namespaces).toHaveLength(6);
  });
});
