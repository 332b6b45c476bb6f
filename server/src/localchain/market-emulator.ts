// The registry's market, emulated (docs/registry-program.md § Market): each instruction's rules in the order the
// program checks them, with the spec's error codes. Lamports held for someone (offers, bids) sit in the market
// account itself above its rent; NFT moves and account creation that the spec attributes to another program (the
// second offer's 0x0) run for real in LiteSVM as CPIs.
import type { Address } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { normalizeName } from '@sigil/contract/names';
import { NOTHING_TO_RECLAIM_LOG } from '@sigil/contract/program-errors';
import {
  AUCTION_EXTENSION_SECONDS,
  AUCTION_MAX_DURATION,
  AUCTION_MIN_DURATION,
  AUCTION_MIN_INCREMENT_PERCENT,
  decodeDomain,
  decodeHandle,
  decodeMarketAccount,
  decodeNamespace,
  encodeDomain,
  encodeHandle,
  encodeMarketAccount,
  encodeRecord,
  findDomainPda,
  findHandlePda,
  findRecordPda,
  LEASE_MIN_PAYMENT_LAMPORTS,
  LEASE_YEAR_PRICE_LAMPORTS,
  LEASE_YEAR_SECONDS,
  MARKET_ACCOUNT_DISCRIMINATORS,
  MARKET_ACCOUNT_OFFSETS,
  MARKET_PDAS,
  NAMESPACE_PRICE_CEILING_LAMPORTS,
  NAMESPACE_PRICE_FLOOR_LAMPORTS,
  RECOVERY_DELAY_SECONDS,
  VOUCHER_MAX_EXPIRY_SECONDS,
  bytesEqual,
  type MarketAccountName,
  type MarketInstruction,
} from '../platform/chain/registry';
import { ZERO_ADDRESS } from '../platform/chain/trust-rules';
import { restoreAccount, snapshotOf } from './ledger';
import type { DecodedTransaction, ExecutionOutcome } from './processor';
import {
  expectPda,
  fail,
  mintHandleNft,
  RegistryFailure,
  signerStub,
  type EmulatorContext,
  type InstructionRun,
} from './emulator-run';
import { readTokenAccount, TOKEN_PROGRAMS } from './tokens';

const SYSVAR_PREFIX = 'Sysvar';
/** Token instructions a frozen account refuses: Transfer, Burn, TransferChecked, BurnChecked. */
const MOVES_TOKENS = new Set([3, 8, 12, 15]);
const FROZEN_NFT = 147;

function readMarket<N extends MarketAccountName>(run: InstructionRun, emu: EmulatorContext, name: N, at: Address) {
  const account = run.read(at);
  if (!account || account.owner !== emu.programId) return null;
  return decodeMarketAccount(name, account.data);
}

function requireMarket<N extends MarketAccountName>(run: InstructionRun, emu: EmulatorContext, name: N, at: Address) {
  const value = readMarket(run, emu, name, at);
  if (!value) throw fail('AccountNotFound', `${name} ${at} does not exist`);
  return value;
}

/** Deletes a program account, its lamports (rent and anything held) to `to`. */
function closeAccount(run: InstructionRun, at: Address, to: Address): void {
  const account = run.read(at)!;
  const dest = run.read(to);
  restoreAccount(
    run.svm,
    to,
    dest
      ? { ...dest, lamports: dest.lamports + account.lamports }
      : {
          lamports: account.lamports,
          owner: '11111111111111111111111111111111' as Address,
          data: new Uint8Array(),
          executable: false,
        },
  );
  restoreAccount(run.svm, at, null);
}

/** Cancel, transfer, release and recovery are refused while the handle's auction has a bid (AuctionHasBids). */
export async function refuseWhileBidStands(emu: EmulatorContext, run: InstructionRun, handle: Address): Promise<void> {
  const [auctionAddress] = await MARKET_PDAS.auction(emu.programId, handle);
  const auction = readMarket(run, emu, 'Auction', auctionAddress);
  if (auction?.highBidder) throw fail('AuctionHasBids', 'the auction of this handle has a bid');
}

