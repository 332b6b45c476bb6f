// Rows of the handle's own instructions: registration, release, transfer, tokenizing, the primary pointer.
import type { DeriveRows } from './context';
import { dropRecords, handleRow, primaryNameOf, registerHandle, setPrimaryRow, updateHandle } from './queries';
import { clearPrimaries, handleRef } from './state';

export const handleRows = {
  register: async (c, ix) => {
    const { owner, handle } = ix.accounts;
    const before = (await handleRow(c.trx, handle))?.owner ?? null;
    const ref = { name: ix.args.name, account: handle };
    await registerHandle(c.trx, handle, ix.args.name, owner);
    await dropRecords(c.trx, handle); // a new registration starts without records (older ones are stale)
    c.emit(
      {
        type: 'handle.registered',
        handle: ref,
        actors: { signer: c.signer, owner },
        change: { handleType: ix.args.handleType, owner: { before, after: owner } },
      },
      [before],
    );
  },
  release: async (c, ix) => {
    const { owner, handle } = ix.accounts;
    const ref = await handleRef(c, handle);
    if (!ref) return;
    await updateHandle(c.trx, handle, { owner: null, tokenized: 0, mint: null });
    await dropRecords(c.trx, handle);
    c.emit({
      type: 'handle.released',
      handle: ref,
      actors: { signer: c.signer, owner },
      change: { owner: { before: owner, after: null } },
    });
    await clearPrimaries(c, ref, null, 'handle_released');
  },
  transfer: async (c, ix) => {
    const { owner, handle } = ix.accounts;
    const newOwner = ix.args.newOwner;
    const ref = await handleRef(c, handle);
    if (!ref) return;
    await updateHandle(c.trx, handle, { owner: newOwner });
    await dropRecords(c.trx, handle); // written by the previous authority: stale from now on
    c.emit({
      type: 'handle.transferred',
      handle: ref,
      actors: { signer: c.signer, owner, newOwner },
      change: { owner: { before: owner, after: newOwner } },
    });
    await clearPrimaries(c, ref, newOwner, 'handle_transferred');
  },
  tokenize: async (c, ix) => {
    const { owner, handle, mint } = ix.accounts;
    const ref = await handleRef(c, handle);
    if (!ref) return;
    await updateHandle(c.trx, handle, { tokenized: 1, mint });
    c.emit({
      type: 'handle.tokenized',
      handle: ref,
      actors: { signer: c.signer, owner },
      change: { tokenized: { before: false, after: true }, mint: { before: null, after: mint } },
    });
  },
  set_primary: async (c, ix) => {
    const { wallet, handle } = ix.accounts;
    const ref = await handleRef(c, handle);
    if (!ref) return;
    const previous = await primaryNameOf(c.trx, wallet);
    await setPrimaryRow(c.trx, wallet, handle);
    c.emit({
      type: 'primary.set',
      handle: ref,
      actors: { signer: c.signer, wallet },
      change: { wallet, primary: { before: previous?.name ?? null, after: ref.name } },
    });
  },
} satisfies DeriveRows;
