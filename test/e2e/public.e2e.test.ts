// Public resolution over real HTTP against the local chain and its demo scenario: every row of the spec's
// "Errors → Public resolve" table, the reverse trust rules, and the cache's staleness bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { composeTestApp } from '../support/compose-app';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { findHandlePda, findPrimaryPointerPda } from '../../server/src/platform/chain/registry';
import type { RpcCallEvent } from '../../server/src/platform/chain/types';
import { testConfig } from '../../server/src/platform/config';
import { createLogger } from '../../server/src/platform/log';
import { rawRequest } from '../support/http-app';
import { withFaults } from '../support/scenario-app';
import { startLocalChain, type LocalChain, type Scenario } from '../../server/src/localchain';

let chain: LocalChain;
let scenario: Scenario;
let rpcCalls: RpcCallEvent[] = [];
const apps: FastifyInstance[] = [];

async function startService(env: Record<string, string> = {}): Promise<string> {
  const config = testConfig({
    SIGIL_RPC_URL: chain.url,
    SIGIL_PROGRAM_ID: chain.programId,
    SIGIL_RESOLVE_CACHE_MS: '0',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const reader = createChainReader({
    rpcUrl: chain.url,
    programId: chain.programId,
    timeoutMs: 1500,
    onRpcCall: (e) => rpcCalls.push(e),
  });
  const app = await composeTestApp({ config, chain: reader, logger: createLogger(config) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  apps.push(app);
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

let base: string;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: true });
  scenario = chain.scenario!;
  base = await startService();
}, 60_000);

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await chain?.close();
});

const get = (path: string, b = base) => rawRequest(b, 'GET', path);
const wallet = (name: string) => scenario.wallets[name]!.address;

const faulty = <T>(faults: Parameters<LocalChain['faults']['set']>[0], run: () => Promise<T>) =>
  withFaults(chain, run, faults);