/** The treasury multisig: at least `threshold` of Config's members sign this instruction. */
function requireTreasury(run: InstructionRun, emu: EmulatorContext, config: Address, signers: Address[]): void {
  const cfg = readMarket(run, emu, 'Config', config);
  const members = cfg ? [cfg.member0, cfg.member1, cfg.member2] : [];
  const signing = new Set(signers.filter((a) => members.includes(a) && isInstructionSigner(run, a)));
  if (!cfg || signing.size < cfg.threshold) throw fail('NotTreasury', 'not signed by the treasury multisig');
}

function isInstructionSigner(run: InstructionRun, address: Address): boolean {
  const i = run.tx.accountKeys.indexOf(address);
  return i >= 0 && run.tx.isSigner(i);
}

/** Creates a program account through the system program for real (so a second one fails there with 0x0). */
function createThroughSystem(
  run: InstructionRun,
  emu: EmulatorContext,
  { payer, account, data, extra }: { payer: Address; account: Address; data: Uint8Array; extra: bigint },
): void {
  run.cpi([
    getCreateAccountInstruction({
      payer: signerStub(payer),
      newAccount: signerStub(account),
      lamports: run.svm.minimumBalanceForRentExemption(BigInt(data.length)) + extra,
      space: BigInt(data.length),
      programAddress: emu.programId,
    }),
  ]);
  restoreAccount(run.svm, account, { ...run.read(account)!, data });
}

/** The token program that owns a mint (SPL Token or Token-2022); InvalidTokenAccount for anything else. */
function tokenProgramOf(run: InstructionRun, mint: Address): Address {
  const owner = run.read(mint)?.owner;
  if (!owner || !TOKEN_PROGRAMS.includes(owner)) throw fail('InvalidTokenAccount', `${mint} is not a token mint`);
  return owner;
}

async function expectAta(owner: Address, mint: Address, tokenProgram: Address, given: Address, what: string) {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
  if (ata !== given) throw fail('InvalidTokenAccount', `${what} must be the associated token account ${ata}`);
}

