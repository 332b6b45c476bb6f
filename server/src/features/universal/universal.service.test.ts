// Universal resolution against two real local chains: the registry scenario (handles, domains, records) and a second
// instance holding SNS accounts at their real derived addresses. Every error row: 400, 404 NO_RECORD_FOR_CHAIN,
// 404 HANDLE_NOT_REGISTERED / DOMAIN_NOT_REGISTERED / NAME_NOT_FOUND, 409 AMBIGUOUS, 501 NOT_CONFIGURED, 502.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain, type Scenario } from '../../localchain';
import { createChainReader } from '../../platform/chain/reader';
import { createSnsAdapter, snsHashedName, snsKeys } from './sns';
import {
  placeSnsName,
  placeSolRecordV1,
  placeSolRecordV2,
  testKey,
  tokenizeSnsName,
  type TestKey,
} from '@sigil/test/support/sns-names';
import { createNativeCache, createUniversalService, type NativeOutcome, type UniversalService } from './service';
import type { ReadCache } from '../../platform/cache';
import type { ChainReader } from '../../platform/chain/types';
import { base58 } from '@scure/base';
import { apiFailure as failure } from '@sigil/test/support/failures';

let chain: LocalChain;
let solChain: LocalChain;
let scenario: Scenario;
let universal: UniversalService;
let bare: UniversalService;
const k: Record<string, TestKey> = {};

beforeAll(async () => {
  [chain, solChain] = await Promise.all([
    startLocalChain({ autoAdvance: false }),
    startLocalChain({ autoAdvance: false, scenario: false }),
  ]);
  scenario = chain.scenario!;
  for (const name of ['owner', 'payee', 'oldOwner', 'v1payee', 'holder', 'subOwner', 'mallory']) k[name] = testKey();
  await placeSnsName(solChain, ['bonfida'], k.owner!.address);
  await placeSnsName(solChain, ['dex', 'bonfida'], k.subOwner!.address);
  await placeSnsName(solChain, ['paid'], k.owner!.address);
  await placeSolRecordV2(solChain, ['paid'], {
    content: k.payee!.address,
    stalenessId: k.owner!.address,
    roaId: k.payee!.address,
    owner: k.owner!.address,
  });
  await placeSnsName(solChain, ['stale'], k.owner!.address);
  await placeSolRecordV2(solChain, ['stale'], {
    content: k.payee!.address,
    stalenessId: k.oldOwner!.address,
    roaId: k.payee!.address,
    owner: k.owner!.address,
  });
  await placeSolRecordV1(solChain, ['stale'], k.v1payee!.address, k.owner!, k.owner!.address);
  await placeSnsName(solChain, ['forged'], k.owner!.address);
  await placeSolRecordV1(solChain, ['forged'], k.mallory!.address, k.mallory!, k.owner!.address);
  await placeSnsName(solChain, ['badroa'], k.owner!.address);
  await placeSolRecordV2(solChain, ['badroa'], {
    content: k.payee!.address,
    stalenessId: k.owner!.address,
    roaId: k.mallory!.address,
    owner: k.owner!.address,
  });
  await placeSnsName(solChain, ['unvalidated'], k.owner!.address);
  await placeSolRecordV2(solChain, ['unvalidated'], {
    content: k.payee!.address,
    stalenessId: k.owner!.address,
    roaId: k.payee!.address,
    roaValidation: 3,
    owner: k.owner!.address,
  });
  await tokenizeSnsName(solChain, ['nft'], k.holder!.address);
  await tokenizeSnsName(solChain, ['burned'], null);
  await placeSnsName(solChain, ['pda'], (await snsKeys(['bonfida'])).domain); // a PDA owner (off curve)

  const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 2000 });
  const sns = createSnsAdapter({ rpcUrl: solChain.url, timeoutMs: 2000 });
  universal = createUniversalService({ chain: reader, suffixes: ['x1', 'xnt', 'xen'], sns });
  bare = createUniversalService({ chain: reader, suffixes: ['x1', 'xnt', 'xen'] });
}, 60_000);
afterAll(async () => {
  await chain?.close();
  await solChain?.close();
});

const wallet = (name: string) => scenario.wallets[name]!.address;

describe('SNS derivation (real program ids and hashing prefix)', () => {
  it('matches the published account keys of bonfida.sol and dex.bonfida.sol', async () => {
    expect(base58.encode(snsHashedName('bonfida'))).toBe('AcmVjPtaDyNboWGSKjYHxea1QDgN648T4Je3HUpkHecf');
    expect((await snsKeys(['bonfida'])).domain).toBe('Crf8hzfthWGbGbLTVCiqRqV5MVnbpHB1L9KQMd6gsinb');
    expect((await snsKeys(['dex', 'bonfida'])).domain).toBe('HoFfFXqFHAC8RP3duuQNzag1ieUwJRBv1HtRNiWFq4Qu');
  });
});

