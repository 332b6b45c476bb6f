// Rows of offers on a handle: made, cancelled by the buyer, accepted by the owner (a change of owner).
import type { DeriveRows } from './context';
import { handleRef, kvGet, kvSet, moveOwner, transferred } from './state';

export const offerRows = {
  make_offer: async (c, ix) => {
    const { buyer, handle, offer } = ix.accounts;
    const amount = ix.args.amount.toString();
    await kvSet(c, 'offer', offer, { handle, amount });
    c.emit({
      type: 'offer.made',
      handle: await handleRef(c, handle),
      actors: { signer: c.signer, buyer },
      change: { offer, amount },
    });
  },
  cancel_offer: async (c, ix) => {
    const { buyer, offer } = ix.accounts;
    const known = await kvGet<{ handle: string; amount: string }>(c, 'offer', offer);
    c.emit({
      type: 'offer.cancelled',
      handle: known ? await handleRef(c, known.handle) : null,
      actors: { signer: c.signer, buyer },
      change: { offer, amount: known?.amount ?? null },
    });
  },
  accept_offer: async (c, ix) => {
    const { owner, handle, offer, buyer } = ix.accounts;
    const { ref, before } = await moveOwner(c, handle, buyer);
    const amount = ix.args.expectedAmount.toString();
    c.emit({
      type: 'offer.accepted',
      handle: ref,
      actors: { signer: c.signer, owner, buyer },
      change: { offer, amount, owner: { before: before ?? owner, after: buyer } },
    });
    await transferred(c, ref, before ?? owner, buyer, 'offer.accepted');
  },
} satisfies DeriveRows;