export async function applyMarketInstruction(
  emu: EmulatorContext,
  run: InstructionRun,
  ix: MarketInstruction,
): Promise<void> {
  const { programId } = emu;
  const feePayer = run.tx.accountKeys[0]!;
  const write = (at: Address, data: Uint8Array) => run.writeProgramAccount(at, data, feePayer);
  switch (ix.name) {
    case 'make_offer': {
      const { buyer, handle, offer } = ix.accounts;
      const h = run.loadHandle(handle);
      if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized: buy its listing instead`);
      if (ix.args.amount <= 0n) throw fail('InvalidAmount', 'an offer is a positive amount');
      const bump = await expectPda(offer, MARKET_PDAS.offer(programId, handle, buyer), 'offer');
      const data = encodeMarketAccount('Offer', { handle, buyer, amount: ix.args.amount, createdAt: run.now, bump });
      createThroughSystem(run, emu, { payer: buyer, account: offer, data, extra: ix.args.amount });
      return;
    }
    case 'cancel_offer': {
      const { buyer, offer } = ix.accounts;
      run.requireSigner(buyer, 'buyer');
      const o = requireMarket(run, emu, 'Offer', offer);
      if (o.buyer !== buyer) throw fail('NotAuthority', 'only the buyer cancels an offer');
      closeAccount(run, offer, buyer);
      return;
    }
    case 'accept_offer': {
      const { owner, handle, offer, buyer } = ix.accounts;
      const h = run.loadHandle(handle);
      if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized`);
      await run.requireAuthority(h, owner);
      const o = requireMarket(run, emu, 'Offer', offer);
      if (o.handle !== handle || o.buyer !== buyer) throw fail('InvalidPda', 'offer is not for this handle and buyer');
      if (o.amount !== ix.args.expectedAmount)
        throw fail('PriceChanged', `the offer is ${o.amount}, not ${ix.args.expectedAmount}`);
      await refuseWhileBidStands(emu, run, handle);
      write(handle, encodeHandle({ ...h, owner: buyer }));
      closeAccount(run, offer, owner); // the amount and the offer's rent go to the seller
      return;
    }
    case 'list_handle': {
      const { seller, handle, listing, sellerTokenAccount } = ix.accounts;
      const h = run.loadHandle(handle);
      if (!h.tokenized || !h.mint) throw fail('NotTokenized', `@${h.name} is not tokenized: take offers or auction it`);
      await run.requireAuthority(h, seller);
      await expectAta(seller, h.mint, tokenProgramOf(run, h.mint), sellerTokenAccount, 'seller token account');
      if (ix.args.price <= 0n) throw fail('InvalidAmount', 'a listing price is positive');
      const bump = await expectPda(listing, MARKET_PDAS.listing(programId, handle), 'listing');
      write(
        listing,
        encodeMarketAccount('Listing', {
          handle,
          seller,
          mint: h.mint,
          price: ix.args.price,
          createdAt: run.now,
          bump,
        }),
      );
      return;
    }
    case 'delist_handle': {
      const { seller, listing } = ix.accounts;
      run.requireSigner(seller, 'seller');
      const l = requireMarket(run, emu, 'Listing', listing);
      if (l.seller !== seller) throw fail('NotAuthority', 'only the seller delists');
      closeAccount(run, listing, seller);
      return;
    }
    case 'buy_listing': {
      const { buyer, handle, listing, seller, sellerTokenAccount, buyerTokenAccount, mint, tokenProgram } = ix.accounts;
      run.requireSigner(buyer, 'buyer');
      const l = requireMarket(run, emu, 'Listing', listing);
      if (l.handle !== handle || l.seller !== seller || l.mint !== mint) throw fail('NotListed', 'listing mismatch');
      if (l.price !== ix.args.expectedPrice)
        throw fail('PriceChanged', `the listing is ${l.price}, not ${ix.args.expectedPrice}`);
      const h = run.loadHandle(handle);
      if ((await run.authorityOf(h)) !== seller) throw fail('NotListed', 'the seller no longer holds the NFT');
      if (tokenProgram !== tokenProgramOf(run, mint)) throw fail('InvalidTokenAccount', 'not the mint token program');
      await expectAta(seller, mint, tokenProgram, sellerTokenAccount, 'seller token account');
      await expectAta(buyer, mint, tokenProgram, buyerTokenAccount, 'buyer token account');
      run.moveLamports(buyer, seller, l.price);
      run.cpi([
        getCreateAssociatedTokenIdempotentInstruction({
          payer: signerStub(buyer),
          ata: buyerTokenAccount,
          owner: buyer,
          mint,
          tokenProgram,
        }),
        // The program moves the NFT under the authority the listing holds (the emulator acts for the seller).
        getTransferCheckedInstruction(
          {
            source: sellerTokenAccount,
            mint,
            destination: buyerTokenAccount,
            authority: signerStub(seller),
            amount: 1n,
            decimals: 0,
          },
          { programAddress: tokenProgram },
        ),
      ]);
      write(handle, encodeHandle({ ...h, owner: buyer }));
      closeAccount(run, listing, seller);
      return;
    }
    case 'create_auction': {
      const { seller, handle, auction } = ix.accounts;
      const h = run.loadHandle(handle);
      if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized: list it instead`);
      await run.requireAuthority(h, seller);
      const { duration, reserve } = ix.args;
      if (duration < AUCTION_MIN_DURATION || duration > AUCTION_MAX_DURATION)
        throw fail('BadDuration', `duration ${duration} s is outside ${AUCTION_MIN_DURATION}..${AUCTION_MAX_DURATION}`);
      const bump = await expectPda(auction, MARKET_PDAS.auction(programId, handle), 'auction');
      if (run.read(auction)) throw fail('AlreadyExists', `@${h.name} is already at auction`);
      write(
        auction,
        encodeMarketAccount('Auction', {
          handle,
          seller,
          reserve,
          highBid: 0n,
          highBidder: null,
          startAt: run.now,
          endAt: run.now + duration,
          bump,
        }),
      );
      return;
    }
    case 'place_bid': {
      const { bidder, handle, auction, previousBidder } = ix.accounts;
      run.requireSigner(bidder, 'bidder');
      const a = requireMarket(run, emu, 'Auction', auction);
      if (a.handle !== handle) throw fail('InvalidPda', 'auction is not for this handle');
      if (bidder === a.seller) throw fail('SellerCannotBid', 'the seller cannot bid in their own auction');
      if (run.now >= a.endAt) throw fail('AuctionEnded', `the auction ended at ${a.endAt}`);
      const { amount } = ix.args;
      const minimum = a.highBidder ? (a.highBid * (100n + AUCTION_MIN_INCREMENT_PERCENT) + 99n) / 100n : a.reserve;
      if (amount < minimum || amount === 0n) throw fail('BidTooLow', `a bid must be at least ${minimum}`);
      if (a.highBidder && previousBidder !== a.highBidder)
        throw fail('InvalidPda', `previous bidder must be ${a.highBidder}`);
      run.moveLamports(bidder, auction, amount);
      if (a.highBidder) run.moveLamports(auction, a.highBidder, a.highBid);
      const endAt = Math.max(a.endAt, run.now + AUCTION_EXTENSION_SECONDS);
      write(auction, encodeMarketAccount('Auction', { ...a, highBid: amount, highBidder: bidder, endAt }));
      return;
    }
    case 'settle_auction': {
      const { payer, handle, auction, seller, winner } = ix.accounts;
      run.requireSigner(payer, 'payer');
      const a = requireMarket(run, emu, 'Auction', auction);
      if (a.handle !== handle || a.seller !== seller) throw fail('InvalidPda', 'auction mismatch');
      if (run.now < a.endAt) throw fail('AuctionNotEnded', `the auction ends at ${a.endAt}`);
      if (a.highBidder) {
        if (winner !== a.highBidder) throw fail('InvalidPda', `winner must be ${a.highBidder}`);
        const h = run.loadHandle(handle);
        // Nothing moves the name while a bid stands (transfer, release, recovery refuse); tokenizing it is the one
        // way left, and then the NFT holder, not the auction, decides.
        if (h.owner !== seller || h.tokenized) throw fail('InvalidState', 'the seller no longer owns the name');
        write(handle, encodeHandle({ ...h, owner: winner }));
      }
      closeAccount(run, auction, seller); // the high bid and the rent go to the seller
      return;
    }
    case 'cancel_auction': {
      const { seller, auction } = ix.accounts;
      run.requireSigner(seller, 'seller');
      const a = requireMarket(run, emu, 'Auction', auction);
      if (a.seller !== seller) throw fail('NotAuthority', 'only the seller cancels');
      if (a.highBidder) throw fail('AuctionHasBids', 'the auction has a bid');
      closeAccount(run, auction, seller);
      return;
    }
    case 'close_stale_auction': {
      const { payer, handle, auction, seller, highBidder } = ix.accounts;
      run.requireSigner(payer, 'payer');
      const a = requireMarket(run, emu, 'Auction', auction);
      if (a.handle !== handle || a.seller !== seller) throw fail('InvalidPda', 'auction mismatch');
      const h = run.loadHandle(handle);
      if (!h.tokenized && h.owner === a.seller)
        throw fail('AuctionNotStale', 'the seller still owns the untokenized name');
      if (a.highBidder) {
        if (highBidder !== a.highBidder) throw fail('InvalidPda', `high bidder must be ${a.highBidder}`);
        run.moveLamports(auction, a.highBidder, a.highBid);
      }
      closeAccount(run, auction, seller);
      return;
    }
    case 'create_voucher': {
      const { creator, handle, voucher, recipient } = ix.accounts;
      const h = run.loadHandle(handle);
      if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized: send the NFT instead`);
      await run.requireAuthority(h, creator);
      await refuseWhileBidStands(emu, run, handle);
      const { id, expiresAt } = ix.args;
      if (expiresAt <= run.now) throw fail('InvalidState', 'a voucher expires in the future');
      if (expiresAt - run.now > VOUCHER_MAX_EXPIRY_SECONDS)
        throw fail('VoucherExpiryTooFar', 'a gift expires at most 366 days ahead');
      const bump = await expectPda(voucher, MARKET_PDAS.voucher(programId, creator, id), 'voucher');
      if (run.read(voucher)) throw fail('AlreadyExists', `voucher ${id} exists`);
      write(
        voucher,
        encodeMarketAccount('Voucher', { creator, recipient, handle, id, expiresAt, createdAt: run.now, bump }),
      );
      // The gift is held by the voucher: nobody controls the handle until it is claimed or refunded.
      write(handle, encodeHandle({ ...h, owner: voucher }));
      return;
    }
    case 'claim_voucher':
    case 'claim_voucher_tokenized': {
      const { claimer, handle, voucher, creator } = ix.accounts;
      run.requireSigner(claimer, 'claimer');
      const v = requireMarket(run, emu, 'Voucher', voucher);
      if (v.handle !== handle || v.creator !== creator) throw fail('InvalidPda', 'voucher mismatch');
      if (run.now >= v.expiresAt) throw fail('InvalidState', 'the voucher has expired: the creator may refund it');
      const h = run.loadHandle(handle);
      if (ix.name === 'claim_voucher') {
        if (claimer !== v.recipient) throw fail('VoucherClaimNotRecipient', `only ${v.recipient} claims this gift`);
        write(handle, encodeHandle({ ...h, owner: v.recipient }));
      } else {
        // Any signer may crank it: the NFT always goes to the bound recipient.
        const { recipient, mint, recipientTokenAccount, tokenProgram } = ix.accounts;
        if (recipient !== v.recipient) throw fail('InvalidPda', `recipient must be ${v.recipient}`);
        run.requireSigner(mint, 'mint');
        if (!TOKEN_PROGRAMS.includes(tokenProgram))
          throw fail('InvalidTokenAccount', `${tokenProgram} is not a token program`);
        await expectAta(recipient, mint, tokenProgram, recipientTokenAccount, 'recipient token account');
        mintHandleNft(run, { holder: recipient, mint, ata: recipientTokenAccount, tokenProgram });
        write(handle, encodeHandle({ ...h, owner: recipient, tokenized: true, mint }));
      }
      closeAccount(run, voucher, creator);
      return;
    }
    case 'refund_voucher': {
      const { creator, handle, voucher } = ix.accounts;
      run.requireSigner(creator, 'creator');
      const v = requireMarket(run, emu, 'Voucher', voucher);
      if (v.creator !== creator || v.handle !== handle) throw fail('NotAuthority', 'only the creator refunds');
      if (run.now < v.expiresAt) throw fail('VoucherNotExpired', `the voucher expires at ${v.expiresAt}`);
      const h = run.loadHandle(handle);
      write(handle, encodeHandle({ ...h, owner: creator }));
      closeAccount(run, voucher, creator);
      return;
    }
    case 'start_lease': {
      const { lessee, handle, lease, treasury } = ix.accounts;
      const { name, firstPayment } = ix.args;
      run.requireSigner(lessee, 'lessee');
      if (normalizeName(name).name !== name) throw fail('InvalidName', `"${name}" is not a normalized handle`);
      const handleBump = await expectPda(handle, findHandlePda(programId, name), 'handle');
      const bump = await expectPda(lease, MARKET_PDAS.lease(programId, handle), 'lease');
      await expectPda(treasury, MARKET_PDAS.treasury(programId), 'treasury');
      if (firstPayment < LEASE_MIN_PAYMENT_LAMPORTS)
        throw fail('LeaseFirstPaymentTooSmall', `the first payment is at least ${LEASE_MIN_PAYMENT_LAMPORTS} lamports`);
      if (firstPayment > LEASE_YEAR_PRICE_LAMPORTS) throw fail('InvalidAmount', 'more than the price');
      const existing = run.read(handle);
      let registrationEpoch = 1n;
      if (existing) {
        const previous = decodeHandle(handle, existing.data);
        if (previous.owner !== ZERO_ADDRESS) throw fail('AlreadyRegistered', `@${name} is registered`);
        registrationEpoch = previous.registrationEpoch + 1n;
      }
      run.moveLamports(lessee, treasury, firstPayment);
      write(
        handle,
        encodeHandle({
          owner: lessee,
          handleType: 0,
          tokenized: false,
          mint: null,
          registrationEpoch,
          registeredAt: run.now,
          registeredSlot: run.slot,
          bump: handleBump,
          name,
        }),
      );
      write(
        lease,
        encodeMarketAccount('Lease', {
          handle,
          lessee,
          totalPrice: LEASE_YEAR_PRICE_LAMPORTS,
          paid: firstPayment,
          startedAt: run.now,
          paidThrough: paidThrough(run.now, firstPayment),
          bump,
        }),
      );
      return;
    }
    case 'pay_lease': {
      const { lessee, lease, treasury } = ix.accounts;
      run.requireSigner(lessee, 'lessee');
      const l = requireMarket(run, emu, 'Lease', lease);
      if (l.lessee !== lessee) throw fail('NotAuthority', 'only the lessee pays the lease');
      await expectPda(treasury, MARKET_PDAS.treasury(programId), 'treasury');
      const remaining = l.totalPrice - l.paid;
      if (ix.args.amount <= 0n || ix.args.amount > remaining)
        throw fail('InvalidAmount', `a payment is 1..${remaining} lamports`);
      if (run.now > l.paidThrough) throw fail('InvalidState', 'the lease lapsed: it can only be reclaimed');
      run.moveLamports(lessee, treasury, ix.args.amount);
      const paid = l.paid + ix.args.amount;
      write(lease, encodeMarketAccount('Lease', { ...l, paid, paidThrough: paidThrough(l.startedAt, paid) }));
      return;
    }
    case 'reclaim_expired_lease': {
      const { payer, handle, lease } = ix.accounts;
      run.requireSigner(payer, 'payer');
      await expectPda(lease, MARKET_PDAS.lease(programId, handle), 'lease');
      const l = readMarket(run, emu, 'Lease', lease);
      if (!l || l.paid >= l.totalPrice) {
        // Registered permanently (no lease) or paid off: the spec's row without a code. It succeeds and says so.
        run.logs.push(NOTHING_TO_RECLAIM_LOG);
        return;
      }
      if (run.now <= l.paidThrough) throw fail('InvalidState', `the lease is paid through ${l.paidThrough}`);
      const h = run.loadHandle(handle);
      write(handle, encodeHandle({ ...h, owner: ZERO_ADDRESS, tokenized: false, mint: null }));
      closeAccount(run, lease, l.lessee);
      return;
    }
    case 'init_config': {
      const { payer, config } = ix.accounts;
      run.requireSigner(payer, 'payer');
      const bump = await expectPda(config, MARKET_PDAS.config(programId), 'config');
      if (run.read(config)) throw fail('AlreadyExists', 'the config is set once');
      write(config, encodeMarketAccount('Config', { ...ix.args, bump }));
      return;
    }
    case 'initiate_recovery': {
      const { config, handle, recovery } = ix.accounts;
      requireTreasury(run, emu, config, ix.remaining);
      const h = run.loadHandle(handle);
      if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized: its NFT holder controls it`);
      await refuseWhileBidStands(emu, run, handle);
      const bump = await expectPda(recovery, MARKET_PDAS.recovery(programId, handle), 'recovery');
      write(
        recovery,
        encodeMarketAccount('Recovery', {
          handle,
          newOwner: ix.args.newOwner,
          initiatedAt: run.now,
          completableAt: run.now + RECOVERY_DELAY_SECONDS,
          bump,
        }),
      );
      return;
    }
    case 'complete_recovery': {
      const { newOwner, handle, recovery } = ix.accounts;
      run.requireSigner(newOwner, 'new owner');
      const rec = requireMarket(run, emu, 'Recovery', recovery);
      if (rec.handle !== handle || rec.newOwner !== newOwner) throw fail('NotAuthority', 'not this recovery');
      const h = run.loadHandle(handle);
      if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized`);
      await refuseWhileBidStands(emu, run, handle);
      if (run.now < rec.completableAt) throw fail('InvalidState', `recovery completes from ${rec.completableAt}`);
      write(handle, encodeHandle({ ...h, owner: newOwner }));
      closeAccount(run, recovery, newOwner);
      return;
    }
    case 'set_reserved_claim_approval': {
      const { config, reservation } = ix.accounts;
      requireTreasury(run, emu, config, ix.remaining);
      const { name, domain, claimant } = ix.args;
      const bump = await expectPda(reservation, MARKET_PDAS.reservation(programId, name), 'reservation');
      write(reservation, encodeMarketAccount('Reservation', { claimant, approvedAt: run.now, bump, name, domain }));
      return;
    }
    case 'claim_reserved': {
      const { claimant, handle, reservation } = ix.accounts;
      const { name, domain } = ix.args;
      run.requireSigner(claimant, 'claimant');
      await expectPda(reservation, MARKET_PDAS.reservation(programId, name), 'reservation');
      const res = readMarket(run, emu, 'Reservation', reservation);
      if (!res || res.domain !== domain || res.claimant !== claimant)
        throw fail('ReservedClaimNotApproved', `${domain} is not approved for the reservation of @${name}`);
      const handleBump = await expectPda(handle, findHandlePda(programId, name), 'handle');
      const existing = run.read(handle);
      if (existing && decodeHandle(handle, existing.data).owner !== ZERO_ADDRESS)
        throw fail('AlreadyRegistered', `@${name} is registered`);
      const epoch = existing ? decodeHandle(handle, existing.data).registrationEpoch + 1n : 1n;
      write(
        handle,
        encodeHandle({
          owner: claimant,
          handleType: 2,
          tokenized: false,
          mint: null,
          registrationEpoch: epoch,
          registeredAt: run.now,
          registeredSlot: run.slot,
          bump: handleBump,
          name,
        }),
      );
      closeAccount(run, reservation, claimant);
      return;
    }
    case 'set_namespace_pricing': {
      const { authority, namespace, pricing, creatorPayout } = ix.accounts;
      run.requireSigner(authority, 'authority');
      const ns = run.load(namespace, decodeNamespace, 'namespace');
      if (ns.authority !== authority) throw fail('NotAuthority', `only the authority of .${ns.tld} prices it`);
      const { price } = ix.args;
      if (price < NAMESPACE_PRICE_FLOOR_LAMPORTS)
        throw fail('NamespaceTierBelowFloor', `price is at least ${NAMESPACE_PRICE_FLOOR_LAMPORTS} lamports`);
      if (price > NAMESPACE_PRICE_CEILING_LAMPORTS)
        throw fail('NamespaceTierAboveMax', `price is at most ${NAMESPACE_PRICE_CEILING_LAMPORTS} lamports`);
      if (creatorPayout.startsWith(SYSVAR_PREFIX) || run.read(creatorPayout)?.executable)
        throw fail('UnreceivableCreatorPayout', `${creatorPayout} cannot receive payouts`);
      const bump = await expectPda(pricing, MARKET_PDAS.namespacePricing(programId, namespace), 'pricing');
      write(
        pricing,
        encodeMarketAccount('NamespacePricing', { namespace, creatorPayout, price, updatedAt: run.now, bump }),
      );
      return;
    }
    case 'register_under_namespace_v2': {
      const { payer, owner, namespace, domain, pricing, creatorPayout } = ix.accounts;
      const { label, maxPriceLamports } = ix.args;
      run.requireSigner(payer, 'payer');
      run.requireSigner(owner, 'owner');
      const ns = run.load(namespace, decodeNamespace, 'namespace');
      if (!ns.active) throw fail('NamespaceInactive', `.${ns.tld} is not active`);
      const [expected] = await MARKET_PDAS.namespacePricing(programId, namespace);
      let p: ReturnType<typeof readMarket<'NamespacePricing'>> = null;
      try {
        p = pricing === expected ? readMarket(run, emu, 'NamespacePricing', pricing) : null;
      } catch {
        p = null; // undecodable: the same mismatch as a wrong account
      }
      if (!p || p.namespace !== namespace || p.creatorPayout !== creatorPayout)
        throw fail('NamespacePricingMismatch', `pricing must be ${expected}, with its creator payout`);
      if (p.price > maxPriceLamports)
        throw fail('PriceExceedsMax', `the price is ${p.price} lamports, above ${maxPriceLamports}`);
      await registerDomain(emu, run, { payer, owner, namespace, domain, label, tld: ns.tld });
      run.moveLamports(payer, creatorPayout, p.price);
      return;
    }
    case 'set_record_delegate': {
      const { authority, handle, delegateAccount } = ix.accounts;
      const h = run.loadHandle(handle);
      await run.requireAuthority(h, authority);
      const bump = await expectPda(delegateAccount, MARKET_PDAS.recordDelegate(programId, handle), 'delegate');
      write(
        delegateAccount,
        encodeMarketAccount('RecordDelegate', {
          handle,
          delegate: ix.args.delegate,
          handleEpoch: h.registrationEpoch,
          bump,
        }),
      );
      return;
    }
    case 'set_record_as_delegate': {
      const { delegate, handle, delegateAccount, record } = ix.accounts;
      run.requireSigner(delegate, 'delegate');
      await expectPda(delegateAccount, MARKET_PDAS.recordDelegate(programId, handle), 'delegate');
      const d = readMarket(run, emu, 'RecordDelegate', delegateAccount);
      if (!d) {
        // Anchor's account constraint, not the program's own code.
        run.logs.push(
          'Program log: AnchorError caused by account: delegate_account. Error Code: AccountNotInitialized. ' +
            'Error Number: 3012. Error Message: The program expected this account to be already initialized.',
        );
        throw new RegistryFailure({ Custom: 3012 }, 'DelegateAccountMissing: no record delegate is set');
      }
      const h = run.loadHandle(handle);
      if (d.delegate !== delegate || d.handleEpoch !== h.registrationEpoch)
        throw fail('NotAuthority', `${delegate} is not the record delegate of @${h.name}`);
      const authority = await run.authorityOf(h);
      if (!authority) throw fail('NotAuthority', `@${h.name} has no authority`);
      const kind = ix.args.kind === 0 ? 'address' : 'text';
      const bump = await expectPda(record, findRecordPda(programId, handle, kind, ix.args.key), 'record');
      // Written in the authority's name, so the record stays fresh under the service's staleness rule.
      write(
        record,
        encodeRecord({
          handle,
          kind,
          key: ix.args.key,
          value: ix.args.value,
          authority,
          handleEpoch: h.registrationEpoch,
          verified: false,
          verifiedAt: 0,
          updatedAt: run.now,
          updatedSlot: run.slot,
          bump,
        }),
      );
      return;
    }
  }
}

