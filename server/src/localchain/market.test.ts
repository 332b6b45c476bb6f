// The registry's market on the local chain: every row of the spec's program-error table produced by a real
// transaction and decoded by the contract's decoder, the boundaries (anti-snipe, 5 %), each lifecycle's happy
// path, and what the service's reader sees while a handle is listed, auctioned, leased or gifted.
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import {
  getBurnCheckedInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProgramError } from '@sigil/contract/program-errors';
import {
  decodeHandle,
  decodeMarketAccount,
  decodeRecord,
  findHandlePda,
  findNamespacePda,
  findDomainPda,
  findRecordPda,
  getCreateNamespaceInstruction,
  getMarketInstruction,
  getRegisterInstruction,
  getRegisterUnderNamespaceInstruction,
  getReleaseInstruction,
  getTokenizeInstruction,
  getTransferInstruction,
  LAMPORTS_PER_NATIVE,
  MARKET_PDAS,
  RECOVERY_DELAY_SECONDS,
  type MarketInstructionName,
} from '../platform/chain/registry';
import { TOKEN_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { createChainReader } from '../platform/chain/reader';
import { startLocalChain, type LocalChain } from './index';
import { fundedWallet, rawSendTransaction, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { ataOf } from '@sigil/test/support/webhooks-world';

let chain: LocalChain;
let programId: Address;
let seller: KeyPairSigner;
let buyer: KeyPairSigner;
let third: KeyPairSigner;
const members: KeyPairSigner[] = [];

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  programId = chain.programId;
  seller = await fundedWallet(chain, 500n * LAMPORTS_PER_NATIVE);
  buyer = await fundedWallet(chain, 500n * LAMPORTS_PER_NATIVE);
  third = await fundedWallet(chain, 500n * LAMPORTS_PER_NATIVE);
  for (let i = 0; i < 3; i++) members.push(await fundedWallet(chain));
  const [config] = await MARKET_PDAS.config(programId);
  const [m0, m1, m2] = members.map((m) => m.address) as [Address, Address, Address];
  await ok(seller, [
    getMarketInstruction(
      programId,
      'init_config',
      { member0: m0, member1: m1, member2: m2, threshold: 2 },
      {
        payer: seller.address,
        config,
      },
    ),
  ]);
});
afterAll(() => chain.close());

async function send(payer: KeyPairSigner, instructions: Instruction[], others: KeyPairSigner[] = []) {
  return rawSendTransaction(chain, await signedTransaction(chain, payer, instructions, { others }));
}

async function ok(payer: KeyPairSigner, instructions: Instruction[], others: KeyPairSigner[] = []) {
  const res = await send(payer, instructions, others);
  expect(res.error, JSON.stringify(res.error)).toBeUndefined();
  await chain.advance(1);
  return res;
}

/** Sends, expects the preflight failure, and returns the decoded error's name (and the whole decoding). */
async function refused(payer: KeyPairSigner, instructions: Instruction[], others: KeyPairSigner[] = []) {
  const res = await send(payer, instructions, others);
  expect(res.error?.code).toBe(-32002);
  const decoded = decodeProgramError(res, { registryProgramId: programId });
  await chain.advance(1);
  return decoded!;
}

const ix = <N extends MarketInstructionName>(
  name: N,
  args: Parameters<typeof getMarketInstruction<N>>[2],
  accounts: Parameters<typeof getMarketInstruction<N>>[3],
  remaining: Address[] = [],
) => getMarketInstruction(programId, name, args, accounts, remaining);

/** initiate_recovery of `handle` to `newOwner`, paid by the first recovery member and co-signed by `second`. */
async function initiateRecovery(handle: Address, newOwner: Address, second = members[1]!) {
  const [config] = await MARKET_PDAS.config(programId);
  const [recovery] = await MARKET_PDAS.recovery(programId, handle);
  const instruction = ix('initiate_recovery', { newOwner }, { payer: members[0]!.address, config, handle, recovery }, [
    members[0]!.address,
    second.address,
  ]);
  return { ix: instruction, recovery };
}

const now = () => chain.ledger.blockTime(chain.slot());
const lamports = async (a: Address) => (await chain.rpc.getBalance(a, { commitment: 'processed' }).send()).value;
async function account(address: Address) {
  const info = await chain.rpc.getAccountInfo(address, { encoding: 'base64', commitment: 'processed' }).send();
  return info.value ? new Uint8Array(Buffer.from(info.value.data[0], 'base64')) : null;
}
const handleOf = async (h: Address) => decodeHandle(h, (await account(h))!);

let counter = 0;
async function register(owner: KeyPairSigner, prefix = 'mk') {
  const name = `${prefix}${++counter}`;
  const [handle] = await findHandlePda(programId, name);
  await ok(owner, [
    getRegisterInstruction({ programId, payer: owner.address, owner: owner.address, handle, name, handleType: 0 }),
  ]);
  return { name, handle };
}

