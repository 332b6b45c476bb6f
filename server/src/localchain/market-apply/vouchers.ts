// Gifts: the voucher account holds the handle until its recipient claims it (as is, or as an NFT) or it
// expires and its creator takes it back.
import {
  encodeHandle,
  encodeMarketAccount,
  MARKET_PDAS,
  type MarketInstruction,
  VOUCHER_MAX_EXPIRY_SECONDS,
} from '../../platform/chain/registry';
import { expectPda, fail, mintHandleNft, type EmulatorContext, type InstructionRun } from '../emulator-run';
import type { InstructionOf } from '../../platform/chain/registry/instruction-table';
import { TOKEN_PROGRAMS } from '../tokens';
import { closeAccount, expectAta, refuseWhileBidStands, requireMarket, write, type MarketRows } from './accounts';

async function claimVoucher(
  emu: EmulatorContext,
  run: InstructionRun,
  ix: InstructionOf<MarketInstruction, 'claim_voucher' | 'claim_voucher_tokenized'>,
): Promise<void> {
  const { claimer, handle, voucher, creator } = ix.accounts;
  run.requireSigner(claimer, 'claimer');
  const v = requireMarket(run, emu, 'Voucher', voucher);
  if (v.handle !== handle || v.creator !== creator) throw fail('InvalidPda', 'voucher mismatch');
  if (run.now >= v.expiresAt) throw fail('InvalidState', 'the voucher has expired: the creator may refund it');
  const h = run.loadHandle(handle);
  if (ix.name === 'claim_voucher') {
    if (claimer !== v.recipient) throw fail('VoucherClaimNotRecipient', `only ${v.recipient} claims this gift`);
    write(run, handle, encodeHandle({ ...h, owner: v.recipient }));
  } else {
    // Any signer may crank it: the NFT always goes to the bound recipient.
    const { recipient, mint, recipientTokenAccount, tokenProgram } = ix.accounts;
    if (recipient !== v.recipient) throw fail('InvalidPda', `recipient must be ${v.recipient}`);
    run.requireSigner(mint, 'mint');
    if (!TOKEN_PROGRAMS.includes(tokenProgram))
      throw fail('InvalidTokenAccount', `${tokenProgram} is not a token program`);
    await expectAta(recipient, mint, tokenProgram, recipientTokenAccount, 'recipient token account');
    mintHandleNft(run, { holder: recipient, mint, ata: recipientTokenAccount, tokenProgram });
    write(run, handle, encodeHandle({ ...h, owner: recipient, tokenized: true, mint }));
  }
  closeAccount(run, voucher, creator);
}

export const voucherRows = {
  create_voucher: async (emu, run, ix) => {
    const { programId } = emu;
    const { creator, handle, voucher, recipient } = ix.accounts;
    const h = run.loadHandle(handle);
    if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized: send the NFT instead`);
    await run.requireAuthority(h, creator);
    await refuseWhileBidStands(emu, run, handle);
    const { id, expiresAt } = ix.args;
    if (expiresAt <= run.now) throw fail('InvalidState', 'a voucher expires in the future');
    if (expiresAt - run.now > VOUCHER_MAX_EXPIRY_SECONDS)
      throw fail('VoucherExpiryTooFar', 'a gift expires at most 366 days ahead');
    const bump = await expectPda(voucher, MARKET_PDAS.voucher(programId, creator, id), 'voucher');
    if (run.read(voucher)) throw fail('AlreadyExists', `voucher ${id} exists`);
    write(
      run,
      voucher,
      encodeMarketAccount('Voucher', { creator, recipient, handle, id, expiresAt, createdAt: run.now, bump }),
    );
    // The gift is held by the voucher: nobody controls the handle until it is claimed or refunded.
    write(run, handle, encodeHandle({ ...h, owner: voucher }));
  },
  claim_voucher: claimVoucher,
  claim_voucher_tokenized: claimVoucher,
  refund_voucher: async (emu, run, ix) => {
    const { creator, handle, voucher } = ix.accounts;
    run.requireSigner(creator, 'creator');
    const v = requireMarket(run, emu, 'Voucher', voucher);
    if (v.creator !== creator || v.handle !== handle) throw fail('NotAuthority', 'only the creator refunds');
    if (run.now < v.expiresAt) throw fail('VoucherNotExpired', `the voucher expires at ${v.expiresAt}`);
    const h = run.loadHandle(handle);
    write(run, handle, encodeHandle({ ...h, owner: creator }));
    closeAccount(run, voucher, creator);
  },
} satisfies MarketRows;
