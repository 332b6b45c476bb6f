// Rows of lease-to-own: the lease registers the handle to the lessee, instalments follow, a lapsed lease is
// reclaimed (the handle released).
import type { DeriveRows } from './context';
import { handleRef, moveOwner, transferred } from './state';

export const leaseRows = {
  start_lease: async (c, ix) => {
    const { lessee, handle, lease } = ix.accounts;
    const { ref, before } = await moveOwner(c, handle, lessee, ix.args.name);
    c.emit({
      type: 'lease.started',
      handle: ref,
      actors: { signer: c.signer, lessee },
      change: { lease, amount: ix.args.firstPayment.toString(), owner: { before, after: lessee } },
    });
    c.emit({
      type: 'handle.registered',
      handle: ref,
      actors: { signer: c.signer, owner: lessee },
      change: { handleType: null, owner: { before, after: lessee }, via: 'lease.started' },
    });
  },
  pay_lease: async (c, ix) => {
    const { lessee, handle, lease } = ix.accounts;
    c.emit({
      type: 'lease.paid',
      handle: await handleRef(c, handle),
      actors: { signer: c.signer, lessee },
      change: { lease, amount: ix.args.amount.toString() },
    });
  },
  reclaim_expired_lease: async (c, ix) => {
    const { handle, lease } = ix.accounts;
    const { ref, before } = await moveOwner(c, handle, null);
    c.emit({
      type: 'lease.reclaimed',
      handle: ref,
      actors: { signer: c.signer },
      change: { lease, owner: { before, after: null } },
    });
    await transferred(c, ref, before, null, 'lease.reclaimed');
  },
} satisfies DeriveRows;
