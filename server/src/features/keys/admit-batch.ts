// The keyed request's key step on Postgres, batched: the key steps that arrive in one event-loop turn go to the
// database together, ONE statement per window pair (admit.queries.ts), and each request is answered exactly as it
// would have been alone in some serial order. docs/rate-limits.md "The key step" explains why and how it is exact.
import type { Selectable } from 'kysely';
import type { ApiKeysTable } from '../../platform/db/index';

type Windows = { minute: number; day: number };

/**
 * One request's key step: the key's row (shared by the requests of one batch on that key, not copied per request),
 * and this request counted or refused (service.ts reads it).
 */
export interface AdmitRow {
  key: Selectable<ApiKeysTable>;
  /** The new counts when this request was counted; null when refused (or revoked: nothing is counted). */
  counted_minute: number | null;
  counted_day: number | null;
  /** The key's windows a refusal's headers are computed from; null without a row. */
  used_minute_start: number | null;
  used_minute_count: number | null;
  used_day_start: number | null;
  used_day_count: number | null;
}

/** One key's row from the batched statement. */
export type BatchRow = Selectable<ApiKeysTable> & {
  /**
   * The key's row under the statement's lock and the sum it counted (0: none of its requests fit); null when the
   * statement returned no row (a revoked key or unknown tier, or no request an empty window could hold).
   */
  new_minute_start: number | null;
  new_minute_count: number | null;
  new_day_start: number | null;
  new_day_count: number | null;
  counted: number | null;
  /** The key's stored windows as the statement found them (a refusal's headers when nothing was counted). */
  used_minute_start: number | null;
  used_minute_count: number | null;
  used_day_start: number | null;
  used_day_count: number | null;
};

/** One key of a batch: its secret's hash and the running sums of its requests' costs, ascending. */
export interface BatchKey {
  hash: string;
  cums: number[];
}

/** Runs one batch for one window pair: one row per key found (unknown hashes are absent). */
export type RunBatch<H> = (handle: H, windows: Windows, keys: BatchKey[]) => Promise<BatchRow[]>;

interface Waiting {
  hash: string;
  cost: number;
  windows: Windows;
  resolve: (row: AdmitRow | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * The key step through batches: a call joins the batch of its handle's current event-loop turn (the first call of a
 * turn schedules the flush), and is answered when that batch's statement for its window pair returns. Batches of
 * successive turns may be in flight at once (the pool has several connections).
 */
export function keyStepBatcher<H extends object>(
  run: RunBatch<H>,
): (handle: H, hash: string, cost: number, windows: Windows) => Promise<AdmitRow | undefined> {
  const turns = new WeakMap<H, Waiting[]>();
  const flush = (handle: H) => {
    const turn = turns.get(handle)!;
    turns.delete(handle); // calls from now on form the next batch
    for (const group of byWindows(turn)) admitGroup(run, handle, group);
  };
  return (handle, hash, cost, windows) =>
    new Promise((resolve, reject) => {
      let turn = turns.get(handle);
      if (!turn) {
        turn = [];
        turns.set(handle, turn);
        setImmediate(() => flush(handle));
      }
      turn.push({ hash, cost, windows, resolve, reject });
    });
}

/** The turn's calls by window pair (one statement each): across a minute boundary a turn holds two. */
function byWindows(turn: Waiting[]): Waiting[][] {
  const groups = new Map<string, Waiting[]>();
  for (const waiting of turn) {
    const pair = `${waiting.windows.minute}/${waiting.windows.day}`;
    const group = groups.get(pair);
    if (group) group.push(waiting);
    else groups.set(pair, [waiting]);
  }
  return [...groups.values()];
}

/**
 * One window pair's statement (several for many keys, below). Per key, the requests in ascending cost order and
 * their running sums: the statement counts the largest sum that fits, so the admitted requests are that prefix,
 * and the order "prefix, then the rest ascending" is a serial order in which each refused request found no room (it
 * costs at least the first refused one, which did not fit after the prefix).
 */
function admitGroup<H>(run: RunBatch<H>, handle: H, group: Waiting[]): void {
  const byHash = new Map<string, Waiting[]>();
  for (const waiting of group) {
    const same = byHash.get(waiting.hash);
    if (same) same.push(waiting);
    else byHash.set(waiting.hash, [waiting]);
  }
  const keys = [...byHash].map(([hash, requests]) => {
    requests.sort((a, b) => a.cost - b.cost);
    let sum = 0;
    return { hash, requests, cums: requests.map((r) => (sum += r.cost)) };
  });
  for (let first = 0; first < keys.length; first += KEYS_PER_STATEMENT)
    void answerKeys(run, handle, group[0]!.windows, keys.slice(first, first + KEYS_PER_STATEMENT));
}

/**
 * Distinct keys per statement at most. The upsert finds each key's running sums by scanning the batch's keys (a CTE
 * has no index), so that part of a statement's cost grows with the square of its keys: measured on Postgres 15 here
 * (EXPLAIN ANALYZE, a loaded machine), 500 keys in one statement took 32–80 ms, half or more of it in those scans,
 * against ~0.5 ms of scans for 64. A turn with more keys sends several statements, side by side; a key's requests
 * always stay in one.
 */
const KEYS_PER_STATEMENT = 64;

async function answerKeys<H>(
  run: RunBatch<H>,
  handle: H,
  windows: Windows,
  keys: (BatchKey & { requests: Waiting[] })[],
): Promise<void> {
  let rows: BatchRow[];
  try {
    rows = await run(handle, windows, keys);
  } catch (error) {
    for (const { requests } of keys) for (const waiting of requests) waiting.reject(error);
    return;
  }
  const rowOf = new Map(rows.map((row) => [row.secret_hash, row]));
  for (const { hash, requests, cums } of keys) {
    const row = rowOf.get(hash);
    if (!row) {
      for (const waiting of requests) waiting.resolve(undefined);
      continue;
    }
    const answer = answererOf(row);
    requests.forEach((waiting, i) => waiting.resolve(answer(cums[i]!)));
  }
}

/**
 * The answers of one key's requests: the request whose running sum is `cum` is counted when the statement counted
 * at least that much (its counts are those before the batch plus its sum: old = new − counted); refused otherwise,
 * with the counts after the batch for its headers — what it found when its turn came — or, when the statement
 * returned no row, the row as found. The key's columns are split off once per key, not per request.
 */
function answererOf(row: BatchRow): (cum: number) => AdmitRow {
  const {
    new_minute_start: newMinuteStart,
    new_minute_count: newMinute,
    new_day_start: newDayStart,
    new_day_count: newDay,
    counted,
    used_minute_start,
    used_minute_count,
    used_day_start,
    used_day_count,
  } = row;
  // Named, not a rest pattern: a literal of known shape is built far faster than a copy of the row's other
  // properties, and a column added to the table is a type error here until it is listed.
  const key: Selectable<ApiKeysTable> = {
    id: row.id,
    account: row.account,
    name: row.name,
    tier: row.tier,
    secret_hash: row.secret_hash,
    secret_prefix: row.secret_prefix,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
  if (counted === null || newMinute === null || newDay === null) {
    return () => ({
      key,
      counted_minute: null,
      counted_day: null,
      used_minute_start,
      used_minute_count,
      used_day_start,
      used_day_count,
    });
  }
  return (cum) => {
    const admitted = cum <= counted;
    return {
      key,
      counted_minute: admitted ? newMinute - counted + cum : null,
      counted_day: admitted ? newDay - counted + cum : null,
      used_minute_start: newMinuteStart,
      used_minute_count: newMinute,
      used_day_start: newDayStart,
      used_day_count: newDay,
    };
  };
}