describe('GET /resolve/{name}', () => {
  it('resolves a handle with exactly the spec fields', async () => {
    const res = await get('/resolve/@alice');
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toStrictEqual({
      input: '@alice',
      name: 'alice',
      namespace: 'handle',
      owner: wallet('alice'),
      tokenized: false,
      verification: 'owner',
    });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('is case-insensitive, takes an optional @ (also percent-encoded), and echoes the raw input', async () => {
    for (const [path, input] of [
      ['/resolve/ALICE', 'ALICE'],
      ['/resolve/%40Alice', '@Alice'],
      ['/resolve/alice', 'alice'],
    ]) {
      const res = await get(path);
      expect(res.status, res.text).toBe(200);
      expect(res.json()).toMatchObject({ input, name: 'alice', owner: wallet('alice') });
    }
  });

  it('a tokenized handle reports the recorded owner (informational) and nft-holder verification', async () => {
    const res = await get(`/resolve/${scenario.cases.tokenizedHeldByOther}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toStrictEqual({
      input: 'vault',
      name: 'vault',
      namespace: 'handle',
      owner: wallet('carol'),
      tokenized: true,
      verification: 'nft-holder',
    });
  });

  it('resolves domains under each registry namespace', async () => {
    for (const [name, tld] of [
      [scenario.cases.domainX1, 'x1'],
      [scenario.cases.domainXnt, 'xnt'],
      [scenario.cases.domainXen, 'xen'],
    ] as const) {
      const res = await get(`/resolve/${name}`);
      expect(res.status, res.text).toBe(200);
      expect(res.json()).toMatchObject({ input: name, name, namespace: tld, tokenized: false, verification: 'owner' });
    }
  });

  it('409: input of both shapes is refused and neither side is read from the chain', async () => {
    // Both sides exist in the scenario: handle `satoshi.x1` and domain `satoshi.x1`.
    expect((await get('/resolve/satoshi.x1')).status).toBe(200);
    rpcCalls = [];
    const res = await get('/resolve/%40satoshi.x1');
    expect(res.status, res.text).toBe(409);
    expect(res.json()).toStrictEqual({ error: 'ambiguous: both a handle and a domain shape', input: '@satoshi.x1' });
    expect(rpcCalls).toEqual([]);
  });

  it('400 invalid handle / invalid domain', async () => {
    for (const [path, input] of [
      ['/resolve/bad!', 'bad!'],
      ['/resolve/' + 'a'.repeat(33), 'a'.repeat(33)],
      ['/resolve/%40%40alice', '@@alice'],
      ['/resolve/al%20ice', 'al ice'],
    ]) {
      const res = await get(path);
      expect(res.status, res.text).toBe(400);
      expect(res.json()).toStrictEqual({ error: 'invalid handle', input });
    }
    for (const name of ['-forge.xnt', 'a.b.x1', 'bad!.xen']) {
      const res = await get(`/resolve/${name}`);
      expect(res.status, res.text).toBe(400);
      expect(res.json()).toStrictEqual({ error: 'invalid domain', input: name });
    }
  });

  it('404 handle not registered / domain not registered', async () => {
    let res = await get(`/resolve/${scenario.cases.unregistered}`);
    expect(res.status).toBe(404);
    expect(res.json()).toStrictEqual({ error: 'handle not registered', input: 'nobody' });
    res = await get('/resolve/nobody.x1');
    expect(res.status).toBe(404);
    expect(res.json()).toStrictEqual({ error: 'domain not registered', input: 'nobody.x1' });
  });

  it('502 malformed account when the handle account does not decode (transient)', async () => {
    const [alicePda] = await findHandlePda(chain.programId, 'alice');
    const res = await faulty({ malformedAccounts: [alicePda] }, () => get('/resolve/alice'));
    expect(res.status, res.text).toBe(502);
    expect(res.json()).toStrictEqual({ error: 'malformed account', input: 'alice' });
    expect((await get('/resolve/alice')).status).toBe(200); // transient: fine once the data is fine
  });

  it('502 rpc unreachable when the RPC does not answer, or answers with errors', async () => {
    for (const fault of [
      { unreachable: true },
      { httpStatus: 500 },
      { rpcError: { code: -32000, message: 'node is behind' } },
    ]) {
      const res = await faulty(fault, () => get('/resolve/alice'));
      expect(res.status, JSON.stringify(fault) + res.text).toBe(502);
      expect(res.json()).toStrictEqual({ error: 'rpc unreachable', input: 'alice' });
    }
  });
});

describe('GET /reverse/{address}', () => {
  it('returns the primary handle of a wallet whose pointer passes the trust rules', async () => {
    const res = await get(`/reverse/${scenario.reverse.plainWithPrimary}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toStrictEqual({ input: wallet('alice'), address: wallet('alice'), handle: 'alice' });
  });

  it('a tokenized handle: the NFT holder’s pointer counts; the recorded owner’s does not', async () => {
    let res = await get(`/reverse/${scenario.reverse.tokenizedHolder}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json().handle).toBe('vault');
    res = await get(`/reverse/${scenario.reverse.tokenizedOwnerLostAuthority}`);
    expect(res.status, res.text).toBe(404);
    expect(res.json()).toStrictEqual({ error: 'no primary set', input: wallet('carol') });
  });

  it('404 no primary set: pointer set before the current registration, wallet lost authority, none at all', async () => {
    for (const name of ['primarySetBeforeRegistration', 'primaryLostAuthority', 'noPrimary'] as const) {
      const address = scenario.reverse[name]!;
      const res = await get(`/reverse/${address}`);
      expect(res.status, `${name}: ${res.text}`).toBe(404);
      expect(res.json()).toStrictEqual({ error: 'no primary set', input: address });
    }
  });

  it('400 invalid address', async () => {
    for (const input of ['xyz', '0OIl' + 'a'.repeat(40), '1'.repeat(45)]) {
      const res = await get(`/reverse/${input}`);
      expect(res.status, res.text).toBe(400);
      expect(res.json()).toStrictEqual({ error: 'invalid address', input });
    }
  });

  it('502 malformed handle when the pointed-at handle does not decode; malformed account for the pointer', async () => {
    const [alicePda] = await findHandlePda(chain.programId, 'alice');
    let res = await faulty({ malformedAccounts: [alicePda] }, () => get(`/reverse/${wallet('alice')}`));
    expect(res.status, res.text).toBe(502);
    expect(res.json()).toStrictEqual({ error: 'malformed handle', input: wallet('alice') });

    const [pointer] = await findPrimaryPointerPda(chain.programId, wallet('alice'));
    res = await faulty({ malformedAccounts: [pointer] }, () => get(`/reverse/${wallet('alice')}`));
    expect(res.status, res.text).toBe(502);
    expect(res.json()).toStrictEqual({ error: 'malformed account', input: wallet('alice') });
  });

  it('502 rpc unreachable', async () => {
    const res = await faulty({ unreachable: true }, () => get(`/reverse/${wallet('alice')}`));
    expect(res.status).toBe(502);
    expect(res.json()).toStrictEqual({ error: 'rpc unreachable', input: wallet('alice') });
  });
});

describe('routes and methods', () => {
  it('405 method not allowed for every other method on resolve and reverse', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      for (const path of ['/resolve/alice', `/reverse/${wallet('alice')}`]) {
        const res = await rawRequest(base, method, path, {
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(res.status, `${method} ${path}: ${res.text}`).toBe(405);
        expect(res.json()).toStrictEqual({ error: 'method not allowed' });
      }
    }
  });

  it('404 not found for unknown routes, with no input field', async () => {
    for (const path of ['/nope', '/resolve', '/resolve/alice/extra', '/v0/resolve/alice']) {
      const res = await get(path);
      expect(res.status, `${path}: ${res.text}`).toBe(404);
      expect(res.json()).toStrictEqual({ error: 'not found' });
    }
  });

  it('health, v1 health, namespaces and version', async () => {
    expect((await get('/health')).json()).toStrictEqual({ ok: true });
    expect((await get('/v1/health')).json()).toStrictEqual({
      status: 'ok',
      service: 'sigil',
      x402: false,
      rails: [],
      rpc: new URL(chain.url).host,
      program: chain.programId,
    });
    const ns = (await get('/v1/namespaces')).json();
    expect(
      ns.namespaces.map((n: { namespace: string; configured: boolean }) => `${n.namespace}:${n.configured}`),
    ).toEqual(['handle:true', 'x1:true', 'xnt:true', 'xen:true', 'sol:false', 'eth:false']);
    const version = await get('/version');
    expect(version.status).toBe(200);
    expect(version.json()).toMatchObject({
      service: 'sigil',
      rpc: new URL(chain.url).host,
      program: chain.programId,
      chain: { genesisHash: chain.genesisHash },
    });
    const down = await faulty({ unreachable: true }, () => get('/version'));
    expect(down.status).toBe(502);
    expect(down.json()).toStrictEqual({ error: 'rpc unreachable' });
  });
});

describe('cache', () => {
  it('serves an answer for at most SIGIL_RESOLVE_CACHE_MS, then reads the chain again', async () => {
    // A bound of 1 s: wide enough that a stalled machine between the first two requests stays within it.
    const cached = await startService({ SIGIL_RESOLVE_CACHE_MS: '1000' });
    expect((await get('/resolve/alice', cached)).status).toBe(200);
    const during = await faulty({ unreachable: true }, async () => {
      const first = await get('/resolve/alice', cached);
      await new Promise((r) => setTimeout(r, 1_100));
      return [first, await get('/resolve/alice', cached)] as const;
    });
    expect(during[0].status).toBe(200); // within the bound: from memory
    expect(during[1].status).toBe(502); // past the bound: asks the chain, which is down
  });

  it('an answer built from an outcome cached for another spelling is replayed only for what is left of its bound', async () => {
    const cached = await startService({ SIGIL_RESOLVE_CACHE_MS: '2500' });
    const first = await get('/resolve/alice', cached);
    // The outcome was cached before this point: it leaves the bound before answered + 2.5 s.
    const answered = Date.now();
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('public, max-age=2');
    // max-age=1 below needs 1–2 s left, so 0.5–1.5 s gone: waiting 0.6 s leaves 0.9 s for a slow machine.
    await new Promise((r) => setTimeout(r, 600));
    // Another URL (its own answer), the same handle (the outcome cached before `answered`): under 1.9 s left.
    const other = await get('/resolve/Alice', cached);
    expect(other.status).toBe(200);
    expect(other.headers['cache-control']).toBe('public, max-age=1');
    const late = await faulty({ unreachable: true }, async () => {
      await new Promise((r) => setTimeout(r, Math.max(0, answered + 2_600 - Date.now())));
      return get('/resolve/Alice', cached);
    });
    // Past the outcome's bound the chain must be asked again (it is down), though /resolve/Alice's own answer is
    // ~2 s old: replayed for a whole bound (2.5 s) it would still be served.
    expect(late.status).toBe(502);
  });

  it('does not cache failures', async () => {
    const cached = await startService({ SIGIL_RESOLVE_CACHE_MS: '60000' });
    const res = await faulty({ unreachable: true }, () => get('/resolve/bob', cached));
    expect(res.status).toBe(502);
    expect((await get('/resolve/bob', cached)).status).toBe(200);
  });
});
