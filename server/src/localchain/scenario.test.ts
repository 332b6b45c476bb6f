// The demo scenario: deterministic, served at /scenario, and every case holds when read through the service's
// own chain reader and trust rules (server/src/platform/chain).
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyName } from '@sigil/contract/names';
import { createChainReader } from '../platform/chain/reader';
import { isAttestationLive, isRecordVerified, primaryTrusted } from '../platform/chain/trust-rules';
import type { ChainReader } from '../platform/chain/types';
import { decodeMarketAccount } from '../platform/chain/registry';
import { startLocalChain, type LocalChain, type Scenario } from './index';
import { demoWallet } from './scenario';

let chain: LocalChain;
let scenario: Scenario;
let reader: ChainReader;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false });
  scenario = chain.scenario!;
  reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
});
afterAll(() => chain.close());

const now = () => chain.ledger.blockTime(chain.slot());

async function handle(name: string) {
  const { value } = await reader.getHandle(name, 'finalized');
  expect(value, `handle ${name}`).not.toBeNull();
  return value!;
}

async function reverse(wallet: string) {
  const pointer = await reader.getPrimary(wallet as never, 'finalized');
  if (!pointer) return { pointer: null, trusted: false };
  const target = (await reader.getHandleByAddress(pointer.handle, 'finalized'))!;
  const authority = await reader.getHandleAuthority(target, 'finalized');
  return { pointer, target, trusted: primaryTrusted(pointer, target, authority) };
}

describe('GET /scenario', () => {
  it('serves the scenario with every documented field', async () => {
    const served = (await (await fetch(`${chain.url}/scenario`)).json()) as Scenario;
    expect(served).toEqual(JSON.parse(JSON.stringify(scenario)));
    expect(served.rpcUrl).toBe(chain.url);
    expect(served.programId).toBe(chain.programId);
    expect(Object.keys(served.cases).sort()).toEqual(
      [
        'agent',
        'agentAttestationRevoked',
        'agentL2',
        'agentManifestUnreachable',
        'agentNoAttestation',
        'agentPayToMismatch',
        'agentProbeNot402',
        'agentProbeRedirect',
        'agentProbeUnreachable',
        'attestations',
        'domainX1',
        'domainXen',
        'domainXnt',
        'handleAndDomainShaped',
        'handleWithoutPrimary',
        'marketAuction',
        'marketGift',
        'marketLease',
        'marketListing',
        'marketOffer',
        'plainWithPrimary',
        'primaryHandleReleased',
        'primaryLostAuthority',
        'primarySetBeforeRegistration',
        'revokedAndExpiredAttestations',
        'tokenizedHeldByOther',
        'unregistered',
        'unverifiedAddressRecords',
        'verifiedAddressRecords',
      ].sort(),
    );
  });

  it('wallets are deterministic and their secret keys are real 64-byte keypairs', async () => {
    for (const [name, wallet] of Object.entries(scenario.wallets)) {
      expect(wallet.address).toBe((await demoWallet(name)).address);
      const bytes = getBase58Encoder().encode(wallet.secretKey);
      expect(bytes.length).toBe(64);
      expect((await createKeyPairSignerFromBytes(bytes)).address).toBe(wallet.address);
    }
    const again = await startLocalChain({ autoAdvance: false });
    try {
      expect(again.scenario!.wallets).toEqual(scenario.wallets);
      expect(again.scenario!.handles).toEqual(scenario.handles);
      expect(again.scenario!.cases).toEqual(scenario.cases);
    } finally {
      await again.close();
    }
  });

  it('payer wallets are funded with native tokens and USDX', async () => {
    for (const payer of ['payer1', 'payer2']) {
      const address = scenario.wallets[payer]!.address;
      expect((await chain.rpc.getBalance(address, { commitment: 'finalized' }).send()).value).toBeGreaterThan(
        90_000_000_000n,
      );
    }
    const largest = await chain.rpc
      .getTokenLargestAccounts(scenario.mints.usdx!.address, { commitment: 'finalized' })
      .send();
    expect(largest.value.map((v) => v.uiAmountString)).toEqual(['1000', '993', '7']);
  });
});