async function tokenized(owner: KeyPairSigner) {
  const { name, handle } = await register(owner);
  const mint = await generateKeyPairSigner();
  const ata = await ataOf(owner.address, mint.address, TOKEN_PROGRAM_ADDRESS);
  await ok(
    owner,
    [getTokenizeInstruction({ programId, owner: owner.address, handle, mint: mint.address, ownerTokenAccount: ata })],
    [mint],
  );
  return { name, handle, mint: mint.address, ata };
}

/** A tokenized handle of `owner`, listed by it at `price`. */
async function listed(owner: KeyPairSigner, price: bigint) {
  const t = await tokenized(owner);
  const [listing] = await MARKET_PDAS.listing(programId, t.handle);
  await ok(owner, [
    ix('list_handle', { price }, { seller: owner.address, handle: t.handle, listing, sellerTokenAccount: t.ata }),
  ]);
  return { ...t, listing };
}

async function auction(owner: KeyPairSigner, reserve = LAMPORTS_PER_NATIVE, duration = 600) {
  const { name, handle } = await register(owner);
  const [auctionPda] = await MARKET_PDAS.auction(programId, handle);
  await ok(owner, [
    ix('create_auction', { reserve, duration }, { seller: owner.address, handle, auction: auctionPda }),
  ]);
  const endAt = decodeMarketAccount('Auction', (await account(auctionPda))!).endAt;
  return { name, handle, auction: auctionPda, endAt };
}

const bid = (bidder: KeyPairSigner, a: { handle: Address; auction: Address }, amount: bigint, previous?: Address) =>
  ix(
    'place_bid',
    { amount },
    { bidder: bidder.address, handle: a.handle, auction: a.auction, previousBidder: previous ?? bidder.address },
  );

async function namespace(tld: string, price: bigint) {
  const [ns] = await findNamespacePda(programId, tld);
  await ok(seller, [getCreateNamespaceInstruction({ programId, authority: seller.address, namespace: ns, tld })]);
  const [pricing] = await MARKET_PDAS.namespacePricing(programId, ns);
  await ok(seller, [
    ix(
      'set_namespace_pricing',
      { price },
      { authority: seller.address, namespace: ns, pricing, creatorPayout: third.address },
    ),
  ]);
  return { ns, pricing };
}

