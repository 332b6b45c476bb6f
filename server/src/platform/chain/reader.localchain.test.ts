// The reader against the real local chain (LiteSVM + registry emulator) and its seeded demo scenario:
// the same layouts written by the emulator are read back over HTTP JSON-RPC, and faults map to ChainError kinds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from '@solana/kit';
import { startLocalChain, type LocalChain, type Scenario } from '../../localchain';
import { createChainReader } from './reader';
import { isAttestationLive, isRecordVerified, primaryTrusted } from './trust-rules';
import { ChainError, type ChainReader, type RpcCallEvent } from './types';

let chain: LocalChain;
let scenario: Scenario;
let reader: ChainReader;
const events: RpcCallEvent[] = [];

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: true });
  scenario = chain.scenario!;
  reader = createChainReader({
    rpcUrl: chain.url,
    programId: chain.programId,
    timeoutMs: 2000,
    onRpcCall: (e) => events.push(e),
  });
}, 60_000);
afterAll(() => chain?.close());

const wallet = (name: string) => scenario.wallets[name]!.address;

async function reverse(address: Address): Promise<string | null> {
  const pointer = await reader.getPrimary(address);
  if (!pointer) return null;
  const handle = await reader.getHandleByAddress(pointer.handle);
  if (!handle) return null;
  return primaryTrusted(pointer, handle, await reader.getHandleAuthority(handle)) ? handle.name : null;
}

