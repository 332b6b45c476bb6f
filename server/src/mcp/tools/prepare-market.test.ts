// prepare_offer and prepare_bid on the real local chain with the demo scenario's market: what the tools prepare lands
// when a scenario wallet signs it, and what would fail comes back as the program error by name, not a transaction.
import { describe, expect, it } from 'vitest';
import type { Address } from '@solana/kit';
import { runTool, scenarioWallet, signAndSend, useToolApp } from '@sigil/test/support/mcp-prepare';
import { prepareBidTool, prepareOfferTool } from './prepare-market';

const t = useToolApp();

const wallet = (name: string) => t.app.chain.scenario!.wallets[name]!.address;

describe('prepare_offer', () => {
  it('prepares an offer that a scenario wallet signs and sends; the offer account then holds the amount', async () => {
    const carol = await scenarioWallet(t.app.chain, 'carol');
    const outcome = await runTool(
      prepareOfferTool,
      { handle: '@bazaar', buyer: carol.address, amount: '250000000' },
      t.deps,
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.value.instruction.accounts.map((a) => [a.name, a.role])).toEqual([
      ['buyer', 'writable-signer'],
      ['handle', 'readonly'],
      ['offer', 'writable'],
      ['systemProgram', 'readonly'],
    ]);
    await signAndSend(t.app.chain, outcome.value.transaction.base64, [carol]);
    const offer = await t.deps.chain.getMarketAccount('Offer', outcome.value.marketAccount as Address, 'confirmed');
    expect(offer).toMatchObject({ buyer: carol.address, amount: 250_000_000n });
  });

  it('names what would fail: a tokenized handle (HandleIsTokenized), a second offer (AccountAlreadyInUse, 0x0)', async () => {
    expect(await runTool(prepareOfferTool, { handle: 'exhibit', buyer: wallet('carol'), amount: '1' }, t.deps)).toEqual(
      {
        ok: false,
        code: 'PROGRAM_ERROR',
        message:
          'HandleIsTokenized (0x1781, instruction 0): offers, auctions, recovery on a tokenized name ' +
          '(@exhibit is tokenized: buy its listing instead)',
      },
    );
    expect(await runTool(prepareOfferTool, { handle: 'bazaar', buyer: wallet('payer2'), amount: '9' }, t.deps)).toEqual(
      {
        ok: false,
        code: 'PROGRAM_ERROR',
        message: 'AccountAlreadyInUse (0x0, instruction 0): second offer from same wallet on same name',
      },
    );
  });

  it('refuses bad input before reading the chain', async () => {
    const carol = wallet('carol');
    expect(await runTool(prepareOfferTool, { handle: 'bad name', buyer: carol, amount: '1' }, t.deps)).toMatchObject({
      code: 'INVALID_HANDLE',
    });
    expect(await runTool(prepareOfferTool, { handle: 'bazaar', buyer: 'x', amount: '1' }, t.deps)).toMatchObject({
      code: 'INVALID_WALLET',
    });
    for (const amount of ['0', '-1', '1.5', '18446744073709551616', '']) {
      expect(await runTool(prepareOfferTool, { handle: 'bazaar', buyer: carol, amount }, t.deps), amount).toMatchObject(
        {
          code: 'BAD_REQUEST',
        },
      );
    }
    expect(await runTool(prepareOfferTool, { handle: 'nobody', buyer: carol, amount: '1' }, t.deps)).toMatchObject({
      code: 'HANDLE_NOT_REGISTERED',
    });
  });
});

describe('prepare_bid', () => {
  it('names what would fail: the seller (SellerCannotBid), under 5 % (BidTooLow); no auction is NOT_FOUND', async () => {
    expect(
      await runTool(prepareBidTool, { handle: 'gavel', bidder: wallet('grace'), amount: '2000000000' }, t.deps),
    ).toMatchObject({
      ok: false,
      code: 'PROGRAM_ERROR',
      message: expect.stringMatching(/^SellerCannotBid \(0x1799, instruction 0\): /),
    });
    expect(
      await runTool(prepareBidTool, { handle: 'gavel', bidder: wallet('bob'), amount: '1049999999' }, t.deps),
    ).toMatchObject({
      ok: false,
      code: 'PROGRAM_ERROR',
      message: expect.stringMatching(/^BidTooLow \(0x1792, instruction 0\): /),
    });
    expect(await runTool(prepareBidTool, { handle: 'alice', bidder: wallet('bob'), amount: '1' }, t.deps)).toEqual({
      ok: false,
      code: 'NOT_FOUND',
      message: '@alice is not at auction',
    });
  });

  it('prepares a bid 5 % over the high bid; signed and sent, it is the high bid and the outbid bidder is named', async () => {
    const bob = await scenarioWallet(t.app.chain, 'bob');
    const outcome = await runTool(
      prepareBidTool,
      { handle: 'gavel', bidder: bob.address, amount: '1050000000' },
      t.deps,
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.value.instruction.accounts.find((a) => a.name === 'previousBidder')?.address).toBe(wallet('payer1'));
    await signAndSend(t.app.chain, outcome.value.transaction.base64, [bob]);
    const auction = await t.deps.chain.getMarketAccount('Auction', outcome.value.marketAccount as Address, 'confirmed');
    expect(auction).toMatchObject({ highBidder: bob.address, highBid: 1_050_000_000n });
  });
});
