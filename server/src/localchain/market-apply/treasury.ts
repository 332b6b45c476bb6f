// What the treasury multisig decides: the market's config (its members and threshold), recoveries of a
// handle to a new owner after a delay, and reserved names approved for one claimant.
import {
  decodeHandle,
  encodeHandle,
  encodeMarketAccount,
  findHandlePda,
  MARKET_PDAS,
  RECOVERY_DELAY_SECONDS,
} from '../../platform/chain/registry';
import { ZERO_ADDRESS } from '../../platform/chain/trust-rules';
import { expectPda, fail } from '../emulator-run';
import {
  closeAccount,
  readMarket,
  refuseWhileBidStands,
  requireMarket,
  requireTreasury,
  write,
  type MarketRows,
} from './accounts';

export const treasuryRows = {
  init_config: async (emu, run, ix) => {
    const { programId } = emu;
    const { payer, config } = ix.accounts;
    run.requireSigner(payer, 'payer');
    const bump = await expectPda(config, MARKET_PDAS.config(programId), 'config');
    if (run.read(config)) throw fail('AlreadyExists', 'the config is set once');
    write(run, config, encodeMarketAccount('Config', { ...ix.args, bump }));
  },
  initiate_recovery: async (emu, run, ix) => {
    const { programId } = emu;
    const { config, handle, recovery } = ix.accounts;
    requireTreasury(run, emu, config, ix.remaining);
    const h = run.loadHandle(handle);
    if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized: its NFT holder controls it`);
    await refuseWhileBidStands(emu, run, handle);
    const bump = await expectPda(recovery, MARKET_PDAS.recovery(programId, handle), 'recovery');
    write(
      run,
      recovery,
      encodeMarketAccount('Recovery', {
        handle,
        newOwner: ix.args.newOwner,
        initiatedAt: run.now,
        completableAt: run.now + RECOVERY_DELAY_SECONDS,
        bump,
      }),
    );
  },
  complete_recovery: async (emu, run, ix) => {
    const { newOwner, handle, recovery } = ix.accounts;
    run.requireSigner(newOwner, 'new owner');
    const rec = requireMarket(run, emu, 'Recovery', recovery);
    if (rec.handle !== handle || rec.newOwner !== newOwner) throw fail('NotAuthority', 'not this recovery');
    const h = run.loadHandle(handle);
    if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized`);
    await refuseWhileBidStands(emu, run, handle);
    if (run.now < rec.completableAt) throw fail('InvalidState', `recovery completes from ${rec.completableAt}`);
    write(run, handle, encodeHandle({ ...h, owner: newOwner }));
    closeAccount(run, recovery, newOwner);
  },
  set_reserved_claim_approval: async (emu, run, ix) => {
    const { programId } = emu;
    const { config, reservation } = ix.accounts;
    requireTreasury(run, emu, config, ix.remaining);
    const { name, domain, claimant } = ix.args;
    const bump = await expectPda(reservation, MARKET_PDAS.reservation(programId, name), 'reservation');
    write(run, reservation, encodeMarketAccount('Reservation', { claimant, approvedAt: run.now, bump, name, domain }));
  },
  claim_reserved: async (emu, run, ix) => {
    const { programId } = emu;
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
      run,
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
  },
} satisfies MarketRows;
