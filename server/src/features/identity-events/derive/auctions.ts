// Rows of auctions: created, bid on, settled (a change of owner when someone bid), cancelled or closed when stale.
import type { DeriveContext, DeriveRows, Ix } from './context';
import { handleRef, kvGet, kvSet, moveOwner, transferred } from './state';

async function auctionEnded(c: DeriveContext, ix: Ix<'cancel_auction' | 'close_stale_auction'>) {
  const { handle, auction, seller } = ix.accounts;
  c.emit({
    type: ix.name === 'cancel_auction' ? 'auction.cancelled' : 'auction.closed',
    handle: await handleRef(c, handle),
    actors: { signer: c.signer, seller },
    change: { auction },
  });
}

export const auctionRows = {
  create_auction: async (c, ix) => {
    const { seller, handle, auction } = ix.accounts;
    c.emit({
      type: 'auction.created',
      handle: await handleRef(c, handle),
      actors: { signer: c.signer, seller },
      change: { auction, reserve: ix.args.reserve.toString(), durationSeconds: ix.args.duration },
    });
  },
  place_bid: async (c, ix) => {
    const { bidder, handle, auction } = ix.accounts;
    const previous = await kvGet<{ bidder: string }>(c, 'auction', auction);
    await kvSet(c, 'auction', auction, { bidder });
    c.emit({
      type: 'auction.bid',
      handle: await handleRef(c, handle),
      actors: { signer: c.signer, bidder },
      change: { auction, amount: ix.args.amount.toString(), previousBidder: previous?.bidder ?? null },
    });
  },
  settle_auction: async (c, ix) => {
    const { handle, auction, seller } = ix.accounts;
    const high = await kvGet<{ bidder: string }>(c, 'auction', auction);
    const winner = high?.bidder ?? null;
    const { ref, before } = winner
      ? await moveOwner(c, handle, winner)
      : { ref: await handleRef(c, handle), before: seller };
    c.emit({
      type: 'auction.settled',
      handle: ref,
      actors: { signer: c.signer, seller },
      change: { auction, winner, owner: { before: before ?? seller, after: winner ?? seller } },
    });
    if (winner) await transferred(c, ref, before ?? seller, winner, 'auction.settled');
  },
  cancel_auction: auctionEnded,
  close_stale_auction: auctionEnded,
} satisfies DeriveRows;
