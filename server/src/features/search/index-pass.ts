// One pass of the handle index. A full build scans every Handle account and every `agent.manifest` text record of
// the registry (two getProgramAccounts calls), decides which handles are agents, and brings handle_index to that
// picture with idempotent upserts of what changed and deletes of what is gone. Fed by the identity stream
// (`fromIdentityEvents`), only the first pass builds in full: later passes re-read just the handles named by the
// identity events since the last one applied (nothing at all while the registry is quiet), and build in full again
// only when the log no longer holds the next event (pruned). Run by workers/handle-index.ts under its lease.
import type { Kysely } from 'kysely';
import { AGENT_HANDLE_TYPE, AGENT_MANIFEST_RECORD } from '@sigil/contract/agents';
import { isHandleReleased, isRecordLive } from '../../platform/chain/trust-rules';
import type { ChainReader, HandleAccount, RecordAccount } from '../../platform/chain/types';
import { readKv, writeKv, type Database } from '../../platform/db/index';
import { applyIndexChanges, identityChangesAfter, latestIdentitySequence, readIndex, type IndexRow } from './queries';

export interface HandleIndexDeps {
  chain: ChainReader;
  now?: () => number;
  /** Incremental passes from the identity-change log (its stream must run); default false: every pass rescans. */
  fromIdentityEvents?: boolean;
}

/** kv: the identity sequence the handle index has applied (absent: no full build yet). */
export const HANDLE_INDEX_SEQUENCE_KEY = 'handle-index.identity-sequence';
/** Identity events one incremental pass applies at most. */
const CHANGES_PER_PASS = 1000;

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
  if (!deps.fromIdentityEvents) return fullBuild(db, deps);
  const applied = await readKv(db, HANDLE_INDEX_SEQUENCE_KEY);
  const changes = applied === undefined ? null : await identityChangesAfter(db, Number(applied), CHANGES_PER_PASS);
  if (changes === null || (changes.length > 0 && changes[0]!.sequence !== Number(applied) + 1)) {
    // Events after this sequence are applied by the next passes; re-reading a handle is idempotent.
    const before = await latestIdentitySequence(db);
    const result = await fullBuild(db, deps);
    await writeKv(db, HANDLE_INDEX_SEQUENCE_KEY, String(before), deps.now?.() ?? Date.now());
    return result;
  }
  const names = [...new Set(changes.flatMap((c) => (c.handle_name === null ? [] : [c.handle_name])))];
  const result = await refreshHandles(db, deps, names);
  if (changes.length > 0) {
    await writeKv(
      db,
      HANDLE_INDEX_SEQUENCE_KEY,
      String(changes[changes.length - 1]!.sequence),
      deps.now?.() ?? Date.now(),
    );
  }
  return result;
}

/** Re-reads the named handles (and their manifest record) and brings their rows to what the chain says now. */
async function refreshHandles(
  db: Kysely<Database>,
  deps: HandleIndexDeps,
  names: string[],
): Promise<HandleIndexPassResult> {
  const result: HandleIndexPassResult = { handles: 0, agents: 0, added: 0, changed: 0, removed: 0, undecodable: 0 };
  if (names.length === 0) return result;
  const existing = new Map((await readIndex(db, names)).map((row) => [row.name, row]));
  const upserts: IndexRow[] = [];
  const removals: string[] = [];
  for (const name of names) {
    const { value: handle } = await deps.chain.getHandle(name, 'confirmed');
    const old = existing.get(name);
    if (!handle || isHandleReleased(handle)) {
      if (old) removals.push(name);
      continue;
    }
    const wanted = { records: [{ kind: 'text' as const, key: AGENT_MANIFEST_RECORD }], attestations: [] };
    const { value } = await deps.chain.getHandleAccounts(handle.address, wanted, { commitment: 'confirmed' });
    const manifest = value.records[0];
    const records = manifest && !(manifest instanceof Error) ? [manifest] : undefined;
    const row = rowOf(handle, await isAgent(deps.chain, handle, records));
    result.handles++;
    result.agents += row.agent;
    if (!old) result.added++;
    else if (!sameRow(old, row)) result.changed++;
    if (!old || !sameRow(old, row)) upserts.push(row);
  }
  result.removed = removals.length;
  await applyIndexChanges(db, upserts, removals, deps.now?.() ?? Date.now());
  return result;
}

const rowOf = (handle: HandleAccount, agent: boolean): IndexRow => ({
  name: handle.name,
  account: handle.address,
  owner: handle.owner,
  handle_type: handle.handleType,
  agent: agent ? 1 : 0,
  registered_slot: Number(handle.registeredSlot),
});

async function fullBuild(db: Kysely<Database>, deps: HandleIndexDeps): Promise<HandleIndexPassResult> {
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
    seen.set(handle.name, rowOf(handle, await isAgent(chain, handle, manifestsOf.get(handle.address))));
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
