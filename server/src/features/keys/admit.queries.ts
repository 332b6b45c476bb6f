// The keyed request's key step on Postgres in ONE statement: the key by its secret's hash, both rate windows counted
// (or refused) and, when refused, the usage for the headers — one round trip, no transaction held across the request.
// The limiter's own upsert arm is reused (countIfRoom), with the limits taken from the key's tier inside the
// statement. docs/rate-limits.md "One round trip on Postgres".
import { sql, type Kysely, type Selectable } from 'kysely';
import { TIER_LIMITS, type KeyTier } from '@sigil/contract/keys';
import { withoutFsync, type ApiKeysTable, type Database } from '../../platform/db/index';
import { countIfRoom, windowsAt } from '../ratelimit/index';

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
 * windows unless the key is revoked or a window has no room. Runs with synchronous_commit=off (withoutFsync): the
 * counter row's lock lasts as long as the statement, not a WAL flush.
 */
export async function admitByHash(
  db: Kysely<Database>,
  hash: string,
  cost: number,
  now: number,
): Promise<AdmitRow | undefined> {
  const windows = windowsAt(now);
  const { rows } = await withoutFsync(db, (relaxed) =>
    sql<AdmitRow>`
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
      FROM k LEFT JOIN counted ON true LEFT JOIN rate_limits used ON used.key_id = k.id`.execute(relaxed),
  );
  return rows[0];
}