describe('every row of the spec table, from a real transaction', () => {
  it('HandleIsTokenized (0x1781): an offer, an auction, a recovery on a tokenized name', async () => {
    const t = await tokenized(seller);
    const [offer] = await MARKET_PDAS.offer(programId, t.handle, buyer.address);
    const a = await refused(buyer, [
      ix('make_offer', { amount: 5n }, { buyer: buyer.address, handle: t.handle, offer }),
    ]);
    expect(a).toMatchObject({
      name: 'HandleIsTokenized',
      code: 6017,
      hex: '0x1781',
      instructionIndex: 0,
      program: programId,
    });
    const [auctionPda] = await MARKET_PDAS.auction(programId, t.handle);
    expect(
      (
        await refused(seller, [
          ix(
            'create_auction',
            { reserve: 1n, duration: 600 },
            { seller: seller.address, handle: t.handle, auction: auctionPda },
          ),
        ])
      ).name,
    ).toBe('HandleIsTokenized');
    const { ix: init } = await initiateRecovery(t.handle, buyer.address);
    expect((await refused(members[0]!, [init], [members[1]!])).name).toBe('HandleIsTokenized');
  });

  it('FrozenNft (0x93): a plain send of a listed NFT, raised by the token program', async () => {
    const { listing, ...t } = await listed(seller, LAMPORTS_PER_NATIVE);
    const dest = await ataOf(buyer.address, t.mint, TOKEN_PROGRAM_ADDRESS);
    const send = getTransferCheckedInstruction({
      source: t.ata,
      mint: t.mint,
      destination: dest,
      authority: seller,
      amount: 1n,
      decimals: 0,
    });
    const res = await refused(seller, [send]);
    expect(res).toMatchObject({
      name: 'FrozenNft',
      code: 147,
      hex: '0x93',
      source: 'token',
      program: TOKEN_PROGRAM_ADDRESS,
      instructionIndex: 0,
    });
    const burn = getBurnCheckedInstruction({
      account: t.ata,
      mint: t.mint,
      authority: seller,
      amount: 1n,
      decimals: 0,
    });
    expect(await refused(seller, [burn])).toMatchObject({ name: 'FrozenNft', instructionIndex: 0 });
    // Delisted, the same send goes through to the token program (which then fails for want of the buyer's account,
    // a code the catalog does not know: the generic fallback with the raw code).
    await ok(seller, [ix('delist_handle', {}, { seller: seller.address, listing })]);
    const after = await refused(seller, [send]);
    expect(after.name).not.toBe('FrozenNft');
  });

  it('AccountAlreadyInUse (0x0): the second offer from the same wallet, raised by the system program', async () => {
    const { handle } = await register(seller);
    const [offer] = await MARKET_PDAS.offer(programId, handle, buyer.address);
    await ok(buyer, [ix('make_offer', { amount: 1_000n }, { buyer: buyer.address, handle, offer })]);
    const second = await refused(buyer, [
      ix('make_offer', { amount: 2_000n }, { buyer: buyer.address, handle, offer }),
    ]);
    expect(second).toMatchObject({
      name: 'AccountAlreadyInUse',
      code: 0,
      hex: '0x0',
      source: 'system',
      program: '11111111111111111111111111111111',
    });
  });

  it('PriceChanged (0x1798): an offer or a listing whose amount changed before signing', async () => {
    const { handle } = await register(seller);
    const [offer] = await MARKET_PDAS.offer(programId, handle, buyer.address);
    await ok(buyer, [ix('make_offer', { amount: 7_000n }, { buyer: buyer.address, handle, offer })]);
    const accept = (expectedAmount: bigint) =>
      ix('accept_offer', { expectedAmount }, { owner: seller.address, handle, offer, buyer: buyer.address });
    expect((await refused(seller, [accept(6_000n)])).name).toBe('PriceChanged');

    const t = await tokenized(seller);
    const [listing] = await MARKET_PDAS.listing(programId, t.handle);
    const list = (price: bigint) =>
      ix('list_handle', { price }, { seller: seller.address, handle: t.handle, listing, sellerTokenAccount: t.ata });
    await ok(seller, [list(10n * LAMPORTS_PER_NATIVE)]);
    await ok(seller, [list(12n * LAMPORTS_PER_NATIVE)]);
    const buyerAta = await ataOf(buyer.address, t.mint, TOKEN_PROGRAM_ADDRESS);
    const buy = ix(
      'buy_listing',
      { expectedPrice: 10n * LAMPORTS_PER_NATIVE },
      {
        buyer: buyer.address,
        handle: t.handle,
        listing,
        seller: seller.address,
        sellerTokenAccount: t.ata,
        buyerTokenAccount: buyerAta,
        mint: t.mint,
      },
    );
    expect(await refused(buyer, [buy])).toMatchObject({ name: 'PriceChanged', code: 6040, hex: '0x1798' });
  });

  it('BidTooLow (0x1792), SellerCannotBid (0x1799), AuctionEnded (0x1790), AuctionNotEnded (0x178f)', async () => {
    const a = await auction(seller, 2n * LAMPORTS_PER_NATIVE);
    expect(await refused(buyer, [bid(buyer, a, 2n * LAMPORTS_PER_NATIVE - 1n)])).toMatchObject({
      name: 'BidTooLow',
      code: 6034,
    });
    expect(await refused(seller, [bid(seller, a, 3n * LAMPORTS_PER_NATIVE)])).toMatchObject({
      name: 'SellerCannotBid',
      code: 6041,
    });
    const settle = ix(
      'settle_auction',
      {},
      { payer: third.address, handle: a.handle, auction: a.auction, seller: seller.address, winner: third.address },
    );
    expect(await refused(third, [settle])).toMatchObject({ name: 'AuctionNotEnded', code: 6031 });
    await chain.warpTo(a.endAt);
    expect(await refused(buyer, [bid(buyer, a, 3n * LAMPORTS_PER_NATIVE)])).toMatchObject({
      name: 'AuctionEnded',
      code: 6032,
    });
  });

  it('AuctionHasBids (0x1791): cancel, transfer, release, initiate and complete recovery while a bid stands', async () => {
    const a = await auction(seller);
    // A recovery started before the bid, to try completing it after.
    const { ix: initiate, recovery } = await initiateRecovery(a.handle, third.address);
    await ok(members[0]!, [initiate], [members[1]!]);
    await ok(buyer, [bid(buyer, a, LAMPORTS_PER_NATIVE)]);
    const attempts: [KeyPairSigner, Instruction, KeyPairSigner[]][] = [
      [seller, ix('cancel_auction', {}, { seller: seller.address, handle: a.handle, auction: a.auction }), []],
      [
        seller,
        getTransferInstruction({ programId, owner: seller.address, handle: a.handle, newOwner: third.address }),
        [],
      ],
      [seller, getReleaseInstruction({ programId, owner: seller.address, handle: a.handle }), []],
      [members[0]!, initiate, [members[1]!]],
      [third, ix('complete_recovery', {}, { newOwner: third.address, handle: a.handle, recovery }), []],
    ];
    for (const [payer, instruction, others] of attempts) {
      expect(await refused(payer, [instruction], others)).toMatchObject({
        name: 'AuctionHasBids',
        code: 6033,
        hex: '0x1791',
      });
    }
  });

  it('BadDuration (0x1793): 599 s and 2,592,001 s', async () => {
    const { handle } = await register(seller);
    const [auctionPda] = await MARKET_PDAS.auction(programId, handle);
    for (const duration of [599, 2_592_001]) {
      const create = ix(
        'create_auction',
        { reserve: 1n, duration },
        { seller: seller.address, handle, auction: auctionPda },
      );
      expect(await refused(seller, [create])).toMatchObject({ name: 'BadDuration', code: 6035 });
    }
    await ok(seller, [
      ix(
        'create_auction',
        { reserve: 1n, duration: 2_592_000 },
        { seller: seller.address, handle, auction: auctionPda },
      ),
    ]);
  });

  it('AuctionNotStale (0x17df): close_stale_auction while the seller still owns the name', async () => {
    const a = await auction(seller);
    const close = ix(
      'close_stale_auction',
      {},
      { payer: third.address, handle: a.handle, auction: a.auction, seller: seller.address, highBidder: third.address },
    );
    expect(await refused(third, [close])).toMatchObject({ name: 'AuctionNotStale', code: 6111 });
    // Once the seller gave the name away (no bid stood), anyone may close it.
    await ok(seller, [
      getTransferInstruction({ programId, owner: seller.address, handle: a.handle, newOwner: buyer.address }),
    ]);
    await ok(third, [close]);
    expect(await account(a.auction)).toBeNull();
  });

  it('VoucherExpiryTooFar (0x17e0), VoucherNotExpired (0x17ab), VoucherClaimNotRecipient (0x17dd)', async () => {
    const { handle } = await register(seller);
    const [voucher] = await MARKET_PDAS.voucher(programId, seller.address, 1n);
    const create = (expiresAt: number) =>
      ix(
        'create_voucher',
        { id: 1n, expiresAt },
        { creator: seller.address, handle, voucher, recipient: buyer.address },
      );
    expect(await refused(seller, [create(now() + 366 * 86_400 + 1)])).toMatchObject({
      name: 'VoucherExpiryTooFar',
      code: 6112,
    });
    await ok(seller, [create(now() + 366 * 86_400)]);
    const refund = ix('refund_voucher', {}, { creator: seller.address, handle, voucher });
    expect(await refused(seller, [refund])).toMatchObject({ name: 'VoucherNotExpired', code: 6059, hex: '0x17ab' });
    const claim = ix('claim_voucher', {}, { claimer: third.address, handle, voucher, creator: seller.address });
    expect(await refused(third, [claim])).toMatchObject({
      name: 'VoucherClaimNotRecipient',
      code: 6109,
      hex: '0x17dd',
    });
  });

  it('UnreceivableCreatorPayout (0x17e1), NamespaceTierBelowFloor (0x17e7), NamespaceTierAboveMax (0x17e8)', async () => {
    const [ns] = await findNamespacePda(programId, 'tiers');
    await ok(seller, [
      getCreateNamespaceInstruction({ programId, authority: seller.address, namespace: ns, tld: 'tiers' }),
    ]);
    const [pricing] = await MARKET_PDAS.namespacePricing(programId, ns);
    const price = (p: bigint, creatorPayout: Address = third.address) =>
      ix('set_namespace_pricing', { price: p }, { authority: seller.address, namespace: ns, pricing, creatorPayout });
    expect(await refused(seller, [price(0n)])).toMatchObject({ name: 'NamespaceTierBelowFloor', code: 6119 });
    expect(await refused(seller, [price(LAMPORTS_PER_NATIVE - 1n)])).toMatchObject({ name: 'NamespaceTierBelowFloor' });
    expect(await refused(seller, [price(100_000_000n * LAMPORTS_PER_NATIVE + 1n)])).toMatchObject({
      name: 'NamespaceTierAboveMax',
      code: 6120,
    });
    const clock = 'SysvarC1ock11111111111111111111111111111111' as Address;
    expect(await refused(seller, [price(LAMPORTS_PER_NATIVE, clock)])).toMatchObject({
      name: 'UnreceivableCreatorPayout',
      code: 6113,
    });
    expect(await refused(seller, [price(LAMPORTS_PER_NATIVE, TOKEN_PROGRAM_ADDRESS)])).toMatchObject({
      name: 'UnreceivableCreatorPayout',
    });
    await ok(seller, [price(LAMPORTS_PER_NATIVE)]);
    await ok(seller, [price(100_000_000n * LAMPORTS_PER_NATIVE)]);
  });

  it('NotTreasury (0x17e2), ReservedClaimNotApproved (0x17e3)', async () => {
    const [config] = await MARKET_PDAS.config(programId);
    const [reservation] = await MARKET_PDAS.reservation(programId, 'brandco');
    const approve = (signers: KeyPairSigner[]) =>
      ix(
        'set_reserved_claim_approval',
        { name: 'brandco', domain: 'brandco.com', claimant: buyer.address },
        { payer: signers[0]!.address, config, reservation },
        signers.map((s) => s.address),
      );
    expect(await refused(members[0]!, [approve([members[0]!])])).toMatchObject({ name: 'NotTreasury', code: 6114 });
    expect(await refused(third, [approve([third, buyer])], [buyer])).toMatchObject({ name: 'NotTreasury' });
    const [handle] = await findHandlePda(programId, 'brandco');
    const claim = (domain: string) =>
      ix('claim_reserved', { name: 'brandco', domain }, { claimant: buyer.address, handle, reservation });
    expect(await refused(buyer, [claim('brandco.com')])).toMatchObject({
      name: 'ReservedClaimNotApproved',
      code: 6115,
    });
    await ok(members[1]!, [approve([members[1]!, members[2]!])], [members[2]!]);
    expect(await refused(buyer, [claim('brandco.net')])).toMatchObject({ name: 'ReservedClaimNotApproved' });
  });

  it('NamespacePricingMismatch (0x17e4), NamespacePricingRequiresV2 (0x17e5), PriceExceedsMax (0x17e6) charging only the fee', async () => {
    const { ns, pricing } = await namespace('gallery', 2n * LAMPORTS_PER_NATIVE);
    const [domain] = await findDomainPda(programId, ns, 'mona');
    const v1 = getRegisterUnderNamespaceInstruction({
      programId,
      payer: buyer.address,
      owner: buyer.address,
      namespace: ns,
      domain,
      label: 'mona',
    });
    expect(await refused(buyer, [v1])).toMatchObject({ name: 'NamespacePricingRequiresV2', code: 6117 });
    const v2 = (p: Address, max: bigint, creatorPayout = third.address) =>
      ix(
        'register_under_namespace_v2',
        { label: 'mona', maxPriceLamports: max },
        { payer: buyer.address, owner: buyer.address, namespace: ns, domain, pricing: p, creatorPayout },
      );
    const [otherPricing] = await MARKET_PDAS.namespacePricing(programId, domain);
    expect(await refused(buyer, [v2(otherPricing, 5n * LAMPORTS_PER_NATIVE)])).toMatchObject({
      name: 'NamespacePricingMismatch',
      code: 6116,
    });
    expect(await refused(buyer, [v2(pricing, 5n * LAMPORTS_PER_NATIVE, seller.address)])).toMatchObject({
      name: 'NamespacePricingMismatch',
    });
    // PriceExceedsMax lands on chain (skipPreflight): only the network fee leaves the payer.
    const before = await lamports(buyer.address);
    const tx = await signedTransaction(chain, buyer, [v2(pricing, 2n * LAMPORTS_PER_NATIVE - 1n)]);
    const result = await chain.send(tx, { skipPreflight: true });
    expect(decodeProgramError({ err: result.err, logs: result.logs }, { registryProgramId: programId })).toMatchObject({
      name: 'PriceExceedsMax',
      code: 6118,
      hex: '0x17e6',
    });
    expect(before - (await lamports(buyer.address))).toBe(5000n);
    await chain.advance(1);
  });

  it('LeaseFirstPaymentTooSmall (custom 6101), and the reclaim with nothing to reclaim (no code)', async () => {
    const name = 'leasing1';
    const [handle] = await findHandlePda(programId, name);
    const [lease] = await MARKET_PDAS.lease(programId, handle);
    const [treasury] = await MARKET_PDAS.treasury(programId);
    const start = (firstPayment: bigint) =>
      ix('start_lease', { name, firstPayment }, { lessee: buyer.address, handle, lease, treasury });
    expect(await refused(buyer, [start(24_999_999n)])).toMatchObject({
      name: 'LeaseFirstPaymentTooSmall',
      code: 6101,
      hex: '0x17d5',
    });
    await ok(buyer, [start(25_000_000n)]);
    await ok(buyer, [ix('pay_lease', { amount: 75_000_000n }, { lessee: buyer.address, handle, lease, treasury })]);
    const reclaim = ix('reclaim_expired_lease', {}, { payer: third.address, handle, lease });
    const paidOff = await chain.send(await signedTransaction(chain, third, [reclaim]));
    expect(decodeProgramError({ err: paidOff.err, logs: paidOff.logs })).toMatchObject({
      name: 'NothingToReclaim',
      code: null,
    });
    await chain.advance(1);
    // A name registered outright has no lease at all: the same answer.
    const plain = await register(seller);
    const [noLease] = await MARKET_PDAS.lease(programId, plain.handle);
    const permanent = await chain.send(
      await signedTransaction(chain, third, [
        ix('reclaim_expired_lease', {}, { payer: third.address, handle: plain.handle, lease: noLease }),
      ]),
    );
    expect(decodeProgramError({ err: permanent.err, logs: permanent.logs })).toMatchObject({
      name: 'NothingToReclaim',
    });
    expect((await handleOf(plain.handle)).owner).toBe(seller.address);
    await chain.advance(1);
  });

  it('DelegateAccountMissing (Anchor 3012): a record-delegate action with no delegate set', async () => {
    const { handle } = await register(seller);
    const [delegateAccount] = await MARKET_PDAS.recordDelegate(programId, handle);
    const [record] = await findRecordPda(programId, handle, 'text', 'url');
    const write = ix(
      'set_record_as_delegate',
      { kind: 1, key: 'url', value: 'https://example.org' },
      { delegate: third.address, handle, delegateAccount, record },
    );
    expect(await refused(third, [write])).toMatchObject({ name: 'DelegateAccountMissing', code: 3012, hex: '0xbc4' });
    await ok(seller, [
      ix('set_record_delegate', { delegate: third.address }, { authority: seller.address, handle, delegateAccount }),
    ]);
    await ok(third, [write]);
    expect(decodeRecord(record, (await account(record))!)).toMatchObject({
      value: 'https://example.org',
      authority: seller.address,
    });
  });

  it('a code outside the catalog falls back to TransactionRejected with the raw code', async () => {
    const t = await tokenized(seller);
    const sink = await ataOf(buyer.address, t.mint, TOKEN_PROGRAM_ADDRESS);
    // Two tokens from a one-token account: the token program's own 0x1 (insufficient funds).
    const create = getCreateAssociatedTokenIdempotentInstruction({
      payer: seller,
      ata: sink,
      owner: buyer.address,
      mint: t.mint,
    });
    const send = getTransferCheckedInstruction({
      source: t.ata,
      mint: t.mint,
      destination: sink,
      authority: seller,
      amount: 2n,
      decimals: 0,
    });
    expect(await refused(seller, [create, send])).toEqual({
      name: 'TransactionRejected',
      code: 1,
      hex: '0x1',
      reason: null,
      condition: 'the program refused the transaction with custom error 0x1, which is not in the catalog',
      retryable: false,
      instructionIndex: 1,
      program: TOKEN_PROGRAM_ADDRESS,
      detail: null,
    });
  });
});

