// Rows of listings of a tokenized handle: listed, delisted, sold (a change of owner).
import type { DeriveRows } from './context';
import { handleRef, kvGet, kvSet, moveOwner, transferred } from './state';

export const listingRows = {
  list_handle: async (c, ix) => {
    const { seller, handle, listing } = ix.accounts;
    const price = ix.args.price.toString();
    await kvSet(c, 'listing', listing, { handle, price });
    c.emit({
      type: 'listing.created',
      handle: await handleRef(c, handle),
      actors: { signer: c.signer, seller },
      change: { listing, price },
    });
  },
  delist_handle: async (c, ix) => {
    const { seller, listing } = ix.accounts;
    const known = await kvGet<{ handle: string; price: string }>(c, 'listing', listing);
    c.emit({
      type: 'listing.cancelled',
      handle: known ? await handleRef(c, known.handle) : null,
      actors: { signer: c.signer, seller },
      change: { listing, price: known?.price ?? null },
    });
  },
  buy_listing: async (c, ix) => {
    const { buyer, handle, listing, seller } = ix.accounts;
    const { ref } = await moveOwner(c, handle, buyer);
    const price = ix.args.expectedPrice.toString();
    // A listed handle is tokenized: the seller was its authority (NFT holder) whatever the owner field said.
    c.emit({
      type: 'listing.sold',
      handle: ref,
      actors: { signer: c.signer, buyer, seller },
      change: { listing, price, owner: { before: seller, after: buyer } },
    });
    await transferred(c, ref, seller, buyer, 'listing.sold');
  },
} satisfies DeriveRows;
