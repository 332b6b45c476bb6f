// The identity consumer of the ingestion pipeline (docs/identity-events.md): the registry program's FINALIZED
// transactions of every block, in chain order; each one's events get the next sequences, are stored, fanned out to
// the identity webhooks that want them, and the stream's position (last signature and slot) moves — all in ONE db
// transaction per chain transaction, guarded by the sequence the pass read (a second writer, or a crash, can
// neither skip nor reuse a sequence; a replayed block skips what is already in). Chain reads happen before that
// transaction. Fed with the pay consumer from the same blocks, under the indexer's lease (workers/indexer.ts).
import type { Address } from '@solana/kit';
import type { Kysely } from 'kysely';
import { IdentityEventSchema, identityTypeMatches } from '@sigil/contract/identity-events';
import { runIngestPass, type BlockConsumer } from '../../platform/chain/source/ingest';
import type { ChainSource, SourceBlock } from '../../platform/chain/source/types';
import type { ChainReader, ChainTransaction } from '../../platform/chain/types';
import type { Database } from '../../platform/db/index';
import { insertDeliveries, newDeliveryRow, type SubscriptionRow } from '../webhooks/index';
import { concernsIdentity, deriveEvents, handlesNamed, registryInstructions, type DerivedEvent } from './derive';
import {
  advanceStream,
  ensureStreamRow,
  insertLoggedEvent,
  lockedNextSequence,
  selectActiveIdentitySubscriptions,
  selectKnownHandleAccounts,
} from './queries';

export interface IdentityIndexerDeps {
  chain: ChainReader;
  /** Where finalized blocks come from; default: block polling over `chain`. */
  source?: ChainSource;
  /** The finalized slot the pass runs up to; default: read from `chain` at the start of the pass. */
  tip?: bigint;
  now?: () => number;
  /** Where the log starts when the stream has never run (backfill); default 0 = the registry's whole history. */
  backfillFromSlot?: number;
  /** Called after deliveries were queued (wakes the delivery worker). */
  onQueued?: () => void;
}

export interface IdentityPassResult {
  transactions: number;
  events: number;
  deliveries: number;
}

/** Does an identity webhook want this event? Scope, types, and only events from its start on. */
function wants(sub: SubscriptionRow, event: DerivedEvent, sequence: number): boolean {
  if (sequence < (sub.watch_from_sequence ?? 0)) return false;
  if (!identityTypeMatches(JSON.parse(sub.event_types) as string[], event.event.type)) return false;
  if (sub.scope_type === 'registry') return true;
  if (sub.scope_type === 'name') return event.handleName !== null && sub.scope_value === `@${event.handleName}`;
  return event.wallets.includes(sub.scope_value);
}

/** Stores one chain transaction's events with the next sequences, fans them out, moves the cursor. */
async function commitTransaction(
  db: Kysely<Database>,
  tx: ChainTransaction,
  expected: { nextSequence: number; lastSignature: string | null },
  programId: Address,
  names: ReadonlyMap<string, string>,
  now: number,
): Promise<{ events: number; deliveries: number; nextSequence: number }> {
  return db.transaction().execute(async (trx) => {
    // First: the stream row's lock (held to the commit), then everything that depends on who subscribes.
    if ((await lockedNextSequence(trx)) !== expected.nextSequence) {
      throw new Error('identity stream moved under this pass (another indexer?); retrying');
    }
    const derived = tx.err === null ? await deriveEvents(trx, tx, programId, names) : [];
    let sequence = expected.nextSequence;
    let deliveries = 0;
    const subs = derived.length === 0 ? [] : await selectActiveIdentitySubscriptions(trx);
    for (const d of derived) {
      // Parsed by the schema before it is written: the stored text has the schema's key order, which is the
      // order every later parse (the log's output validation) keeps — so the log serves these exact bytes.
      const payload = IdentityEventSchema.parse({ ...d.event, sequence });
      await insertLoggedEvent(
        trx,
        {
          sequence,
          id: payload.id,
          type: payload.type,
          signature: tx.signature,
          slot: Number(tx.slot),
          handle_name: d.handleName,
          payload: JSON.stringify(payload),
          test: 0,
          created_at: now,
        },
        d.wallets,
      );
      const rows = subs.filter((s) => wants(s, d, sequence)).map((s) => newDeliveryRow(s.id, payload, false, now));
      await insertDeliveries(trx, rows);
      deliveries += rows.length;
      sequence++;
    }
    // The guard: only the writer that read this cursor and sequence may move them (else everything rolls back).
    const moved = await advanceStream(trx, expected, {
      nextSequence: sequence,
      lastSignature: tx.signature,
      lastSlot: Number(tx.slot),
      now,
    });
    if (moved !== 1) throw new Error('identity stream moved under this pass (another indexer?); retrying');
    return { events: derived.length, deliveries, nextSequence: sequence };
  });
}

