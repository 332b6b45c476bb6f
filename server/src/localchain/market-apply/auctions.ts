// Auctions of an untokenized handle: the high bid is held in the auction account, bids extend a closing
// auction, and the seller gets the bid (or the handle back) when it is settled, cancelled or closed as stale.
import {
  AUCTION_EXTENSION_SECONDS,
  AUCTION_MAX_DURATION,
  AUCTION_MIN_DURATION,
  AUCTION_MIN_INCREMENT_PERCENT,
  encodeHandle,
  encodeMarketAccount,
  MARKET_PDAS,
} from '../../platform/chain/registry';
import { expectPda, fail } from '../emulator-run';
import { closeAccount, requireMarket, write, type MarketRows } from './accounts';

export const auctionRows = {
  create_auction: async (emu, run, ix) => {
    const { programId } = emu;
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
      run,
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
  },
  place_bid: async (emu, run, ix) => {
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
    write(run, auction, encodeMarketAccount('Auction', { ...a, highBid: amount, highBidder: bidder, endAt }));
  },
  settle_auction: async (emu, run, ix) => {
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
      write(run, handle, encodeHandle({ ...h, owner: winner }));
    }
    closeAccount(run, auction, seller); // the high bid and the rent go to the seller
  },
  cancel_auction: async (emu, run, ix) => {
    const { seller, auction } = ix.accounts;
    run.requireSigner(seller, 'seller');
    const a = requireMarket(run, emu, 'Auction', auction);
    if (a.seller !== seller) throw fail('NotAuthority', 'only the seller cancels');
    if (a.highBidder) throw fail('AuctionHasBids', 'the auction has a bid');
    closeAccount(run, auction, seller);
  },
  close_stale_auction: async (emu, run, ix) => {
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
  },
} satisfies MarketRows;
