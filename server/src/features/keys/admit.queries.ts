// The keyed request's key step: the key by its secret's hash, both rate windows counted (or refused) and, when
// refused, the usage for the headers. On Postgres the key steps of one event-loop turn go together in ONE statement
// per window pair (admit-batch.ts): the keys by their hashes, the limits from each key's tier, the limiter's
// upsert for many requests (countPrefixes) and the stored windows for the refusals' headers — one round trip for the
// batch, no transaction held across a request. On SQLite the statements one after another in one group-committed
// transaction, on the native connection. docs/rate-limits.md "The key step".
import { sql, type Kysely, type Selectable } from 'kysely';
import { TIER_LIMITS, type KeyTier } from '@sigil/contract/keys';
import {
  executeServerPrepared,
  withoutFsyncNative,
  type ApiKeysTable,
  type Database,
  type NativeQuery,
} from '../../platform/db/index';
import { countPrefixes, countStatementNative, windowsAt, windowsStatementNative } from '../ratelimit/index';
import { keyStepBatcher, type AdmitRow, type BatchKey, type BatchRow } from './admit-batch';
import { keyByHashNative } from './queries';

/** `CASE k.tier WHEN 'free' THEN 300 … END` from the tier table: an unknown tier has no limit and counts nothing. */
function caseByTier(window: 'minute' | 'day') {
  const arms = (Object.entries(TIER_LIMITS) as [KeyTier, { minute: number; day: number }][]).map(
    ([tier, limits]) => sql`WHEN ${tier} THEN ${sql.lit(limits[window])}`,
  );
  return sql`CASE k.tier ${sql.join(arms, sql` `)} END`;
}

/** Built once: the tier table is fixed, and every batch statement carries both. */
const LIMIT_BY_TIER = { minute: caseByTier('minute'), day: caseByTier('day') };

/**
 * The key's row as the batch statement returns it, every column named rather than `k.*`: the statement is prepared
 * on the server (executeServerPrepared), and Postgres refuses a prepared statement whose result columns changed, so a
 * column a later migration adds would break the key step of every running process. The record makes a column added to
 * ApiKeysTable a type error here until it is listed.
 */
const KEY_ROW = sql.join(
  Object.keys({
    id: true,
    account: true,
    name: true,
    tier: true,
    secret_hash: true,
    secret_prefix: true,
    created_at: true,
    revoked_at: true,
    last_used_at: true,
  } satisfies Record<keyof ApiKeysTable, true>).map((column) => sql.ref(`k.${column}`)),
);

/**
 * The row of the key whose secret hashes to `hash` (undefined: no such key), with this request counted against its
 * windows unless the key is revoked or a window has no room. Runs without fsync (withoutFsyncNative): on Postgres
 * the counter rows' locks last as long as the batch's statement, not a WAL flush.
 */
export async function admitByHash(
  db: Kysely<Database>,
  hash: string,
  cost: number,
  now: number,
): Promise<AdmitRow | undefined> {
  const windows = windowsAt(now);
  return withoutFsyncNative(
    db,
    (query) => admitOnSqlite(db, query, hash, cost, windows),
    (relaxed) => admitInBatch(relaxed, hash, cost, windows),
  );
}

/**
 * SQLite: the same answer from the key's row, the limiter's own upsert and (when it counted nothing) the stored
 * windows, run one after another inside the group commit's transaction (no data-modifying CTE in SQLite; in process
 * each statement costs microseconds). The limits come from the key's tier here, as the CASE does on Postgres.
 */
function admitOnSqlite(
  db: Kysely<Database>,
  query: NativeQuery,
  hash: string,
  cost: number,
  windows: { minute: number; day: number },
): AdmitRow | undefined {
  const byHash = keyByHashNative(db, hash);
  const key = query<Selectable<ApiKeysTable>>(byHash.text, byHash.parameters)[0];
  if (!key) return undefined;
  // As the CASE on Postgres: a tier the table does not list has no limits and counts nothing.
  const limits = Object.hasOwn(TIER_LIMITS, key.tier) ? TIER_LIMITS[key.tier as KeyTier] : undefined;
  let counted: { minute_count: number; day_count: number } | undefined;
  if (key.revoked_at === null && limits && cost <= limits.minute && cost <= limits.day) {
    const count = countStatementNative(db, key.id, windows, cost, limits);
    counted = query<{ minute_count: number; day_count: number }>(count.text, count.parameters)[0];
  }
  const used = counted ? undefined : readWindows(db, query, key.id);
  return {
    key,
    counted_minute: counted?.minute_count ?? null,
    counted_day: counted?.day_count ?? null,
    used_minute_start: used?.minute_start ?? null,
    used_minute_count: used?.minute_count ?? null,
    used_day_start: used?.day_start ?? null,
    used_day_count: used?.day_count ?? null,
  };
}

function readWindows(db: Kysely<Database>, query: NativeQuery, keyId: string) {
  const windows = windowsStatementNative(db, keyId);
  return query<{ minute_start: number; minute_count: number; day_start: number; day_count: number }>(
    windows.text,
    windows.parameters,
  )[0];
}

/** Postgres: the request joins its turn's batch. */
const admitInBatch = keyStepBatcher<Kysely<Database>>(runBatch);

/** Postgres's deadlock_detected: the statement was rolled back whole, so running it again is running it later. */
const DEADLOCK = '40P01';

/**
 * One batch's statement. Batches lock their keys' rows in key order, so they cannot deadlock one another;
 * housekeeping's delete of long-idle rows can (it locks in its own order), and then Postgres undoes one of the two:
 * ours is run again.
 */
async function runBatch(db: Kysely<Database>, windows: { minute: number; day: number }, keys: BatchKey[]) {
  const hashes = keys.map((k) => k.hash);
  const cums = keys.map((k) => `{${k.cums.join(',')}}`);
  for (let attempt = 1; ; attempt++) {
    try {
      return (await executeServerPrepared(db, batchStatement(hashes, cums, windows))).rows;
    } catch (error) {
      if (attempt >= 3 || (error as { code?: unknown }).code !== DEADLOCK) throw error;
    }
  }
}

/**
 * Postgres: the batch's one statement. `hashes[i]` is a key's secret hash, `cums[i]` the running sums of its requests'
 * costs as an array literal (arrays of different lengths cannot form one 2-D array parameter).
 */
function batchStatement(hashes: string[], cums: string[], windows: { minute: number; day: number }) {
  return sql<BatchRow>`
      WITH req AS (
        SELECT t.hash, t.cums::integer[] AS cums FROM unnest(${hashes}::text[], ${cums}::text[]) AS t(hash, cums)
      ),
      k AS (SELECT * FROM api_keys WHERE secret_hash = ANY(${hashes}::text[])),
      lim AS (
        SELECT k.id AS key_id, req.cums, ${LIMIT_BY_TIER.minute} AS minute_limit, ${LIMIT_BY_TIER.day} AS day_limit
        FROM k JOIN req ON req.hash = k.secret_hash WHERE k.revoked_at IS NULL
      ),
      counted AS (${countPrefixes(sql`lim`, windows)})
      SELECT ${KEY_ROW},
        counted.minute_start AS new_minute_start, counted.minute_count AS new_minute_count,
        counted.day_start AS new_day_start, counted.day_count AS new_day_count, counted.last_counted AS counted,
        used.minute_start AS used_minute_start, used.minute_count AS used_minute_count,
        used.day_start AS used_day_start, used.day_count AS used_day_count
      FROM k LEFT JOIN counted ON counted.key_id = k.id LEFT JOIN rate_limits used ON used.key_id = k.id`;
}