describe('boundaries', () => {
  it('anti-snipe: a bid at end − 301 s keeps the end; at end − 299 s it moves to now + 300 s', async () => {
    const a = await auction(seller, LAMPORTS_PER_NATIVE, 600);
    await chain.warpTo(a.endAt - 301);
    await ok(buyer, [bid(buyer, a, LAMPORTS_PER_NATIVE)]);
    expect(decodeMarketAccount('Auction', (await account(a.auction))!).endAt).toBe(a.endAt);
    await chain.warpTo(a.endAt - 299);
    await ok(third, [bid(third, a, 2n * LAMPORTS_PER_NATIVE, buyer.address)]);
    expect(decodeMarketAccount('Auction', (await account(a.auction))!).endAt).toBe(a.endAt + 1);
  });

  it('5 %: the high bid × 1.05 is enough, one lamport less is not', async () => {
    const a = await auction(seller, LAMPORTS_PER_NATIVE);
    await ok(buyer, [bid(buyer, a, 1_000_000_000n)]);
    expect(await refused(third, [bid(third, a, 1_049_999_999n, buyer.address)])).toMatchObject({ name: 'BidTooLow' });
    const before = await lamports(buyer.address);
    await ok(third, [bid(third, a, 1_050_000_000n, buyer.address)]);
    expect((await lamports(buyer.address)) - before).toBe(1_000_000_000n); // the outbid bidder is refunded
  });
});

