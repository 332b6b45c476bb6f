// The registry's market, emulated (docs/registry-program.md § Market): each instruction's rules in the order the
// program checks them, with the spec's error codes, one row per instruction in market-apply/ (table.ts). Lamports
// held for someone (offers, bids) sit in the market account itself above its rent; NFT moves and account creation
// that the spec attributes to another program (the second offer's 0x0) run for real in LiteSVM as CPIs.
import {
  bytesEqual,
  decodeMarketAccount,
  MARKET_ACCOUNT_DISCRIMINATORS,
  MARKET_ACCOUNT_OFFSETS,
  type MarketInstruction,
} from '../platform/chain/registry';
import { dispatchInstruction } from '../platform/chain/registry/instruction-table';
import type { EmulatorContext, InstructionRun } from './emulator-run';
import { snapshotOf } from './ledger';
import { MARKET_APPLIERS } from './market-apply/table';
import type { DecodedTransaction, ExecutionOutcome } from './processor';
import { readTokenAccount, TOKEN_PROGRAMS } from './tokens';

/** Token instructions a frozen account refuses: Transfer, Burn, TransferChecked, BurnChecked. */
const MOVES_TOKENS = new Set([3, 8, 12, 15]);
const FROZEN_NFT = 147;

export async function applyMarketInstruction(
  emu: EmulatorContext,
  run: InstructionRun,
  ix: MarketInstruction,
): Promise<void> {
  return dispatchInstruction(MARKET_APPLIERS, ix, emu, run);
}

/**
 * A plain SPL transfer out of the token account that holds a listed handle NFT fails as the spec says: custom
 * error 0x93 raised by the token program's instruction (the stock program would say 0x11, AccountFrozen).
 */
export function screenFrozenNftSend(emu: EmulatorContext, tx: DecodedTransaction): ExecutionOutcome | null {
  const transfers = tx.instructions
    .map((ix, index) => ({ ix, index }))
    .filter(
      ({ ix }) =>
        TOKEN_PROGRAMS.includes(ix.programId) && MOVES_TOKENS.has(ix.data[0]!) && ix.accountIndices.length > 0,
    );
  if (transfers.length === 0) return null;
  const listedMints = new Set<string>();
  const { mint: mintOffset } = MARKET_ACCOUNT_OFFSETS.Listing;
  for (const { account } of emu.ledger.accountsOwnedBy(emu.programId, 'processed')) {
    const head = account.data.subarray(0, 8);
    if (account.data.length >= mintOffset + 32 && bytesEqual(head, MARKET_ACCOUNT_DISCRIMINATORS.Listing))
      listedMints.add(decodeMarketAccount('Listing', account.data).mint);
  }
  for (const { ix, index } of transfers) {
    const token = readTokenAccount(snapshotOf(emu.svm, tx.accountKeys[ix.accountIndices[0]!]!));
    if (token && listedMints.has(token.mint)) {
      return {
        err: { InstructionError: [index, { Custom: FROZEN_NFT }] },
        logs: [
          `Program ${ix.programId} invoke [1]`,
          'Program log: Error: Account is frozen',
          `Program ${ix.programId} failed: custom program error: 0x93`,
        ],
        innerInstructions: [],
        computeUnits: 0n,
      };
    }
  }
  return null;
}
