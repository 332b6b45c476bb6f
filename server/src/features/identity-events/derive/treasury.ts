// Rows of what the treasury multisig approves: a recovery to a new owner, and a reserved name claimed by the
// claimant it approved.
import type { DeriveRows } from './context';
import { handleRef, moveOwner, transferred } from './state';

export const treasuryRows = {
  initiate_recovery: async (c, ix) => {
    const { handle, recovery } = ix.accounts;
    c.emit({
      type: 'recovery.initiated',
      handle: await handleRef(c, handle),
      actors: { signer: c.signer, newOwner: ix.args.newOwner },
      change: { recovery, newOwner: ix.args.newOwner },
    });
  },
  complete_recovery: async (c, ix) => {
    const { newOwner, handle, recovery } = ix.accounts;
    const { ref, before } = await moveOwner(c, handle, newOwner);
    c.emit({
      type: 'recovery.completed',
      handle: ref,
      actors: { signer: c.signer, newOwner },
      change: { recovery, owner: { before, after: newOwner } },
    });
    await transferred(c, ref, before, newOwner, 'recovery.completed');
  },
  claim_reserved: async (c, ix) => {
    const { claimant, handle } = ix.accounts;
    const { ref, before } = await moveOwner(c, handle, claimant, ix.args.name);
    c.emit({
      type: 'handle.registered',
      handle: ref,
      actors: { signer: c.signer, owner: claimant },
      change: { handleType: null, owner: { before, after: claimant }, via: 'reserved.claimed' },
    });
  },
} satisfies DeriveRows;