describe('native namespaces', () => {
  it('handle → authority on X1 (default), verified', async () => {
    expect(await universal.resolveUniversal('@Alice')).toEqual({
      input: '@Alice',
      name: 'alice',
      namespace: 'handle',
      address: wallet('alice'),
      chain: 'X1',
      source: 'sigil',
      verified: true,
    });
  });
  it('tokenized handle → the NFT holder, not the recorded owner', async () => {
    expect((await universal.resolveUniversal('vault')).address).toBe(wallet('dave'));
  });
  it('handle → address records for SOL/ETH/BTC with their verification status', async () => {
    expect(await universal.resolveUniversal('alice', 'sol')).toMatchObject({
      chain: 'SOL',
      address: wallet('aliceSol'),
      verified: true,
    });
    expect(await universal.resolveUniversal('alice', 'ETH')).toMatchObject({
      address: scenario.foreignKeys.alice!.eth,
      verified: true,
    });
    expect(await universal.resolveUniversal('alice', 'BTC')).toMatchObject({
      address: scenario.foreignKeys.alice!.btc,
      verified: false,
    });
    expect(await universal.resolveUniversal('bob', 'BTC')).toMatchObject({
      address: scenario.foreignKeys.bob!.btc,
      verified: true,
    });
    expect(await universal.resolveUniversal('bob', 'SOL')).toMatchObject({ verified: false });
  });
  it('domains → owner on X1 in their TLD namespace; no records for other chains', async () => {
    expect(await universal.resolveUniversal('forge.xnt')).toEqual({
      input: 'forge.xnt',
      name: 'forge.xnt',
      namespace: 'xnt',
      address: wallet('alice'),
      chain: 'X1',
      source: 'sigil',
      verified: true,
    });
    expect(await universal.resolveUniversal('ember.xen')).toMatchObject({ namespace: 'xen', address: wallet('bob') });
    expect(await failure(universal.resolveUniversal('forge.xnt', 'SOL'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'forge.xnt has no SOL address',
    });
  });
  it('errors: 404 NO_RECORD_FOR_CHAIN, 404 HANDLE/DOMAIN_NOT_REGISTERED, 409 AMBIGUOUS, 400 INVALID_*, 400 bad chain', async () => {
    expect(await failure(universal.resolveUniversal('satoshi', 'ETH'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: '@satoshi has no ETH address',
    });
    expect(await failure(universal.resolveUniversal('nobody'))).toMatchObject({
      status: 404,
      code: 'HANDLE_NOT_REGISTERED',
    });
    expect(await failure(universal.resolveUniversal('nope.x1'))).toMatchObject({
      status: 404,
      code: 'DOMAIN_NOT_REGISTERED',
    });
    expect(await failure(universal.resolveUniversal('@satoshi.x1'))).toMatchObject({ status: 409, code: 'AMBIGUOUS' });
    expect(await failure(universal.resolveUniversal('bad name'))).toMatchObject({
      status: 400,
      code: 'INVALID_HANDLE',
    });
    expect(await failure(universal.resolveUniversal('-x.x1'))).toMatchObject({ status: 400, code: 'INVALID_DOMAIN' });
    expect(await failure(universal.resolveUniversal('foo.sns'))).toMatchObject({ status: 400, code: 'INVALID_NAME' });
    expect(await failure(universal.resolveUniversal('alice', 'DOGE'))).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'chain must be X1, SOL, ETH or BTC (got "DOGE")',
    });
  });
  it('502 when the registry RPC is down', async () => {
    chain.faults.set({ unreachable: true });
    try {
      expect(await failure(universal.resolveUniversal('alice'))).toMatchObject({ status: 502, code: 'RPC_ERROR' });
    } finally {
      chain.faults.clear();
    }
  });
});

