// What the gifts feature (POST /gift/notify, GET /gift/{voucher}) needs from the identity stream: which events a
// voucher transaction makes and whether the log has them yet, and the voucher facts the log keeps once the voucher
// account is closed. The event id rule and the derivation stay here, in one place.
import type { Address } from '@solana/kit';
import type { Kysely } from 'kysely';
import { identityEventId } from '@sigil/contract/identity-events';
import type { MarketInstruction } from '../../platform/chain/registry';
import type { InstructionOf } from '../../platform/chain/registry/instruction-table';
import type { ChainTransaction } from '../../platform/chain/types';
import { readKv, type Database } from '../../platform/db/index';
import { registryInstructions } from './derive';
import type { VoucherFacts } from './derive/gifts';
import { keptFactKey } from './derive/state';
import { selectLoggedSequence, selectStreamPosition } from './queries';

export interface GiftCreation {
  ix: InstructionOf<MarketInstruction, 'create_voucher'>;
  /** The id of its `gift.created` event: the first event of the instruction (derive/gifts.ts emits it first). */
  eventId: string;
}

/** The `create_voucher` instructions of a transaction (top level and CPI), in order, with their event ids. */
export function giftCreations(tx: ChainTransaction, programId: Address): GiftCreation[] {
  return registryInstructions(tx, programId).flatMap(({ ix, ixIndex, innerIndex }) =>
    ix.name === 'create_voucher' ? [{ ix, eventId: identityEventId(tx.signature, ixIndex, innerIndex, 0) }] : [],
  );
}

/**
 * Where an event of a transaction at `slot` stands: `logged` (with its sequence), `outside_log` (the transaction is
 * before the log's start slot, or the stream has read past it and the event is gone: retention), or `pending`.
 */
export async function eventStatus(
  db: Kysely<Database>,
  id: string,
  slot: bigint,
): Promise<{ status: 'logged' | 'pending' | 'outside_log'; sequence: number | null }> {
  const logged = await selectLoggedSequence(db, id);
  if (logged) return { status: 'logged', sequence: Number(logged.sequence) };
  const position = await selectStreamPosition(db);
  const behind =
    position !== undefined &&
    (slot < BigInt(position.start_slot) || (position.last_slot !== null && slot < BigInt(position.last_slot)));
  return { status: behind ? 'outside_log' : 'pending', sequence: null };
}

/** What the log keeps of a voucher (parties, expiry, how it was settled); undefined when it never saw it. */
export async function voucherFacts(db: Kysely<Database>, voucher: string): Promise<VoucherFacts | undefined> {
  const text = await readKv(db, keptFactKey('voucher', voucher));
  return text === undefined ? undefined : (JSON.parse(text) as VoucherFacts);
}