describe('chain reader over the local chain', () => {
  it('reads a plain handle, its verified records and live attestations', async () => {
    const { value: alice, slot } = await reader.getHandle('alice');
    expect(slot).toBeGreaterThan(0n);
    expect(alice).toMatchObject({ name: 'alice', owner: wallet('alice'), tokenized: false, registrationEpoch: 1n });
    const authority = await reader.getHandleAuthority(alice!);
    expect(authority).toEqual({ authority: wallet('alice'), source: 'owner' });

    const records = await reader.getRecords(alice!.address);
    const verified = Object.fromEntries(
      records.filter((r) => r.kind === 'address').map((r) => [r.key, isRecordVerified(r, alice!, authority)]),
    );
    expect(verified).toEqual({ BTC: false, ETH: true, SOL: true, X1: true });
    expect(records.find((r) => r.key === 'X1')?.value).toBe(wallet('alice'));

    const now = Math.floor(Date.now() / 1000);
    const attestations = await reader.getAttestations(alice!.address);
    expect(attestations.map((a) => [a.platform, a.subject, isAttestationLive(a, now)])).toEqual([
      ['github', 'alice-dev', true],
      ['x', 'alice_onchain', true],
    ]);
    expect(events.every((e) => e.error === undefined)).toBe(true);
  });

  it('the batched handle + attestations read over real HTTP equals the two separate reads', async () => {
    const batched = await reader.getHandleWithAttestations('alice', 'finalized');
    const handle = await reader.getHandle('alice', 'finalized');
    expect(batched.handle.value).toEqual(handle.value);
    expect(batched.attestations).toEqual(await reader.getAttestations(handle.value!.address, 'finalized'));
    expect(batched.attestations!.map((a) => a.platform)).toEqual(['github', 'x']);
  });

  it('tokenized handle: authority follows the NFT holder in its ATA, not the recorded owner', async () => {
    const { value: vault } = await reader.getHandle(scenario.cases.tokenizedHeldByOther!);
    expect(vault).toMatchObject({ owner: wallet('carol'), tokenized: true });
    expect(await reader.getHandleAuthority(vault!)).toEqual({ authority: wallet('dave'), source: 'nft-holder' });
  });

  it('reverse trust rules: holder yes; lost authority, pre-registration pointer, no pointer: no', async () => {
    expect(await reverse(scenario.reverse.plainWithPrimary!)).toBe('alice');
    expect(await reverse(scenario.reverse.tokenizedHolder!)).toBe('vault');
    expect(await reverse(scenario.reverse.tokenizedOwnerLostAuthority!)).toBeNull();
    expect(await reverse(scenario.reverse.primarySetBeforeRegistration!)).toBeNull();
    expect(await reverse(scenario.reverse.primaryLostAuthority!)).toBeNull();
    expect(await reverse(scenario.reverse.noPrimary!)).toBeNull();
    expect((await reader.getHandle('phoenix')).value?.registrationEpoch).toBe(2n);
  });

  it('domains, invoices (finalized), cluster identity', async () => {
    expect((await reader.getDomain('forge', 'xnt')).value).toMatchObject({
      label: 'forge',
      tld: 'xnt',
      owner: wallet('alice'),
    });
    expect((await reader.getDomain('forge', 'xen')).value).toBeNull();
    const paid = await reader.getInvoice(scenario.invoices['alice-2']!.account);
    expect(paid).toMatchObject({ status: 1, paidBy: wallet('payer1'), id: 2n, memo: 'Consulting call' });
    expect(await reader.getGenesisHash()).toBe(scenario.genesisHash);
    expect(typeof (await reader.getVersion())['solana-core']).toBe('string');
    expect(await reader.getSlot('finalized')).toBeLessThanOrEqual(await reader.getSlot('processed'));
  });

  it('mints (program and decimals) and the latest blockhash, for building transactions', async () => {
    const usdx = scenario.mints.usdx!;
    expect(await reader.getMint(usdx.address)).toEqual({
      address: usdx.address,
      tokenProgram: usdx.tokenProgram,
      decimals: usdx.decimals,
    });
    const wrapped = 'So11111111111111111111111111111111111111112' as Address;
    expect(await reader.getMint(wrapped)).toMatchObject({ decimals: 9 });
    expect(await reader.getMint('Mint111111111111111111111111111111111111111' as Address)).toBeNull();
    // A wallet is not a mint: its owner is the system program.
    await expect(reader.getMint(wallet('alice'))).rejects.toMatchObject({ kind: 'malformed' });
    const latest = await reader.getLatestBlockhash();
    // `confirmed`, one slot behind the processed blockhash the chain's own helper gives.
    expect(latest.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(latest.lastValidBlockHeight).toBeGreaterThan(0n);
  });

  it('faults: malformed account data → malformed; RPC error, HTTP 500, unreachable, slow → unreachable', async () => {
    const { value: alice } = await reader.getHandle('alice');
    const kindOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e) => (e instanceof ChainError ? e.kind : `other: ${e}`),
      );
    try {
      chain.faults.replace({ malformedAccounts: [alice!.address] });
      expect(await kindOf(reader.getHandle('alice'))).toBe('malformed');
      chain.faults.replace({ rpcError: { code: -32005, message: 'Node is unhealthy' } });
      expect(await kindOf(reader.getSlot())).toBe('unreachable');
      chain.faults.replace({ httpStatus: 500 });
      expect(await kindOf(reader.getSlot())).toBe('unreachable');
      chain.faults.replace({ unreachable: true });
      expect(await kindOf(reader.getSlot())).toBe('unreachable');
      const quick = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 150 });
      chain.faults.replace({ delayMs: 1000 });
      expect(await kindOf(quick.getSlot())).toBe('unreachable');
    } finally {
      chain.faults.clear();
    }
    expect(await kindOf(reader.getHandle('alice'))).toBe('ok');
  });
  it('scans every handle of the registry, and the text records of one key across handles', async () => {
    const { accounts, undecodable } = await reader.scanHandles();
    expect(undecodable).toEqual([]);
    expect(accounts.map((h) => h.name).sort()).toEqual(Object.keys(scenario.handles).sort());
    const scout = accounts.find((h) => h.name === 'scout')!;
    expect(scout).toMatchObject({ address: scenario.handles.scout!.account, owner: wallet('ivan'), handleType: 3 });

    // Every demo agent declares its manifest in an `agent.manifest` record, and only they do.
    const manifests = await reader.scanTextRecords('agent.manifest');
    const byAddress = new Map(accounts.map((h) => [h.address, h.name]));
    expect(manifests.accounts.map((r) => [byAddress.get(r.handle), r.key, r.kind]).sort()).toEqual(
      Object.keys(scenario.agents)
        .sort()
        .map((name) => [name, 'agent.manifest', 'text']),
    );
    expect(manifests.accounts.map((r) => r.handle)).toContain(scout.address);
    // The key is matched exactly (length included): a prefix of it, or another key, finds nothing.
    expect((await reader.scanTextRecords('agent.man')).accounts).toEqual([]);
    expect((await reader.scanTextRecords('url')).accounts.map((r) => r.value)).toEqual(['https://alice.example']);
  });

  it('a handle scan does not fail on one malformed account', async () => {
    const { value: alice } = await reader.getHandle('alice');
    try {
      chain.faults.replace({ malformedAccounts: [alice!.address] });
      const { accounts } = await reader.scanHandles();
      expect(accounts.map((h) => h.name)).not.toContain('alice');
      expect(accounts.map((h) => h.name)).toContain('bob');
    } finally {
      chain.faults.clear();
    }
  });
});
