// A tokenized handle's authority is whoever holds its NFT (docs/registry-program.md), so a move of that NFT — an SPL
// Token transfer, outside the registry program — is a change of owner. The ingestion sees it in the transaction's
// token balances: one unit of a mint held by one wallet before and by another after. When the mint is a kept
// handle's and the kept owner is not already the new holder (a registry or market instruction of the same
// transaction, which moved the NFT itself, has already said so), the handle is transferred `via: "nft.transfer"`.
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../../../platform/chain/programs';
import type { ChainTransaction } from '../../../platform/chain/types';
import type { DeriveContext } from './context';
import { handleByMint } from './queries';
import { moveOwner, transferred } from './state';

/** One unit of `mint` that left `from` (token account `fromAccount`) for `to` (token account `toAccount`). */
export interface OneUnitMove {
  mint: string;
  from: string;
  to: string;
  fromAccount: string;
  toAccount: string;
}

const TOKEN_PROGRAMS: readonly string[] = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS];

/** The one-unit moves of a transaction, read from its token balances (pure: no db, no RPC). */
export function oneUnitMoves(tx: ChainTransaction): OneUnitMove[] {
  const moves: OneUnitMove[] = [];
  for (const after of tx.postTokenBalances) {
    if (after.amount !== 1n || after.owner === null) continue;
    const before = tx.preTokenBalances.find((b) => b.mint === after.mint && b.amount === 1n && b.owner !== null);
    if (!before || before.owner === after.owner) continue;
    moves.push({
      mint: after.mint,
      from: before.owner!,
      to: after.owner,
      fromAccount: before.account,
      toAccount: after.account,
    });
  }
  return moves;
}

/**
 * The position of the token instruction that moved it: the first (top level, else CPI) naming both token accounts —
 * a transfer does; creating the destination account names only one. Null when none does (a move by a program that
 * does not go through a token instruction naming both: no event, as there is no position to give it).
 */
export function movePosition(tx: ChainTransaction, move: OneUnitMove): { ixIndex: number; innerIndex: number } | null {
  const moves = (i: { programId: string; accounts: readonly string[] }) =>
    TOKEN_PROGRAMS.includes(i.programId) &&
    i.accounts.includes(move.fromAccount) &&
    i.accounts.includes(move.toAccount);
  for (const [ixIndex, top] of tx.instructions.entries()) {
    if (moves(top)) return { ixIndex, innerIndex: -1 };
    const innerIndex = top.inner.findIndex(moves);
    if (innerIndex >= 0) return { ixIndex, innerIndex };
  }
  return null;
}

/** The handle transfer a move of its NFT makes, in the context of the token instruction that moved it. */
export async function deriveNftMove(c: DeriveContext, move: OneUnitMove): Promise<void> {
  const kept = await handleByMint(c.trx, move.mint);
  if (!kept || kept.owner === move.to) return;
  const { ref, before } = await moveOwner(c, kept.account, move.to, kept.name);
  await transferred(c, ref, before, move.to, 'nft.transfer');
}