function paidThrough(startedAt: number, paid: bigint): number {
  return startedAt + Number((BigInt(LEASE_YEAR_SECONDS) * paid) / LEASE_YEAR_PRICE_LAMPORTS);
}

async function registerDomain(
  emu: EmulatorContext,
  run: InstructionRun,
  a: { payer: Address; owner: Address; namespace: Address; domain: Address; label: string; tld: string },
): Promise<void> {
  const bump = await expectPda(a.domain, findDomainPda(emu.programId, a.namespace, a.label), 'domain');
  const existing = run.read(a.domain);
  if (existing)
    throw fail('AlreadyRegistered', `${decodeDomain(a.domain, existing.data).label}.${a.tld} is registered`);
  run.writeProgramAccount(
    a.domain,
    encodeDomain({
      namespace: a.namespace,
      owner: a.owner,
      tokenized: false,
      mint: null,
      registeredAt: run.now,
      registeredSlot: run.slot,
      bump,
      label: a.label,
      tld: a.tld,
    }),
    a.payer,
  );
}

/**
 * A plain SPL transfer out of the token account that holds a listed handle NFT fails as the spec says: custom
 * error 0x93 raised by the token program's instruction (the stock program would say 0x11, AccountFrozen).
 */
export function screenFrozenNftSend(emu: EmulatorContext, tx: DecodedTransaction): ExecutionOutcome | null {
  const transfers = tx.instructions
    .map((ix, index) => ({ ix, index }))
    .filter(
      ({ ix }) =>
        TOKEN_PROGRAMS.includes(ix.programId) && MOVES_TOKENS.has(ix.data[0]!) && ix.accountIndices.length > 0,
    );
  if (transfers.length === 0) return null;
  const listedMints = new Set<string>();
  const { mint: mintOffset } = MARKET_ACCOUNT_OFFSETS.Listing;
  for (const { account } of emu.ledger.accountsOwnedBy(emu.programId, 'processed')) {
    const head = account.data.subarray(0, 8);
    if (account.data.length >= mintOffset + 32 && bytesEqual(head, MARKET_ACCOUNT_DISCRIMINATORS.Listing))
      listedMints.add(decodeMarketAccount('Listing', account.data).mint);
  }
  for (const { ix, index } of transfers) {
    const token = readTokenAccount(snapshotOf(emu.svm, tx.accountKeys[ix.accountIndices[0]!]!));
    if (token && listedMints.has(token.mint)) {
      return {
        err: { InstructionError: [index, { Custom: FROZEN_NFT }] },
        logs: [
          `Program ${ix.programId} invoke [1]`,
          'Program log: Error: Account is frozen',
          `Program ${ix.programId} failed: custom program error: 0x93`,
        ],
        innerInstructions: [],
        computeUnits: 0n,
      };
    }
  }
  return null;
}
