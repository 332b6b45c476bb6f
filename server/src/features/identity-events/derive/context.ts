// What every derivation row runs with: the db transaction, the chain transaction, its signer, the names of handles
// not kept yet, and `emit`, which numbers the events of one instruction (their stable ids) and collects them.
import {
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENTS_SCHEMA,
  identityEventId,
  type UnsequencedIdentityEvent,
} from '@sigil/contract/identity-events';
import { isoSeconds } from '@sigil/contract/webhooks';
import type { RegistryInstruction } from '../../../platform/chain/registry';
import type {
  InstructionOf,
  InstructionRows,
  InstructionTable,
} from '../../../platform/chain/registry/instruction-table';
import type { ChainTransaction } from '../../../platform/chain/types';
import type { Trx } from './queries';

/** An event without its sequence, plus the wallets it is about (log filter and wallet scopes). */
export interface DerivedEvent {
  event: UnsequencedIdentityEvent;
  wallets: string[];
  handleName: string | null;
}

type EventBody = Omit<UnsequencedIdentityEvent, 'schema' | 'id' | 'notice' | 'chain'> & Record<string, unknown>;

export interface DeriveContext {
  readonly trx: Trx;
  readonly tx: ChainTransaction;
  /** The fee payer: the `signer` actor of every event. */
  readonly signer: ChainTransaction['signers'][number];
  /** Handle account → name for handles not yet in the kept state (read from chain by the caller). */
  readonly names: ReadonlyMap<string, string>;
  /** Adds the instruction's next event; `extraWallets` are wallets it concerns beyond its actors. */
  emit(body: EventBody, extraWallets?: (string | null | undefined)[]): void;
}

export type Ix<N extends RegistryInstruction['name']> = InstructionOf<RegistryInstruction, N>;
export type DeriveRows = InstructionRows<RegistryInstruction, [DeriveContext], Promise<void>>;
export type DeriveTable = InstructionTable<RegistryInstruction, [DeriveContext], Promise<void>>;

/** The chain position shared by every event of a transaction (each event adds its instruction's indexes). */
export function chainOf(tx: ChainTransaction) {
  return {
    signature: tx.signature,
    slot: Number(tx.slot),
    blockTime: tx.blockTime === null ? null : isoSeconds(tx.blockTime),
    commitment: 'finalized' as const,
    finalized: true as const,
  };
}

/** The context of one instruction at (`ixIndex`, `innerIndex`), its events appended to `out` in emit order. */
export function instructionContext(
  trx: Trx,
  tx: ChainTransaction,
  names: ReadonlyMap<string, string>,
  at: { chain: ReturnType<typeof chainOf>; ixIndex: number; innerIndex: number },
  out: DerivedEvent[],
): DeriveContext {
  const { chain, ixIndex, innerIndex } = at;
  let n = 0;
  const emit: DeriveContext['emit'] = (body, extraWallets = []) => {
    const event = {
      schema: IDENTITY_EVENTS_SCHEMA,
      id: identityEventId(tx.signature, ixIndex, innerIndex, n++),
      type: body.type,
      notice: IDENTITY_EVENT_NOTICE,
      chain: { ...chain, ixIndex, innerIndex },
      handle: body.handle,
      actors: body.actors,
      change: body.change,
    } as UnsequencedIdentityEvent;
    const wallets = new Set<string>([...Object.values(body.actors as Record<string, string>)]);
    for (const w of extraWallets) if (w) wallets.add(w);
    out.push({ event, wallets: [...wallets], handleName: body.handle?.name ?? null });
  };
  return { trx, tx, signer: tx.signers[0]!, names, emit };
}
