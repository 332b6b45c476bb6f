// The keyed request's key step: the key by its secret's hash, both rate windows counted (or refused) and, when
// refused, the usage for the headers. On Postgres in ONE statement — one round trip, no transaction held across the
// request — with the limiter's own upsert arm (countIfRoom) and the limits taken from the key's tier inside it. On
// SQLite the same statements one after another in one group-committed transaction, on the native connection.
// docs/rate-limits.md "The key step".
import { sql, type Kysely, type Selectable } from 'kysely';
import { TIER_LIMITS, type KeyTier } from '@sigil/contract/keys';
import { withoutFsyncNative, type ApiKeysTable, type Database, type NativeQuery } from '../../platform/db/index';
import { countIfRoom, countStatementNative, windowsAt, windowsStatementNative } from '../ratelimit/index';
import { keyByHashNative } from './queries';

export type AdmitRow = Selectable<ApiKeysTable> & {
  /** The new counts when this request was counted; null when refused (or revoked: nothing is counted). */
  counted_minute: number | null;
  counted_day: number | null;
  /** The key's stored windows as the statement found them (for a refusal's headers); null without a row. */
  used_minute_start: number | null;
  used_minute_count: number | null;
  used_day_start: number | null;
  used_day_count: number | null;
};

/** `CASE k.tier WHEN 'free' THEN 300 … END` from the tier table: an unknown tier has no limit and counts nothing. */
function limitByTier(window: 'minute' | 'day') {
  const arms = (Object.entries(TIER_LIMITS) as [KeyTier, { minute: number; day: number }][]).map(
    ([tier, limits]) => sql`WHEN ${tier} THEN ${sql.lit(limits[window])}`,
  );
  return sql`CASE k.tier ${sql.join(arms, sql` `)} END`;
}

/**
 * The row of the key whose secret hashes to `hash` (undefined: no such key), with this request counted against its
 * windows unless the key is revoked or a window has no room. Runs without fsync (withoutFsyncNative): on Postgres
 * the counter row's lock lasts as long as the statement, not a WAL flush.
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
    async (relaxed) => (await admitStatement(hash, cost, windows).execute(relaxed)).rows[0],
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
    ...key,
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

/** Postgres: the one statement. */
function admitStatement(hash: string, cost: number, windows: { minute: number; day: number }) {
  return sql<AdmitRow>`
      WITH k AS (SELECT * FROM api_keys WHERE secret_hash = ${hash}),
      lim AS (
        SELECT k.id, ${limitByTier('minute')} AS minute_limit, ${limitByTier('day')} AS day_limit
        FROM k WHERE k.revoked_at IS NULL
      ),
      counted AS (
        INSERT INTO rate_limits AS r (key_id, minute_start, minute_count, day_start, day_count)
        SELECT lim.id, ${windows.minute}::bigint, ${cost}::integer, ${windows.day}::bigint, ${cost}::integer
        FROM lim WHERE ${cost}::integer <= lim.minute_limit AND ${cost}::integer <= lim.day_limit
        ${countIfRoom(sql`(SELECT minute_limit FROM lim)`, sql`(SELECT day_limit FROM lim)`)}
      )
      SELECT k.*,
        counted.minute_count AS counted_minute, counted.day_count AS counted_day,
        used.minute_start AS used_minute_start, used.minute_count AS used_minute_count,
        used.day_start AS used_day_start, used.day_count AS used_day_count
      FROM k LEFT JOIN counted ON true LEFT JOIN rate_limits used ON used.key_id = k.id`;
}
