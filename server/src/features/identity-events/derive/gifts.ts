// Rows of gifts (vouchers): the voucher holds the handle in escrow until it is claimed or refunded.
import { isoSeconds } from '@sigil/contract/webhooks';
import type { DeriveContext, DeriveRows, Ix } from './context';
import { clearPrimaries, kvGet, kvSet, moveOwner, transferred } from './state';

/** What the log keeps of a voucher: its parties and, once settled, how (the account is closed then). */
export interface VoucherFacts {
  recipient?: string;
  creator?: string;
  handle?: string;
  expiresAt?: number;
  outcome?: 'claimed' | 'refunded';
}

/** The kept facts of a voucher, and how it was settled. */
async function settle(c: DeriveContext, voucher: string, outcome: 'claimed' | 'refunded', fallback: VoucherFacts) {
  const known = await kvGet<VoucherFacts>(c, 'voucher', voucher);
  await kvSet(c, 'voucher', voucher, { ...fallback, ...known, outcome });
  return known;
}

async function giftClaimed(c: DeriveContext, ix: Ix<'claim_voucher' | 'claim_voucher_tokenized'>) {
  const { handle, voucher, creator } = ix.accounts;
  const bound = 'recipient' in ix.accounts ? ix.accounts.recipient : ix.accounts.claimer;
  const known = await settle(c, voucher, 'claimed', { recipient: bound, creator, handle });
  const recipient = 'recipient' in ix.accounts ? ix.accounts.recipient : (known?.recipient ?? ix.accounts.claimer);
  const { ref, before } = await moveOwner(c, handle, recipient);
  c.emit({
    type: 'gift.claimed',
    handle: ref,
    actors: { signer: c.signer, creator, recipient },
    change: { voucher, owner: { before: before ?? voucher, after: recipient } },
  });
  await transferred(c, ref, creator, recipient, 'gift.claimed');
}

export const giftRows = {
  create_voucher: async (c, ix) => {
    const { creator, handle, voucher, recipient } = ix.accounts;
    // The handle is held in escrow by the voucher account until it is claimed or refunded.
    const { ref, before } = await moveOwner(c, handle, voucher);
    const facts: VoucherFacts = { recipient, creator, handle, expiresAt: ix.args.expiresAt };
    await kvSet(c, 'voucher', voucher, facts);
    c.emit({
      type: 'gift.created',
      handle: ref,
      actors: { signer: c.signer, creator, recipient },
      change: {
        voucher,
        recipient,
        expiresAt: ix.args.expiresAt === 0 ? null : isoSeconds(ix.args.expiresAt),
        owner: { before: before ?? creator, after: voucher },
      },
    });
    if (ref) await clearPrimaries(c, ref, null, 'handle_transferred');
  },
  claim_voucher: giftClaimed,
  claim_voucher_tokenized: giftClaimed,
  refund_voucher: async (c, ix) => {
    const { creator, handle, voucher } = ix.accounts;
    await settle(c, voucher, 'refunded', { creator, handle });
    const { ref, before } = await moveOwner(c, handle, creator);
    c.emit({
      type: 'gift.refunded',
      handle: ref,
      actors: { signer: c.signer, creator },
      change: { voucher, owner: { before: before ?? voucher, after: creator } },
    });
  },
} satisfies DeriveRows;