describe('happy paths', () => {
  it('an offer accepted: the name moves, the seller receives the amount', async () => {
    const { handle } = await register(seller);
    const [offer] = await MARKET_PDAS.offer(programId, handle, buyer.address);
    await ok(buyer, [ix('make_offer', { amount: 3n * LAMPORTS_PER_NATIVE }, { buyer: buyer.address, handle, offer })]);
    const before = await lamports(seller.address);
    await ok(seller, [
      ix(
        'accept_offer',
        { expectedAmount: 3n * LAMPORTS_PER_NATIVE },
        { owner: seller.address, handle, offer, buyer: buyer.address },
      ),
    ]);
    expect((await handleOf(handle)).owner).toBe(buyer.address);
    expect((await lamports(seller.address)) - before).toBeGreaterThan(3n * LAMPORTS_PER_NATIVE - 10_000n);
    expect(await account(offer)).toBeNull();
  });

  it('a listing bought: the NFT and the authority move to the buyer', async () => {
    const { listing, ...t } = await listed(seller, 4n * LAMPORTS_PER_NATIVE);
    const buyerAta = await ataOf(buyer.address, t.mint, TOKEN_PROGRAM_ADDRESS);
    await ok(buyer, [
      ix(
        'buy_listing',
        { expectedPrice: 4n * LAMPORTS_PER_NATIVE },
        {
          buyer: buyer.address,
          handle: t.handle,
          listing,
          seller: seller.address,
          sellerTokenAccount: t.ata,
          buyerTokenAccount: buyerAta,
          mint: t.mint,
        },
      ),
    ]);
    const reader = createChainReader({ rpcUrl: chain.url, programId, timeoutMs: 2000 });
    const h = await reader.getHandleByAddress(t.handle);
    expect(await reader.getHandleAuthority(h!, 'processed')).toMatchObject({ authority: buyer.address });
    expect(await account(listing)).toBeNull();
  });

  it('a listing is bought only through the mint token program, at the listed price', async () => {
    const price = LAMPORTS_PER_NATIVE;
    const { listing, ...t } = await listed(seller, price);
    const fake = '11111111111111111111111111111111' as Address;
    const buyerAta = await ataOf(buyer.address, t.mint, fake);
    const sellerAta = await ataOf(seller.address, t.mint, fake);
    const accounts = { buyer: buyer.address, handle: t.handle, listing, seller: seller.address, mint: t.mint };
    const spoofed = ix(
      'buy_listing',
      { expectedPrice: price },
      {
        ...accounts,
        sellerTokenAccount: sellerAta,
        buyerTokenAccount: buyerAta,
        tokenProgram: fake,
      },
    );
    expect(await refused(buyer, [spoofed])).toMatchObject({ name: 'InvalidTokenAccount', spec: false });
    expect(await account(listing)).not.toBeNull();
  });

  it('an auction settled: the winner owns the name, the seller has the bid', async () => {
    const a = await auction(seller, LAMPORTS_PER_NATIVE);
    await ok(buyer, [bid(buyer, a, 5n * LAMPORTS_PER_NATIVE)]);
    await chain.warpTo(Math.max(a.endAt, now() + 300) + 1);
    const before = await lamports(seller.address);
    await ok(third, [
      ix(
        'settle_auction',
        {},
        { payer: third.address, handle: a.handle, auction: a.auction, seller: seller.address, winner: buyer.address },
      ),
    ]);
    expect((await handleOf(a.handle)).owner).toBe(buyer.address);
    expect((await lamports(seller.address)) - before).toBeGreaterThanOrEqual(5n * LAMPORTS_PER_NATIVE);
  });

  it('a gift claimed (plain and tokenized) and a gift refunded after expiry', async () => {
    const gift = async (id: bigint, expiresIn: number) => {
      const { handle } = await register(seller);
      const [voucher] = await MARKET_PDAS.voucher(programId, seller.address, id);
      await ok(seller, [
        ix(
          'create_voucher',
          { id, expiresAt: now() + expiresIn },
          { creator: seller.address, handle, voucher, recipient: buyer.address },
        ),
      ]);
      expect((await handleOf(handle)).owner).toBe(voucher);
      return { handle, voucher };
    };
    const g1 = await gift(10n, 86_400);
    await ok(buyer, [
      ix(
        'claim_voucher',
        {},
        { claimer: buyer.address, handle: g1.handle, voucher: g1.voucher, creator: seller.address },
      ),
    ]);
    expect((await handleOf(g1.handle)).owner).toBe(buyer.address);

    const g2 = await gift(11n, 86_400);
    const mint = await generateKeyPairSigner();
    const ata = await ataOf(buyer.address, mint.address, TOKEN_PROGRAM_ADDRESS);
    await ok(
      third,
      [
        ix(
          'claim_voucher_tokenized',
          {},
          {
            claimer: third.address,
            handle: g2.handle,
            voucher: g2.voucher,
            creator: seller.address,
            recipient: buyer.address,
            mint: mint.address,
            recipientTokenAccount: ata,
          },
        ),
      ],
      [mint],
    );
    const reader = createChainReader({ rpcUrl: chain.url, programId, timeoutMs: 2000 });
    const h2 = await reader.getHandleByAddress(g2.handle, 'processed');
    expect(h2).toMatchObject({ tokenized: true, mint: mint.address });
    expect(await reader.getHandleAuthority(h2!, 'processed')).toMatchObject({ authority: buyer.address });

    const g3 = await gift(12n, 600);
    await chain.warpTo(now() + 601);
    await ok(seller, [ix('refund_voucher', {}, { creator: seller.address, handle: g3.handle, voucher: g3.voucher })]);
    expect((await handleOf(g3.handle)).owner).toBe(seller.address);
  });

  it('a lease paid off in instalments; a lapsed lease reclaimed', async () => {
    const [treasury] = await MARKET_PDAS.treasury(programId);
    const lease = async (name: string) => {
      const [handle] = await findHandlePda(programId, name);
      const [leasePda] = await MARKET_PDAS.lease(programId, handle);
      await ok(buyer, [
        ix(
          'start_lease',
          { name, firstPayment: 25_000_000n },
          { lessee: buyer.address, handle, lease: leasePda, treasury },
        ),
      ]);
      return { handle, lease: leasePda };
    };
    const l1 = await lease('leasing2');
    for (let i = 0; i < 3; i++)
      await ok(buyer, [
        ix(
          'pay_lease',
          { amount: 25_000_000n },
          { lessee: buyer.address, handle: l1.handle, lease: l1.lease, treasury },
        ),
      ]);
    expect(decodeMarketAccount('Lease', (await account(l1.lease))!)).toMatchObject({
      paid: 100_000_000n,
      totalPrice: 100_000_000n,
    });
    expect((await handleOf(l1.handle)).owner).toBe(buyer.address);

    const l2 = await lease('leasing3');
    const through = decodeMarketAccount('Lease', (await account(l2.lease))!).paidThrough;
    const reclaim = ix('reclaim_expired_lease', {}, { payer: third.address, handle: l2.handle, lease: l2.lease });
    expect((await refused(third, [reclaim])).name).toBe('InvalidState'); // still paid through
    await chain.warpTo(through + 1);
    await ok(third, [reclaim]);
    expect((await handleOf(l2.handle)).owner).toBe('11111111111111111111111111111111');
    // The paid-off lease stays the lessee's after the same time passed.
    expect((await handleOf(l1.handle)).owner).toBe(buyer.address);
  });

  it('a recovery completed after the delay', async () => {
    const { handle } = await register(seller);
    const { ix: initiate, recovery } = await initiateRecovery(handle, third.address, members[2]!);
    await ok(members[0]!, [initiate], [members[2]!]);
    const complete = ix('complete_recovery', {}, { newOwner: third.address, handle, recovery });
    expect((await refused(third, [complete])).name).toBe('InvalidState');
    await chain.warpTo(now() + RECOVERY_DELAY_SECONDS);
    await ok(third, [complete]);
    expect((await handleOf(handle)).owner).toBe(third.address);
  });

  it('a reserved name claimed with the approved domain; a creator-priced domain bought within the max', async () => {
    const [config] = await MARKET_PDAS.config(programId);
    const [reservation] = await MARKET_PDAS.reservation(programId, 'reservedok');
    await ok(
      members[0]!,
      [
        ix(
          'set_reserved_claim_approval',
          { name: 'reservedok', domain: 'reservedok.org', claimant: buyer.address },
          { payer: members[0]!.address, config, reservation },
          [members[0]!.address, members[1]!.address],
        ),
      ],
      [members[1]!],
    );
    const [handle] = await findHandlePda(programId, 'reservedok');
    await ok(buyer, [
      ix(
        'claim_reserved',
        { name: 'reservedok', domain: 'reservedok.org' },
        { claimant: buyer.address, handle, reservation },
      ),
    ]);
    expect(await handleOf(handle)).toMatchObject({ owner: buyer.address, handleType: 2 });

    const { ns, pricing } = await namespace('studio', 3n * LAMPORTS_PER_NATIVE);
    const [domain] = await findDomainPda(programId, ns, 'atelier');
    const before = await lamports(third.address);
    await ok(buyer, [
      ix(
        'register_under_namespace_v2',
        { label: 'atelier', maxPriceLamports: 3n * LAMPORTS_PER_NATIVE },
        { payer: buyer.address, owner: buyer.address, namespace: ns, domain, pricing, creatorPayout: third.address },
      ),
    ]);
    expect((await lamports(third.address)) - before).toBe(3n * LAMPORTS_PER_NATIVE);
  });
});