describe('sol namespace (SNS)', () => {
  it('owner when there is no record; SOL is the default chain', async () => {
    expect(await universal.resolveUniversal('bonfida.sol')).toEqual({
      input: 'bonfida.sol',
      name: 'bonfida.sol',
      namespace: 'sol',
      address: k.owner!.address,
      chain: 'SOL',
      source: 'sns',
      verified: true,
    });
    expect((await universal.resolveUniversal('dex.bonfida.sol')).address).toBe(k.subOwner!.address);
  });
  it('SOL record V2 with valid staleness and right of association wins, verified', async () => {
    expect(await universal.resolveUniversal('paid.sol', 'SOL')).toMatchObject({
      address: k.payee!.address,
      verified: true,
    });
  });
  it('a stale V2 record is skipped; a V1 record signed by the owner is used, unverified', async () => {
    expect(await universal.resolveUniversal('stale.sol')).toMatchObject({
      address: k.v1payee!.address,
      verified: false,
    });
  });
  it('a V1 record signed by someone else is ignored (owner)', async () => {
    expect(await universal.resolveUniversal('forged.sol')).toMatchObject({ address: k.owner!.address, verified: true });
  });
  it('tokenized → the NFT holder', async () => {
    expect(await universal.resolveUniversal('nft.sol')).toMatchObject({ address: k.holder!.address, verified: true });
  });
  it('refusals: wrong RoA, non-Solana validation, PDA owner, burned NFT, unregistered, other chains', async () => {
    expect(await failure(universal.resolveUniversal('badroa.sol'))).toMatchObject({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
    });
    expect(await failure(universal.resolveUniversal('unvalidated.sol'))).toMatchObject({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
    });
    expect(await failure(universal.resolveUniversal('pda.sol'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'pda.sol is owned by a program-derived address and has no SOL record',
    });
    expect(await failure(universal.resolveUniversal('burned.sol'))).toMatchObject({
      status: 404,
      code: 'NAME_NOT_FOUND',
    });
    expect(await failure(universal.resolveUniversal('nobody.sol'))).toEqual({
      status: 404,
      code: 'NAME_NOT_FOUND',
      message: 'nobody.sol is not registered',
    });
    expect(await failure(universal.resolveUniversal('bonfida.sol', 'X1'))).toMatchObject({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
    });
    expect(await failure(universal.resolveUniversal('a.b.c.sol'))).toMatchObject({ status: 400, code: 'INVALID_NAME' });
  });
  it('501 NOT_CONFIGURED without SIGIL_SOL_RPC_URL / SIGIL_ETH_RPC_URL, never a made-up address', async () => {
    expect(await failure(bare.resolveUniversal('bonfida.sol'))).toEqual({
      status: 501,
      code: 'NOT_CONFIGURED',
      message: 'the sol namespace (Solana Name Service) is not enabled on this deployment',
    });
    expect(await failure(bare.resolveUniversal('vitalik.eth'))).toMatchObject({ status: 501, code: 'NOT_CONFIGURED' });
  });
  it('502 when the Solana RPC is down', async () => {
    solChain.faults.set({ unreachable: true });
    try {
      expect(await failure(universal.resolveUniversal('bonfida.sol'))).toEqual({
        status: 502,
        code: 'RPC_ERROR',
        message: 'the Solana RPC is unreachable',
      });
    } finally {
      solChain.faults.clear();
    }
  });
});

describe('GET /v1/resolve service', () => {
  it('public fields + live address records with verification + the slot read at', async () => {
    const r = await universal.resolve('@alice');
    expect(r).toMatchObject({
      input: '@alice',
      name: 'alice',
      namespace: 'handle',
      owner: wallet('alice'),
      tokenized: false,
      verification: 'owner',
      authority: wallet('alice'),
      handleType: 0,
    });
    expect(r.addresses.map((a) => [a.chain, a.address, a.verified])).toEqual([
      ['BTC', scenario.foreignKeys.alice!.btc, false],
      ['ETH', scenario.foreignKeys.alice!.eth, true],
      ['SOL', wallet('aliceSol'), true],
      ['X1', wallet('alice'), true],
    ]);
    expect(r.addresses.find((a) => a.chain === 'BTC')!.verifiedAt).toBeNull();
    expect(r.slot).toBeGreaterThan(0);
    expect(r.slot).toBeLessThanOrEqual(Number(chain.slot('confirmed')));
    expect(await universal.resolve('vault')).toMatchObject({
      tokenized: true,
      verification: 'nft-holder',
      owner: wallet('carol'),
      authority: wallet('dave'),
    });
    expect(await universal.resolve('satoshi.x1')).toMatchObject({ namespace: 'x1', handleType: null, addresses: [] });
    expect(await failure(universal.resolve('bonfida.sol'))).toMatchObject({ status: 400, code: 'INVALID_NAME' });
  });
});

describe("the keyed face's bounded cache", () => {
  /** The reader with a count of its calls: what each answer cost in chain reads. */
  function countingReader(): { reader: ChainReader; reads: () => number } {
    const inner = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 2000 });
    let reads = 0;
    const reader = new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    return { reader, reads: () => reads };
  }
  const suffixes = ['x1', 'xnt', 'xen'];

  it('a warm name costs no chain read, and answers exactly what the cold read did', async () => {
    const { reader, reads } = countingReader();
    const cached = createUniversalService({ chain: reader, suffixes, natives: createNativeCache(60_000) });
    const cold = await cached.resolve('@alice');
    const coldReads = reads();
    expect(coldReads).toBeGreaterThan(0);
    expect(await cached.resolve('@alice')).toEqual(cold);
    expect(await cached.resolve('alice')).toEqual({ ...cold, input: 'alice' });
    expect(await cached.resolveUniversal('alice', 'ETH')).toMatchObject({ address: scenario.foreignKeys.alice!.eth });
    expect(reads()).toBe(coldReads);
  });

  it('concurrent misses of one name share one read; a definitive refusal is kept, an RPC failure is not', async () => {
    const { reader, reads } = countingReader();
    const uncached = createUniversalService({ chain: reader, suffixes });
    await uncached.resolve('vault');
    const oneRead = reads();
    const cached = createUniversalService({ chain: reader, suffixes, natives: createNativeCache(60_000) });
    await Promise.all(Array.from({ length: 10 }, () => cached.resolve('vault')));
    expect(reads()).toBe(2 * oneRead);

    const before = reads();
    const refusal = { status: 404, code: 'HANDLE_NOT_REGISTERED', message: '@nobody is not registered' };
    expect(await failure(cached.resolve('nobody'))).toEqual(refusal);
    const afterFirst = reads();
    expect(afterFirst).toBeGreaterThan(before);
    expect(await failure(cached.resolve('nobody'))).toEqual(refusal);
    expect(reads()).toBe(afterFirst);

    chain.faults.set({ unreachable: true });
    try {
      expect(await failure(cached.resolve('satoshi.x1'))).toMatchObject({ status: 502, code: 'RPC_ERROR' });
    } finally {
      chain.faults.clear();
    }
    expect(await cached.resolve('satoshi.x1')).toMatchObject({ name: 'satoshi.x1', namespace: 'x1' });
  });

  it('resolve reports when the cached read behind its answer leaves the bound; no cache, no report', async () => {
    const asked: string[] = [];
    const natives: ReadCache<NativeOutcome> = {
      get: (_key, load) => load(),
      expiresAt: (key) => (asked.push(key), 4242),
      clear() {},
    };
    const cached = createUniversalService({ chain: countingReader().reader, suffixes, natives });
    const replay: { until?: number } = {};
    expect(await cached.resolve('@alice', replay)).toMatchObject({ name: 'alice' });
    expect(replay).toEqual({ until: 4242 });
    expect(asked).toEqual(['handle:alice:records']);

    const fresh: { until?: number } = {};
    await createUniversalService({ chain: countingReader().reader, suffixes }).resolve('@alice', fresh);
    expect(fresh).toEqual({});
  });

  it('with a bound of 0 every keyed resolve reads the chain (SIGIL_RESOLVE_CACHE_MS=0)', async () => {
    const { reader, reads } = countingReader();
    const off = createUniversalService({ chain: reader, suffixes, natives: createNativeCache(0) });
    await off.resolve('@alice');
    const one = reads();
    await off.resolve('@alice');
    expect(reads()).toBe(2 * one);
  });
});

