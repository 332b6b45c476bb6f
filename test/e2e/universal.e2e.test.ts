// Universal resolution over real HTTP: the keyed/metered routes on the registry's local chain, SNS accounts on a
// second local chain at their real derived addresses, ENS through a loopback JSON-RPC node over an in-process EVM
// (ENS's registry and PublicResolver, a Universal Resolver at viem's mainnet address). Every row of the spec's
// "Universal resolver and agents" table for these routes, chain selection with `verified`, the batch (mixed results,
// cost per name against the rate limit, 101 names), the shared auth suite on each route, and the documented error
// statuses.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import type { Hex } from 'viem';
import { createKey } from '../../server/src/features/keys/service';
import { startLocalChain, type LocalChain, type Scenario } from '../../server/src/localchain';
import { placeSnsName, placeSolRecordV2, testKey, type TestKey } from '../support/sns-names';
import { startEnsNode, type EnsNode } from '../support/ens/node';
import { apiKeyAuthSuite } from '../support/auth-suite';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';
import { withFaults } from '../support/scenario-app';
import { awayFromMinuteEdge } from '../support/ratelimit-usage';

const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const SOL_KEY = `0x${'11'.repeat(32)}` as Hex; // 32 × 0x11 → base58 29d2S7vB453rNYFdR5Ycwt7y9haRT5fwVwL9zTmBhfV2
const P2WPKH = '0x0014751e76e8199196d454941c45d1b3a323f1433bd6' as Hex; // BIP-173 example

let solChain: LocalChain;
let ens: EnsNode;
let full: KeyedApp; // sol + eth configured
let bare: KeyedApp; // neither
let scenario: Scenario;
const k: Record<string, TestKey> = {};

beforeAll(async () => {
  [solChain, ens] = await Promise.all([
    startLocalChain({ autoAdvance: false, scenario: false }),
    startEnsNode({
      'vitalik.eth': { '60': VITALIK, '501': SOL_KEY, '0': P2WPKH },
      'nosol.eth': { '60': VITALIK },
      'legacy.eth': { legacyResolver: VITALIK },
    }),
  ]);
  for (const name of ['owner', 'payee']) k[name] = testKey();
  await placeSnsName(solChain, ['bonfida'], k.owner!.address);
  await placeSnsName(solChain, ['paid'], k.owner!.address);
  await placeSolRecordV2(solChain, ['paid'], {
    content: k.payee!.address,
    stalenessId: k.owner!.address,
    roaId: k.payee!.address,
    owner: k.owner!.address,
  });
  full = await startKeyedApp({
    dialect: 'sqlite',
    env: { SIGIL_SOL_RPC_URL: solChain.url, SIGIL_ETH_RPC_URL: ens.url, SIGIL_RPC_TIMEOUT_MS: '1500' },
  });
  bare = await startKeyedApp({ dialect: 'sqlite', chain: full.chain });
  scenario = full.chain.scenario!;
}, 60_000);

afterAll(async () => {
  await bare?.close();
  await full?.close();
  await solChain?.close();
  await ens?.close();
});

const wallet = (name: string) => scenario.wallets[name]!.address;
/** A fresh free key (300/minute), so tests that count units do not share a window. */
const freshKey = async (app: KeyedApp) =>
  (await createKey(app.database.db, { account: base58.encode(randomBytes(32)), name: 'universal-e2e' })).secret;
const get = (path: string, app = full) => app.call('GET', path, { key: app.key.secret });

