// One pass of the handle index: scan every Handle account and every `agent.manifest` text record of the registry
// (two getProgramAccounts calls), decide which handles are agents, and bring handle_index to that picture with
// idempotent upserts of what changed and deletes of what is gone. Run by workers/handle-index.ts under its lease.
import type { Kysely } from 'kysely';
import { AGENT_HANDLE_TYPE, AGENT_MANIFEST_RECORD } from '@sigil/contract/agents';
import { isHandleReleased, isRecordLive } from '../../platform/chain/trust-rules';
import type { ChainReader, HandleAccount, RecordAccount } from '../../platform/chain/types';
import type { Database } from '../../platform/db/index';
import { applyIndexChanges, readIndex, type IndexRow } from './queries';

export interface HandleIndexDeps {
  chain: ChainReader;
  now?: () => number;
}

export interface HandleIndexPassResult {
  /** Live handles seen by this pass. */
  handles: number;
  agents: number;
  added: number;
  changed: number;
  removed: number;
  /** Accounts that did not decode (their rows, if any, are kept as they were). */
  undecodable: number;
}

export async function runHandleIndexPass(db: Kysely<Database>, deps: HandleIndexDeps): Promise<HandleIndexPassResult> {
  const { chain } = deps;
  // `confirmed`, as resolution reads: the index should agree with what /resolve answers right after.
  const [handles, manifests] = await Promise.all([
    chain.scanHandles('confirmed'),
    chain.scanTextRecords(AGENT_MANIFEST_RECORD, 'confirmed'),
  ]);
  const manifestsOf = new Map<string, RecordAccount[]>();
  for (const record of manifests.accounts) {
    manifestsOf.set(record.handle, [...(manifestsOf.get(record.handle) ?? []), record]);
  }

  const seen = new Map<string, IndexRow>();
  for (const handle of handles.accounts) {
    // A released handle keeps its account with the owner zeroed: it is nobody's, so it leaves the index.
    if (isHandleReleased(handle) || seen.has(handle.name)) continue;
    seen.set(handle.name, {
      name: handle.name,
      account: handle.address,
      owner: handle.owner,
      handle_type: handle.handleType,
      agent: (await isAgent(chain, handle, manifestsOf.get(handle.address))) ? 1 : 0,
      registered_slot: Number(handle.registeredSlot),
    });
  }

  // An account that did not decode this time may be a handle we know: keep its row rather than drop it on a glitch.
  const undecodable = new Set<string>(handles.undecodable);
  const existing = await readIndex(db);
  const upserts: IndexRow[] = [];
  let added = 0;
  const before = new Map(existing.map((row) => [row.name, row]));
  for (const row of seen.values()) {
    const old = before.get(row.name);
    if (!old) added++;
    if (!old || !sameRow(old, row)) upserts.push(row);
  }
  const removals = existing.filter((row) => !seen.has(row.name) && !undecodable.has(row.account)).map((r) => r.name);
  await applyIndexChanges(db, upserts, removals, deps.now?.() ?? Date.now());

  return {
    handles: seen.size,
    agents: [...seen.values()].filter((row) => row.agent === 1).length,
    added,
    changed: upserts.length - added,
    removed: removals.length,
    undecodable: handles.undecodable.length + manifests.undecodable.length,
  };
}

/**
 * The spec's agent rule, as features/agents applies it: handle type 3, or an `agent.manifest` text record that is
 * live (written by the current authority under the current registration). Authority costs RPC only for a tokenized
 * handle, and is read only for handles that have such a record at all.
 */
async function isAgent(chain: ChainReader, handle: HandleAccount, records: RecordAccount[] | undefined) {
  if (handle.handleType === AGENT_HANDLE_TYPE) return true;
  if (!records) return false;
  const authority = await chain.getHandleAuthority(handle, 'confirmed');
  return records.some((record) => isRecordLive(record, handle, authority));
}

function sameRow(a: IndexRow, b: IndexRow): boolean {
  return (
    a.account === b.account &&
    a.owner === b.owner &&
    a.handle_type === b.handle_type &&
    a.agent === b.agent &&
    a.registered_slot === b.registered_slot
  );
}
