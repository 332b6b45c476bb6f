// From a finalized transaction to identity-change events (docs/identity-events.md "Derivation"). Every registry
// instruction (top level and CPI) is decoded with THE registry codecs; the "before" of a change comes from the
// registry state the indexer keeps (identity_* tables, written in the same db transaction as the events, so
// state and log never disagree). Reads the db only through the transaction it is given.
import type { Address } from '@solana/kit';
import type { Kysely } from 'kysely';
import {
  decodeMarketInstruction,
  decodeRegistryInstruction,
  RegistryDecodeError,
  type MarketInstruction,
  type RegistryInstruction,
} from '../../platform/chain/registry';
import { dispatchInstruction } from '../../platform/chain/registry/instruction-table';
import type { ChainTransaction } from '../../platform/chain/types';
import type { Database } from '../../platform/db/index';
import { chainOf, instructionContext, type DerivedEvent } from './derive/context';
import { anyHandleMint, type Trx } from './derive/queries';
import { deriveNftMove, movePosition, oneUnitMoves } from './derive/nft';
import { DERIVERS } from './derive/table';

/** The registry instructions of a transaction with their position: top level (-1) and CPI. */
export function registryInstructions(
  tx: ChainTransaction,
  programId: Address,
): { ix: RegistryInstruction | MarketInstruction; ixIndex: number; innerIndex: number }[] {
  const out: { ix: RegistryInstruction | MarketInstruction; ixIndex: number; innerIndex: number }[] = [];
  const decode = (data: Uint8Array, accounts: Address[]) => {
    try {
      return decodeMarketInstruction(data, accounts) ?? decodeRegistryInstruction(data, accounts, programId);
    } catch (err) {
      if (err instanceof RegistryDecodeError) return null;
      throw err;
    }
  };
  tx.instructions.forEach((top, ixIndex) => {
    if (top.programId === programId) {
      const ix = decode(top.data, top.accounts);
      if (ix) out.push({ ix, ixIndex, innerIndex: -1 });
    }
    top.inner.forEach((inner, innerIndex) => {
      if (inner.programId !== programId) return;
      const ix = decode(inner.data, inner.accounts);
      if (ix) out.push({ ix, ixIndex, innerIndex });
    });
  });
  return out;
}

/** The handle accounts a transaction's instructions name without carrying the name (read before the db work). */
export function handlesNamed(instructions: { ix: RegistryInstruction | MarketInstruction }[]): Address[] {
  const out = new Set<Address>();
  for (const { ix } of instructions) {
    if (['register', 'start_lease', 'claim_reserved', 'create_invoice', 'pay_invoice'].includes(ix.name)) continue;
    if ('handle' in ix.accounts && ix.accounts.handle) out.add(ix.accounts.handle);
  }
  return [...out];
}

export type { DerivedEvent } from './derive/context';

/**
 * Does this transaction concern the identity stream? Registry transactions always; any other only when it moves one
 * unit of a token that is a kept tokenized handle's NFT (one indexed lookup, and only for one-unit moves).
 */
export async function concernsIdentity(db: Kysely<Database>, tx: ChainTransaction, programId: Address) {
  if (tx.accountKeys.includes(programId)) return true;
  const moves = tx.err === null ? oneUnitMoves(tx) : [];
  return (
    moves.length > 0 &&
    (await anyHandleMint(
      db,
      moves.map((m) => m.mint),
    ))
  );
}

/**
 * The events of one finalized transaction, applying each change to the kept registry state as it goes (so two
 * instructions on one handle in one transaction see each other). `names`: handle account → name for handles not
 * yet in the kept state (read from chain by the caller; a handle's name never changes: it is its PDA seed).
 * Each instruction runs its row of the derivation table (derive/table.ts).
 */
export async function deriveEvents(
  trx: Trx,
  tx: ChainTransaction,
  programId: Address,
  names: ReadonlyMap<string, string>,
): Promise<DerivedEvent[]> {
  const out: DerivedEvent[] = [];
  const chain = chainOf(tx);
  for (const { ix, ixIndex, innerIndex } of registryInstructions(tx, programId)) {
    const context = instructionContext(trx, tx, names, { chain, ixIndex, innerIndex }, out);
    await dispatchInstruction(DERIVERS, ix, context);
  }
  // After the registry's own instructions: a move they already made is in the kept state and adds nothing.
  for (const move of oneUnitMoves(tx)) {
    const at = movePosition(tx, move);
    if (!at) continue;
    await deriveNftMove(instructionContext(trx, tx, names, { chain, ...at }, out), move);
  }
  return out;
}