describe("the service's reads while a handle is in the market", () => {
  it('listed: the NFT holder; auctioned with a bid: the seller; leased: the lessee; offered: the owner', async () => {
    const reader = createChainReader({ rpcUrl: chain.url, programId, timeoutMs: 2000 });
    const authorityOf = async (handle: Address) =>
      (await reader.getHandleAuthority((await reader.getHandleByAddress(handle, 'processed'))!, 'processed')).authority;

    const { listing, ...t } = await listed(seller, LAMPORTS_PER_NATIVE);
    expect(await authorityOf(t.handle)).toBe(seller.address);

    const a = await auction(seller);
    await ok(buyer, [bid(buyer, a, LAMPORTS_PER_NATIVE)]);
    expect(await authorityOf(a.handle)).toBe(seller.address);

    const [handle] = await findHandlePda(programId, 'leasing4');
    const [lease] = await MARKET_PDAS.lease(programId, handle);
    const [treasury] = await MARKET_PDAS.treasury(programId);
    await ok(buyer, [
      ix(
        'start_lease',
        { name: 'leasing4', firstPayment: 25_000_000n },
        { lessee: buyer.address, handle, lease, treasury },
      ),
    ]);
    expect(await authorityOf(handle)).toBe(buyer.address);
    expect((await reader.getHandle('leasing4', 'processed')).value).toMatchObject({
      owner: buyer.address,
      tokenized: false,
    });

    const { handle: offered } = await register(seller);
    const [offer] = await MARKET_PDAS.offer(programId, offered, buyer.address);
    await ok(buyer, [ix('make_offer', { amount: 1n }, { buyer: buyer.address, handle: offered, offer })]);
    expect(await authorityOf(offered)).toBe(seller.address);
  });
});