describe('GET /v1/resolve-universal/{name}: native namespaces', () => {
  it('a handle on X1 (default): the current authority, verified, source sigil', async () => {
    const res = await get('/v1/resolve-universal/@Alice');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      input: '@Alice',
      name: 'alice',
      namespace: 'handle',
      address: wallet('alice'),
      chain: 'X1',
      source: 'sigil',
      verified: true,
    });
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('chain=X1|SOL|ETH|BTC selects the address record, `verified` from the chain (case-insensitive chain)', async () => {
    const alice = scenario.foreignKeys.alice!;
    const rows: [string, string, boolean][] = [
      ['X1', wallet('alice'), true],
      ['sol', wallet('aliceSol'), true],
      ['ETH', alice.eth, true],
      ['BTC', alice.btc, false],
    ];
    for (const [chain, address, verified] of rows) {
      const res = await get(`/v1/resolve-universal/alice?chain=${chain}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toStrictEqual({
        input: 'alice',
        name: 'alice',
        namespace: 'handle',
        address,
        chain: chain.toUpperCase(),
        source: 'sigil',
        verified,
      });
    }
    // bob's SOL record points at a key that never signed for him: returned, but not verified.
    expect((await get('/v1/resolve-universal/bob?chain=SOL')).body).toMatchObject({
      address: wallet('aliceSol'),
      verified: false,
    });
  });

  it('a domain answers in its TLD namespace; it has no records for other chains (404 NO_RECORD_FOR_CHAIN)', async () => {
    expect((await get('/v1/resolve-universal/forge.xnt')).body).toStrictEqual({
      input: 'forge.xnt',
      name: 'forge.xnt',
      namespace: 'xnt',
      address: wallet('alice'),
      chain: 'X1',
      source: 'sigil',
      verified: true,
    });
    const res = await get('/v1/resolve-universal/forge.xnt?chain=SOL');
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ code: 'NO_RECORD_FOR_CHAIN', message: 'forge.xnt has no SOL address' });
  });

  it('404 NO_RECORD_FOR_CHAIN: a handle without that record', async () => {
    const res = await get('/v1/resolve-universal/satoshi?chain=ETH');
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ code: 'NO_RECORD_FOR_CHAIN', message: '@satoshi has no ETH address' });
  });

  it('refused shapes answer the public face conditions with their codes (never a fallback), 400 for an unknown chain', async () => {
    for (const [path, status, code, message] of [
      ['/v1/resolve-universal/bad%20name', 400, 'INVALID_HANDLE', '"bad name": invalid handle'],
      [
        '/v1/resolve-universal/foo.sns',
        400,
        'INVALID_NAME',
        '"foo.sns": .sns names are not resolved by this deployment (see docs/universal.md)',
      ],
      [
        '/v1/resolve-universal/@satoshi.x1',
        409,
        'AMBIGUOUS',
        '"@satoshi.x1": ambiguous: "satoshi.x1" is both a handle and a domain shape',
      ],
      ['/v1/resolve-universal/a.b.c.sol', 400, 'INVALID_NAME', '"a.b.c.sol": not a valid .sol name'],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(status);
      expect(res.body, path).toStrictEqual({ code, message });
    }
    const res = await get('/v1/resolve-universal/alice?chain=DOGE');
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ code: 'BAD_REQUEST', message: 'chain must be X1, SOL, ETH or BTC (got "DOGE")' });
  });

  it('404 HANDLE_NOT_REGISTERED for a well-formed, unregistered handle', async () => {
    const res = await get('/v1/resolve-universal/nobody');
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ code: 'HANDLE_NOT_REGISTERED', message: '@nobody is not registered' });
  });

  it('502 when the registry RPC fails', async () => {
    const res = await withFaults(full.chain, () => get('/v1/resolve-universal/alice'));
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('RPC_ERROR');
  });
});

describe('GET /v1/resolve-universal/{name}: sol (second local chain) and eth (loopback JSON-RPC)', () => {
  it('.sol: the owner without a record; a Solana-validated SOL record V2 → its key, verified', async () => {
    expect((await get('/v1/resolve-universal/bonfida.sol')).body).toStrictEqual({
      input: 'bonfida.sol',
      name: 'bonfida.sol',
      namespace: 'sol',
      address: k.owner!.address,
      chain: 'SOL',
      source: 'sns',
      verified: true,
    });
    expect((await get('/v1/resolve-universal/paid.sol?chain=SOL')).body).toMatchObject({
      address: k.payee!.address,
      verified: true,
    });
  });

  it('.sol: 404 NO_RECORD_FOR_CHAIN for another chain, 404 NAME_NOT_FOUND when unregistered, 502 when its RPC fails', async () => {
    const x1 = await get('/v1/resolve-universal/bonfida.sol?chain=X1');
    expect(x1.status).toBe(404);
    expect(x1.body).toStrictEqual({ code: 'NO_RECORD_FOR_CHAIN', message: 'bonfida.sol has no X1 address' });
    expect((await get('/v1/resolve-universal/nobody.sol')).body).toStrictEqual({
      code: 'NAME_NOT_FOUND',
      message: 'nobody.sol is not registered',
    });
    const down = await withFaults(solChain, () => get('/v1/resolve-universal/bonfida.sol'));
    expect(down.status).toBe(502);
    expect(down.body).toStrictEqual({ code: 'RPC_ERROR', message: 'the Solana RPC is unreachable' });
  });

  it('.eth: ETH (default), SOL base58, BTC from the script, never verified', async () => {
    expect((await get('/v1/resolve-universal/Vitalik.eth')).body).toStrictEqual({
      input: 'Vitalik.eth',
      name: 'vitalik.eth',
      namespace: 'eth',
      address: VITALIK,
      chain: 'ETH',
      source: 'ens',
      verified: false,
    });
    expect((await get('/v1/resolve-universal/vitalik.eth?chain=SOL')).body).toMatchObject({
      address: '29d2S7vB453rNYFdR5Ycwt7y9haRT5fwVwL9zTmBhfV2',
      verified: false,
    });
    expect((await get('/v1/resolve-universal/vitalik.eth?chain=BTC')).body).toMatchObject({
      address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    });
    expect(ens.calls).toContain('vitalik.eth');
  });

  it('.eth: 404 NO_RECORD_FOR_CHAIN, 404 NAME_NOT_FOUND, 502 when the node fails', async () => {
    const sol = await get('/v1/resolve-universal/nosol.eth?chain=SOL');
    expect(sol.status).toBe(404);
    expect(sol.body).toStrictEqual({ code: 'NO_RECORD_FOR_CHAIN', message: 'nosol.eth has no SOL address' });
    const legacy = await get('/v1/resolve-universal/legacy.eth?chain=SOL'); // a resolver without the multicoin profile
    expect(legacy.status).toBe(404);
    expect(legacy.body).toStrictEqual({
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'legacy.eth has no SOL address (UnsupportedResolverProfile)',
    });
    expect((await get('/v1/resolve-universal/unknown.eth')).body).toStrictEqual({
      code: 'NAME_NOT_FOUND',
      message: 'unknown.eth is not registered (no resolver)',
    });
    ens.down = true;
    try {
      const res = await get('/v1/resolve-universal/vitalik.eth');
      expect(res.status).toBe(502);
      expect(res.body).toStrictEqual({ code: 'RPC_ERROR', message: 'the Ethereum RPC is unreachable' });
    } finally {
      ens.down = false;
    }
  });

  it('501 NOT_CONFIGURED for sol and eth when their RPC is unset, never an address (native names still work)', async () => {
    const sol = await get('/v1/resolve-universal/bonfida.sol', bare);
    expect(sol.status).toBe(501);
    expect(sol.body).toStrictEqual({
      code: 'NOT_CONFIGURED',
      message: 'the sol namespace (Solana Name Service) is not enabled on this deployment',
    });
    const eth = await get('/v1/resolve-universal/vitalik.eth?chain=ETH', bare);
    expect(eth.status).toBe(501);
    expect(eth.body).toStrictEqual({
      code: 'NOT_CONFIGURED',
      message: 'the eth namespace (ENS) is not enabled on this deployment',
    });
    expect((await get('/v1/resolve-universal/alice', bare)).status).toBe(200);
    const namespaces = await bare.call('GET', '/v1/namespaces');
    expect(
      namespaces.body.namespaces
        .filter((n: { configured: boolean }) => !n.configured)
        .map((n: { namespace: string }) => n.namespace),
    ).toEqual(['sol', 'eth']);
  });
});

describe('GET /v1/resolve/{name}', () => {
  it('the public fields, authority, handle type, live address records with verification, and the slot read at', async () => {
    const res = await get('/v1/resolve/@alice');
    expect(res.status, res.text).toBe(200);
    const alice = scenario.foreignKeys.alice!;
    expect(res.body).toMatchObject({
      input: '@alice',
      name: 'alice',
      namespace: 'handle',
      owner: wallet('alice'),
      tokenized: false,
      verification: 'owner',
      authority: wallet('alice'),
      handleType: 0,
    });
    expect(
      res.body.addresses.map((a: { chain: string; address: string; verified: boolean }) => [
        a.chain,
        a.address,
        a.verified,
      ]),
    ).toEqual([
      ['BTC', alice.btc, false],
      ['ETH', alice.eth, true],
      ['SOL', wallet('aliceSol'), true],
      ['X1', wallet('alice'), true],
    ]);
    expect(Number.isInteger(res.body.slot) && res.body.slot > 0).toBe(true);
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });

  it('a tokenized handle: authority is the NFT holder; a domain has no records; a foreign name → 400; unknown → 404', async () => {
    expect((await get('/v1/resolve/vault')).body).toMatchObject({
      tokenized: true,
      verification: 'nft-holder',
      owner: wallet('carol'),
      authority: wallet('dave'),
    });
    expect((await get('/v1/resolve/satoshi.x1')).body).toMatchObject({
      namespace: 'x1',
      handleType: null,
      addresses: [],
    });
    const foreign = await get('/v1/resolve/bonfida.sol');
    expect(foreign.status).toBe(400);
    expect(foreign.body).toStrictEqual({
      code: 'INVALID_NAME',
      message: '"bonfida.sol" is a sol name: use /v1/resolve-universal',
    });
    expect((await get('/v1/resolve/nobody')).status).toBe(404);
    expect((await withFaults(full.chain, () => get('/v1/resolve/alice'))).status).toBe(502);
  });
});

describe('POST /v1/resolve/batch', () => {
  it('mixed results in request order: results and errors as items, across namespaces', async () => {
    const res = await full.call('POST', '/v1/resolve/batch', {
      key: full.key.secret,
      body: { names: ['alice', 'nobody', 'bonfida.sol', 'vitalik.eth', 'bad name', 'alice'] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: any) => [r.input, r.ok, r.result?.address ?? r.error?.code])).toEqual([
      ['alice', true, wallet('alice')],
      ['nobody', false, 'HANDLE_NOT_REGISTERED'],
      ['bonfida.sol', true, k.owner!.address],
      ['vitalik.eth', true, VITALIK],
      ['bad name', false, 'INVALID_HANDLE'],
      ['alice', true, wallet('alice')],
    ]);
    expect(res.body.results[1]).toStrictEqual({
      input: 'nobody',
      ok: false,
      error: { status: 404, code: 'HANDLE_NOT_REGISTERED', message: '@nobody is not registered' },
    });
    expect(res.body.results[0]).toStrictEqual({
      input: 'alice',
      ok: true,
      result: {
        input: 'alice',
        name: 'alice',
        namespace: 'handle',
        address: wallet('alice'),
        chain: 'X1',
        source: 'sigil',
        verified: true,
      },
    });
  });

  it('`chain` applies to every name; a 501 namespace is an item, not a failed batch', async () => {
    const res = await bare.call('POST', '/v1/resolve/batch', {
      key: bare.key.secret,
      body: { names: ['alice', 'bonfida.sol'], chain: 'sol' },
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => r.result?.address ?? r.error?.code)).toEqual([
      wallet('aliceSol'),
      'NOT_CONFIGURED',
    ]);
  });

  it(
    'costs one rate-limit unit per name: X-RateLimit-Remaining drops by the number of names',
    { timeout: 30_000 },
    async () => {
      await awayFromMinuteEdge();
      const key = await freshKey(full);
      const first = await full.call('GET', '/v1/resolve-universal/alice', { key });
      expect(first.headers.get('x-ratelimit-remaining')).toBe('299');
      const names = Array.from({ length: 40 }, (_, i) => `name${i}`);
      const batch = await full.call('POST', '/v1/resolve/batch', { key, body: { names } });
      expect(batch.status).toBe(200);
      expect(batch.body.results).toHaveLength(40);
      expect(batch.headers.get('x-ratelimit-remaining')).toBe('259');
      expect(batch.headers.get('x-ratelimit-daily-remaining')).toBe(String(15_000 - 41));
      const single = await full.call('GET', '/v1/resolve-universal/alice', { key });
      expect(single.headers.get('x-ratelimit-remaining')).toBe('258');
    },
  );

  it('a batch larger than what is left in the window is refused whole (429)', { timeout: 30_000 }, async () => {
    await awayFromMinuteEdge();
    const key = await freshKey(full);
    const names = (n: number) => Array.from({ length: n }, (_, j) => `n${j}`);
    for (const n of [100, 100, 99])
      expect((await full.call('POST', '/v1/resolve/batch', { key, body: { names: names(n) } })).status).toBe(200);
    const over = await full.call('POST', '/v1/resolve/batch', { key, body: { names: ['alice', 'bob'] } });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('RATE_LIMITED');
    expect(over.headers.get('retry-after')).not.toBeNull();
  });

  it('101 names → 400 (costs 1 unit, not 101); no names → 400; a bad chain → 400', async () => {
    const key = await freshKey(full);
    const tooMany = await full.call('POST', '/v1/resolve/batch', {
      key,
      body: { names: Array.from({ length: 101 }, (_, i) => `n${i}`) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toStrictEqual({ code: 'BAD_REQUEST', message: 'invalid input: names: at most 100 names' });
    expect(tooMany.headers.get('x-ratelimit-remaining')).toBe('299');
    const none = await full.call('POST', '/v1/resolve/batch', { key, body: { names: [] } });
    expect(none.status).toBe(400);
    expect(none.body).toStrictEqual({ code: 'BAD_REQUEST', message: 'invalid input: names: at least one name' });
    const badChain = await full.call('POST', '/v1/resolve/batch', { key, body: { names: ['alice'], chain: 'LTC' } });
    expect(badChain.status).toBe(400);
    expect(badChain.body).toStrictEqual({
      code: 'BAD_REQUEST',
      message: 'chain must be X1, SOL, ETH or BTC (got "LTC")',
    });
  });
});

describe('credentials (the shared auth suite on every keyed route)', () => {
  apiKeyAuthSuite(
    'GET /v1/resolve/{name}',
    () => full,
    (a, auth) => a.call('GET', '/v1/resolve/alice', auth),
  );
  apiKeyAuthSuite(
    'GET /v1/resolve-universal/{name}',
    () => full,
    (a, auth) => a.call('GET', '/v1/resolve-universal/alice', auth),
  );
  apiKeyAuthSuite(
    'POST /v1/resolve/batch',
    () => full,
    (a, auth) => a.call('POST', '/v1/resolve/batch', { ...auth, body: { names: ['alice'] } }),
  );
});

describe('documentation', () => {
  it('/openapi.json lists every error status of the spec table on each route', async () => {
    const doc = (await full.call('GET', '/openapi.json')).body;
    // Beyond the HTTP layer's rows, which every operation declares (docs/http.md; its 404 is the unknown path's).
    const layer = new Set(['404', '405', '408', '413', '415', '417', '431', '500']);
    const statuses = (path: string, method: string) =>
      Object.keys(doc.paths[path][method].responses)
        .filter((status) => !layer.has(status))
        .sort();
    // 409 and 503: the metered path's settlement (a concurrent winner; the payment store failed after the handler).
    expect(statuses('/v1/resolve-universal/{name}', 'get')).toEqual([
      '200',
      '400',
      '401',
      '402',
      '409',
      '429',
      '501',
      '502',
      '503',
    ]);
    expect(statuses('/v1/resolve/{name}', 'get')).toEqual(['200', '400', '401', '402', '409', '429', '502', '503']);
    // Their own 404 rows: the name that resolves to nothing.
    for (const path of ['/v1/resolve-universal/{name}', '/v1/resolve/{name}'])
      expect(doc.paths[path].get.responses['404'].description, path).toMatch(/NOT_FOUND|not registered/);
    expect(statuses('/v1/resolve/batch', 'post')).toEqual(['200', '400', '401', '429']);
  });
});