describe('cases, read through the service chain reader', () => {
  it('plainWithPrimary: owner is authority and the pointer is trusted', async () => {
    const h = await handle(scenario.cases.plainWithPrimary!);
    expect(h.owner).toBe(scenario.wallets.alice!.address);
    const r = await reverse(scenario.reverse.plainWithPrimary!);
    expect(r.trusted).toBe(true);
    expect(r.target!.name).toBe('alice');
  });

  it('tokenizedHeldByOther: NFT holder ≠ recorded owner; holder primary trusted, old owner primary not', async () => {
    const h = await handle(scenario.cases.tokenizedHeldByOther!);
    expect(h.tokenized).toBe(true);
    expect(h.owner).toBe(scenario.wallets.carol!.address);
    expect(await reader.getHandleAuthority(h, 'finalized')).toEqual({
      authority: scenario.wallets.dave!.address,
      source: 'nft-holder',
    });
    expect((await reverse(scenario.reverse.tokenizedHolder!)).trusted).toBe(true);
    expect((await reverse(scenario.reverse.tokenizedOwnerLostAuthority!)).trusted).toBe(false);
  });

  it('primarySetBeforeRegistration: pointer from epoch 1, handle now in epoch 2', async () => {
    const h = await handle(scenario.cases.primarySetBeforeRegistration!);
    expect(h.registrationEpoch).toBe(2n);
    const r = await reverse(scenario.reverse.primarySetBeforeRegistration!);
    expect(r.pointer!.handleEpoch).toBe(1n);
    expect(r.pointer!.setSlot).toBeLessThan(h.registeredSlot);
    expect((await reader.getHandleAuthority(h, 'finalized')).authority).toBe(r.pointer!.wallet); // still the authority…
    expect(r.trusted).toBe(false); // …but the pointer predates the registration
  });

  it('primaryLostAuthority: the wallet transferred the handle away', async () => {
    const h = await handle(scenario.cases.primaryLostAuthority!);
    const r = await reverse(scenario.reverse.primaryLostAuthority!);
    expect(r.pointer!.handle).toBe(h.address);
    expect(h.owner).toBe(scenario.wallets.heidi!.address);
    expect(r.trusted).toBe(false);
    expect(await reader.getPrimary(scenario.reverse.noPrimary! as never, 'finalized')).toBeNull();
  });

  it('agent: handleType 3 with agent.manifest and agent.mcp', async () => {
    const h = await handle(scenario.cases.agent!);
    expect(h.handleType).toBe(3);
    const records = await reader.getRecords(h.address, 'finalized');
    const text = Object.fromEntries(records.filter((r) => r.kind === 'text').map((r) => [r.key, r.value]));
    expect(text).toEqual({
      'agent.manifest': `${chain.agentHost!.origin}/scout/manifest.json`,
      'agent.mcp': 'https://agents.example/scout/mcp',
    });
  });

  it('attestations: live x and github on alice; revoked x and expired github on bob', async () => {
    const alice = await handle(scenario.cases.attestations!);
    const live = (await reader.getAttestations(alice.address, 'finalized')).filter((a) => isAttestationLive(a, now()));
    expect(live.map((a) => [a.platform, a.subject]).sort()).toEqual([
      ['github', 'alice-dev'],
      ['x', 'alice_onchain'],
    ]);
    const bob = await handle(scenario.cases.revokedAndExpiredAttestations!);
    const bobs = await reader.getAttestations(bob.address, 'finalized');
    expect(bobs).toHaveLength(2);
    expect(bobs.filter((a) => isAttestationLive(a, now()))).toEqual([]);
  });

  it('address records: X1/SOL/ETH verified + BTC unverified on alice, the opposite on bob', async () => {
    const verifiedByChain = async (name: string) => {
      const h = await handle(name);
      const authority = await reader.getHandleAuthority(h, 'finalized');
      const records = (await reader.getRecords(h.address, 'finalized')).filter((r) => r.kind === 'address');
      return Object.fromEntries(records.map((r) => [r.key, isRecordVerified(r, h, authority)]));
    };
    expect(await verifiedByChain(scenario.cases.verifiedAddressRecords!)).toEqual({
      X1: true,
      SOL: true,
      ETH: true,
      BTC: false,
    });
    expect(await verifiedByChain(scenario.cases.unverifiedAddressRecords!)).toEqual({
      X1: false,
      SOL: false,
      ETH: false,
      BTC: true,
    });
  });

  it('domains under x1, xnt and xen', async () => {
    for (const key of ['domainX1', 'domainXnt', 'domainXen']) {
      const [label, tld] = scenario.cases[key]!.split('.') as [string, string];
      const { value } = await reader.getDomain(label, tld, 'finalized');
      expect(value).toMatchObject({ label, tld });
    }
  });

  it('handleAndDomainShaped: `@satoshi.x1` classifies as ambiguous and both sides exist on chain', async () => {
    const input = scenario.cases.handleAndDomainShaped!;
    expect(classifyName(input).kind).toBe('ambiguous');
    await handle('satoshi.x1');
    await handle('satoshi');
    expect((await reader.getDomain('satoshi', 'x1', 'finalized')).value).not.toBeNull();
  });

  it('unregistered: no account', async () => {
    expect((await reader.getHandle(scenario.cases.unregistered!, 'finalized')).value).toBeNull();
  });

  it('invoices: open, paid (native and USDX), cancelled', async () => {
    const statuses = Object.fromEntries(
      await Promise.all(
        Object.entries(scenario.invoices).map(async ([key, inv]) => [
          key,
          (await reader.getInvoice(inv.account as never, 'finalized'))!.status,
        ]),
      ),
    );
    expect(statuses).toEqual({ 'alice-1': 0, 'alice-2': 1, 'alice-3': 2, 'alice-4': 0, 'alice-5': 1 });
    expect(Object.values(scenario.invoices).map((i) => i.status)).toEqual([
      'open',
      'paid',
      'cancelled',
      'open',
      'paid',
    ]);
  });

  it('seeds one handle in each market state, readable with the market layouts', async () => {
    const data = async (account: string) => {
      const info = await chain.rpc
        .getAccountInfo(account as never, { encoding: 'base64', commitment: 'finalized' })
        .send();
      return new Uint8Array(Buffer.from(info.value!.data[0], 'base64'));
    };
    const { market, wallets, handles } = scenario;
    expect(Object.keys(market)).toEqual(['offer', 'listing', 'auction', 'gift', 'lease']);
    expect(decodeMarketAccount('Offer', await data(market.offer!.account))).toMatchObject({
      handle: handles.bazaar!.account,
      buyer: wallets.payer2!.address,
      amount: 500_000_000n,
    });
    expect(decodeMarketAccount('Listing', await data(market.listing!.account))).toMatchObject({
      handle: handles.exhibit!.account,
      seller: wallets.heidi!.address,
      price: 2_000_000_000n,
    });
    const auction = decodeMarketAccount('Auction', await data(market.auction!.account));
    expect(auction).toMatchObject({
      seller: wallets.grace!.address,
      highBidder: wallets.payer1!.address,
      highBid: 1_000_000_000n,
    });
    expect(auction.endAt - auction.startAt).toBe(7 * 86_400);
    expect(decodeMarketAccount('Voucher', await data(market.gift!.account))).toMatchObject({
      creator: wallets.dave!.address,
      recipient: wallets.erin!.address,
      handle: handles.ribbon!.account,
    });
    expect(decodeMarketAccount('Lease', await data(market.lease!.account))).toMatchObject({
      lessee: wallets.payer2!.address,
      paid: 25_000_000n,
      totalPrice: 100_000_000n,
    });
    // Who controls each, as the service reads it.
    const authority = async (name: string) => {
      const handle = (await reader.getHandle(name, 'finalized')).value!;
      return (await reader.getHandleAuthority(handle, 'finalized')).authority;
    };
    expect(await authority('bazaar')).toBe(wallets.bob!.address);
    expect(await authority('exhibit')).toBe(wallets.heidi!.address);
    expect(await authority('gavel')).toBe(wallets.grace!.address);
    expect(await authority('ribbon')).toBe(market.gift!.account);
    expect(await authority('tenant')).toBe(wallets.payer2!.address);
  });

  it('every scenario account has transaction history', async () => {
    for (const h of Object.values(scenario.handles)) {
      expect(
        (await chain.rpc.getSignaturesForAddress(h.account as never, { commitment: 'finalized' }).send()).length,
      ).toBeGreaterThan(0);
    }
  });
});
