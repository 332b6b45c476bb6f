// Scenario steps: every demo wallet funded, and the USDX token (treasury's mint) with accounts for the payers and
// alice (the invoices' payee).
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
} from '@solana-program/token';
import { TOKEN_PROGRAM_ADDRESS } from '../../platform/chain/programs';
import { ata, exec, LAMPORTS, USDX_DECIMALS, WALLET_NAMES, type Seed } from './seed';

const MINT_SIZE = 82n;

export async function fundWallets(s: Seed): Promise<void> {
  const { core, w } = s;
  for (const name of WALLET_NAMES) {
    await core.ledger.queue.run(() =>
      core.airdrop(w[name].address, name.startsWith('payer') ? 100n * LAMPORTS : 10n * LAMPORTS),
    );
  }
  await s.driver.advance(1);
}

export async function createUsdx(s: Seed): Promise<void> {
  const { core, w, mintSigners } = s;
  const usdx = mintSigners.usdx.address;
  await exec(
    s,
    w.treasury,
    [
      getCreateAccountInstruction({
        payer: w.treasury,
        newAccount: mintSigners.usdx,
        lamports: core.svm.minimumBalanceForRentExemption(MINT_SIZE),
        space: MINT_SIZE,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({
        mint: usdx,
        decimals: USDX_DECIMALS,
        mintAuthority: w.treasury.address,
        freezeAuthority: null,
      }),
    ],
    [mintSigners.usdx],
  );
  for (const holder of [w.payer1, w.payer2, w.alice]) {
    const account = await ata(holder.address, usdx);
    const amount = holder === w.alice ? 0n : 1000n * 10n ** BigInt(USDX_DECIMALS);
    await exec(s, w.treasury, [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: w.treasury,
        ata: account,
        owner: holder.address,
        mint: usdx,
      }),
      ...(amount > 0n ? [getMintToInstruction({ mint: usdx, token: account, mintAuthority: w.treasury, amount })] : []),
    ]);
  }
}