describe('batch', () => {
  it('one item per name in order, errors as items, duplicates resolved once', async () => {
    const { results } = await universal.resolveBatch(
      ['alice', 'nobody', 'bonfida.sol', 'alice', 'bad name'],
      undefined,
    );
    expect(results.map((r) => [r.input, r.ok, r.result?.address ?? r.error?.code])).toEqual([
      ['alice', true, wallet('alice')],
      ['nobody', false, 'HANDLE_NOT_REGISTERED'],
      ['bonfida.sol', true, k.owner!.address],
      ['alice', true, wallet('alice')],
      ['bad name', false, 'INVALID_HANDLE'],
    ]);
    expect(results[1]!.error).toEqual({
      status: 404,
      code: 'HANDLE_NOT_REGISTERED',
      message: '@nobody is not registered',
    });
    expect(await failure(universal.resolveBatch(['alice'], 'LTC'))).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });

  it("reads a batch's handles in one getMultipleAccounts and answers each name as the single endpoint does", async () => {
    const calls: string[] = [];
    const reader = createChainReader({
      rpcUrl: chain.url,
      programId: chain.programId,
      timeoutMs: 2000,
      onRpcCall: ({ method }) => void calls.push(method),
    });
    const counted = createUniversalService({ chain: reader, suffixes: ['x1', 'xnt', 'xen'] });
    const names = ['alice', 'bob', 'Alice', '@bob', 'satoshi', ...Array.from({ length: 40 }, (_, i) => `nobody${i}`)];
    for (const chainParam of [undefined, 'SOL']) {
      calls.length = 0;
      const { results } = await counted.resolveBatch(names, chainParam);
      const handleReads = calls.filter((m) => m === 'getAccountInfo' || m === 'getMultipleAccounts');
      expect(handleReads).toEqual(['getMultipleAccounts']);
      for (const [i, name] of names.entries()) {
        const single = await counted.resolveUniversal(name, chainParam).then(
          (result) => ({ input: name, ok: true, result }),
          (err) => ({ input: name, ok: false, error: { status: err.status, code: err.code, message: err.message } }),
        );
        expect(results[i]).toStrictEqual(single);
      }
    }
  });
});
