// The handle's own instructions: registration (a new epoch after a release), release, transfer, tokenizing
// (the handle NFT minted to its owner) and the wallet's primary pointer.
import { findAssociatedTokenPda } from '@solana-program/token';
import { matchesHandleGrammar, normalizeName } from '@sigil/contract/names';
import {
  decodeHandle,
  encodeHandle,
  encodePrimaryPointer,
  findHandlePda,
  findPrimaryPointerPda,
  HANDLE_TYPE_AGENT,
} from '../../platform/chain/registry';
import { ZERO_ADDRESS } from '../../platform/chain/trust-rules';
import { expectPda, fail, mintHandleNft } from '../emulator-run';
import { refuseWhileBidStands } from '../market-apply/accounts';
import { TOKEN_PROGRAMS } from '../tokens';
import type { RegistryRows } from './rows';

export const handleRows = {
  register: async (emu, run, ix) => {
    const { programId } = emu;
    const { payer, owner, handle } = ix.accounts;
    const { name, handleType } = ix.args;
    if (normalizeName(name).name !== name || name.startsWith('@') || !matchesHandleGrammar(name)) {
      throw fail('InvalidName', `"${name}" is not a normalized handle`);
    }
    run.requireSigner(payer, 'payer');
    run.requireSigner(owner, 'owner');
    const bump = await expectPda(handle, findHandlePda(programId, name), 'handle');
    const existing = run.read(handle);
    let registrationEpoch = 1n;
    if (existing) {
      const previous = decodeHandle(handle, existing.data);
      if (previous.owner !== ZERO_ADDRESS) throw fail('AlreadyRegistered', `@${name} is registered`);
      if (previous.handleType === HANDLE_TYPE_AGENT && handleType !== HANDLE_TYPE_AGENT) {
        throw fail('HandleTypeImmutable', `@${name} is an Agent handle`);
      }
      registrationEpoch = previous.registrationEpoch + 1n;
    }
    const data = encodeHandle({
      owner,
      handleType,
      tokenized: false,
      mint: null,
      registrationEpoch,
      registeredAt: run.now,
      registeredSlot: run.slot,
      bump,
      name,
    });
    run.writeProgramAccount(handle, data, payer);
    run.logs.push(`Program log: registered @${name} epoch ${registrationEpoch}`);
  },
  release: async (emu, run, ix) => {
    const feePayer = run.tx.accountKeys[0]!;
    const { owner, handle } = ix.accounts;
    const data = run.loadHandle(handle);
    await run.requireAuthority(data, owner);
    await refuseWhileBidStands(emu, run, handle);
    run.writeProgramAccount(
      handle,
      encodeHandle({ ...data, owner: ZERO_ADDRESS, tokenized: false, mint: null }),
      feePayer,
    );
  },
  set_primary: async (emu, run, ix) => {
    const { programId } = emu;
    const feePayer = run.tx.accountKeys[0]!;
    const { wallet, handle, primary } = ix.accounts;
    const data = run.loadHandle(handle);
    await run.requireAuthority(data, wallet);
    const bump = await expectPda(primary, findPrimaryPointerPda(programId, wallet), 'primary');
    run.writeProgramAccount(
      primary,
      encodePrimaryPointer({
        wallet,
        handle,
        handleEpoch: data.registrationEpoch,
        setAt: run.now,
        setSlot: run.slot,
        bump,
      }),
      feePayer,
    );
  },
  tokenize: async (_emu, run, ix) => {
    const feePayer = run.tx.accountKeys[0]!;
    const { owner, handle, mint, ownerTokenAccount, tokenProgram } = ix.accounts;
    const data = run.loadHandle(handle);
    if (data.tokenized) throw fail('AlreadyTokenized', `@${data.name} is already tokenized`);
    await run.requireAuthority(data, owner);
    run.requireSigner(mint, 'mint');
    if (!TOKEN_PROGRAMS.includes(tokenProgram))
      throw fail('InvalidTokenAccount', `${tokenProgram} is not a token program`);
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
    if (ata !== ownerTokenAccount)
      throw fail('InvalidTokenAccount', `owner token account must be the associated token account ${ata}`);
    mintHandleNft(run, { holder: owner, mint, ata, tokenProgram });
    run.writeProgramAccount(handle, encodeHandle({ ...data, tokenized: true, mint }), feePayer);
  },
  transfer: async (emu, run, ix) => {
    const feePayer = run.tx.accountKeys[0]!;
    const { owner, handle } = ix.accounts;
    const data = run.loadHandle(handle);
    if (data.tokenized) throw fail('HandleIsTokenized', `@${data.name} is tokenized: transfer the NFT instead`);
    await run.requireAuthority(data, owner);
    await refuseWhileBidStands(emu, run, handle);
    run.writeProgramAccount(handle, encodeHandle({ ...data, owner: ix.args.newOwner }), feePayer);
  },
} satisfies RegistryRows;