/** Names of the handles a transaction touches that the identity tables do not know yet (read from the chain). */
async function unknownHandleNames(db: Kysely<Database>, deps: IdentityIndexerDeps, tx: ChainTransaction) {
  const names = new Map<string, string>();
  if (tx.err !== null) return names;
  const touched = handlesNamed(registryInstructions(tx, deps.chain.programId));
  const have = await selectKnownHandleAccounts(db, touched);
  for (const account of touched) {
    if (have.has(account)) continue;
    const handle = await deps.chain.getHandleByAddress(account, 'finalized');
    if (handle) names.set(account, handle.name);
  }
  return names;
}

/**
 * The identity consumer. Its position is the stream row's (last signature, slot): a block at or before it is
 * skipped up to and including that signature, so replaying a block after a crash commits each transaction once.
 */
export function identityConsumer(
  db: Kysely<Database>,
  deps: IdentityIndexerDeps,
  result: IdentityPassResult,
): BlockConsumer {
  let expected = { nextSequence: 0, lastSignature: null as string | null, lastSlot: -1n, startSlot: 0n };
  const done = (tx: ChainTransaction, index: number, block: SourceBlock) => {
    if (tx.slot < expected.startSlot || tx.slot < expected.lastSlot) return true;
    if (tx.slot > expected.lastSlot || expected.lastSignature === null) return false;
    const last = block.transactions.findIndex((t) => t.signature === expected.lastSignature);
    return index <= last;
  };
  return {
    name: 'identity',
    async prepare(stored) {
      const state = await ensureStreamRow(db, deps.backfillFromSlot ?? 0, deps.now?.() ?? Date.now());
      expected = {
        nextSequence: Number(state.next_sequence),
        lastSignature: state.last_signature,
        lastSlot: state.last_slot === null ? -1n : BigInt(state.last_slot),
        startSlot: BigInt(state.start_slot),
      };
      // Never ran through the pipeline: from its own position (the block of its last transaction again, its
      // committed transactions skipped), or from the backfill slot.
      if (stored !== null) return stored;
      return state.last_slot === null ? expected.startSlot - 1n : expected.lastSlot - 1n;
    },
    async consume(block) {
      const programId = deps.chain.programId;
      for (const [index, tx] of block.transactions.entries()) {
        if (done(tx, index, block) || !(await concernsIdentity(db, tx, programId))) continue;
        const names = await unknownHandleNames(db, deps, tx);
        const committed = await commitTransaction(db, tx, expected, programId, names, deps.now?.() ?? Date.now());
        expected = {
          ...expected,
          nextSequence: committed.nextSequence,
          lastSignature: tx.signature,
          lastSlot: tx.slot,
        };
        result.transactions++;
        result.events += committed.events;
        result.deliveries += committed.deliveries;
        if (committed.deliveries > 0) deps.onQueued?.();
      }
    },
  };
}

/** One pass of the identity stream alone: every new finalized registry transaction, in chain order. */
export async function runIdentityPass(db: Kysely<Database>, deps: IdentityIndexerDeps): Promise<IdentityPassResult> {
  const result: IdentityPassResult = { transactions: 0, events: 0, deliveries: 0 };
  const tip = deps.tip ?? (await deps.chain.getSlot('finalized'));
  await runIngestPass(db, {
    chain: deps.chain,
    source: deps.source,
    consumers: [identityConsumer(db, deps, result)],
    tip,
    now: deps.now,
  });
  return result;
}
