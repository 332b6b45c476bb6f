// The rate_limits table's queries: the one-statement count (docs/rate-limits.md shows it in full), the counters'
// read and their expiry. Every function takes the db first; service.ts decides what the counts mean.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { nativeStatement, withoutFsyncNative, type Database } from '../../platform/db/index';

type Windows = { minute: number; day: number };
type Counts = { minute_count: number; day_count: number };

/** The limiter's one upsert: `cost` counted in both windows of the key's row, or nothing (no row back). */
function countStatement(keyId: string, windows: Windows, cost: number, limits: Windows) {
  return sql<Counts>`
        INSERT INTO rate_limits AS r (key_id, minute_start, minute_count, day_start, day_count)
        VALUES (${keyId}, ${windows.minute}, ${cost}, ${windows.day}, ${cost})
        ${countIfRoom(sql`${limits.minute}`, sql`${limits.day}`)}`;
}

/** The same upsert for a NativeQuery (SQLite). */
export const countStatementNative = nativeStatement(
  (db, keyId: string, windows: Windows, cost: number, limits: Windows) =>
    countStatement(keyId, windows, cost, limits).compile(db),
  (keyId, windows, cost, limits) => [keyId, windows.minute, cost, windows.day, cost, limits.minute, limits.day],
);

/** One key's stored windows (the headers of a refusal), for a NativeQuery (SQLite). */
export const windowsStatementNative = nativeStatement(
  (db, keyId: string) => selectWindowsQuery(db, [keyId]).compile(),
  (keyId) => [keyId],
);

/**
 * Counts `cost` against both windows of the key's row in ONE atomic upsert and returns the new counts, or
 * undefined when a window refused (nothing was counted anywhere). Counters may be lost on a power cut (the last
 * moment's counts are forgotten), so no fsync per request: on SQLite that fsync was most of a keyed request's cost
 * (docs/data.md "Durability"). On SQLite the statement runs on the native connection (platform/db/native.ts).
 */
export async function countInWindows(
  db: Kysely<Database>,
  keyId: string,
  windows: Windows,
  cost: number,
  limits: Windows,
): Promise<Counts | undefined> {
  return withoutFsyncNative(
    db,
    (query) => {
      const { text, parameters } = countStatementNative(db, keyId, windows, cost, limits);
      return query<Counts>(text, parameters)[0];
    },
    async (relaxed) => (await countStatement(keyId, windows, cost, limits).execute(relaxed)).rows[0],
  );
}

/**
 * The upsert's conflict arm, after `INSERT INTO rate_limits AS r (key_id, minute_start, minute_count, day_start,
 * day_count) <one row>`: in the same window → count + cost, in a newer one → cost; only when both new counts fit
 * their limits; RETURNING the new counts (no row back = refused, nothing counted). The limits are SQL expressions
 * so a statement can take them from the key's tier.
 */
function countIfRoom(minuteLimit: RawBuilder<unknown>, dayLimit: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`ON CONFLICT (key_id) DO UPDATE SET
          minute_count = ${storedCount('minute')} + excluded.minute_count,
          minute_start = ${laterStart('minute')},
          day_count = ${storedCount('day')} + excluded.day_count,
          day_start = ${laterStart('day')}
        WHERE ${storedCount('minute')} + excluded.minute_count <= ${minuteLimit}
          AND ${storedCount('day')} + excluded.day_count <= ${dayLimit}
        RETURNING minute_count, day_count`;
}

/**
 * Postgres only: the limiter's upsert for many keys and many requests at once (the keyed request's batched key step,
 * keys/admit.queries.ts). `requests` names a relation of `(key_id, cums, minute_limit, day_limit)`, one row per key:
 * `cums` the running sums of that key's request costs in ascending order. Each key's row counts the largest of its
 * sums that fits both windows' room — as the row stands under the upsert's lock, the latest committed version — so
 * the admitted requests are a prefix of the ascending order, and every request after it would not fit after them.
 * A key whose smallest request does not fit counts 0 but is still returned as it stands under the lock, so its
 * refusals are answered from the latest counts, not from the statement's snapshot. RETURNING gives the new counts
 * and, in `last_counted`, the sum counted (Postgres 15 cannot return the old row): old = new − last_counted. Rows are written in key order,
 * so two such statements lock shared rows in the same order.
 */
export function countPrefixes(requests: RawBuilder<unknown>, windows: Windows): RawBuilder<unknown> {
  const room = sql`least(q.minute_limit - ${storedCount('minute')}, q.day_limit - ${storedCount('day')})`;
  return sql`INSERT INTO rate_limits AS r (key_id, minute_start, minute_count, day_start, day_count, last_counted)
        SELECT q.key_id, ${windows.minute}::bigint, fit.n, ${windows.day}::bigint, fit.n, fit.n
        FROM ${requests} AS q
        CROSS JOIN LATERAL (SELECT max(c) AS n FROM unnest(q.cums) AS c WHERE c <= least(q.minute_limit, q.day_limit)) AS fit
        WHERE fit.n IS NOT NULL
        ORDER BY q.key_id
        ON CONFLICT (key_id) DO UPDATE SET
          (minute_count, day_count, last_counted) = (
            SELECT ${storedCount('minute')} + coalesce(max(c), 0), ${storedCount('day')} + coalesce(max(c), 0),
              coalesce(max(c), 0)
            FROM ${requests} AS q, unnest(q.cums) AS c
            WHERE q.key_id = excluded.key_id AND c <= ${room}),
          minute_start = ${laterStart('minute')},
          day_start = ${laterStart('day')}
        RETURNING key_id, minute_start, minute_count, day_start, day_count, last_counted`;
}

/**
 * In a conflict arm: the stored count of a window as the request sees it — the stored window's count when it is the
 * request's window or a newer one (a replica whose clock lags counts into it), 0 when it has ended.
 */
function storedCount(window: 'minute' | 'day'): RawBuilder<unknown> {
  const start = sql.ref(`${window}_start`);
  return sql`(CASE WHEN r.${start} >= excluded.${start} THEN r.${sql.ref(`${window}_count`)} ELSE 0 END)`;
}

/** In a conflict arm: the window the row keeps — the stored one unless the request's is newer. */
function laterStart(window: 'minute' | 'day'): RawBuilder<unknown> {
  const start = sql.ref(`${window}_start`);
  return sql`CASE WHEN r.${start} >= excluded.${start} THEN r.${start} ELSE excluded.${start} END`;
}

function selectWindowsQuery(db: Kysely<Database>, keyIds: readonly string[]) {
  return db
    .selectFrom('rate_limits')
    .select(['key_id', 'minute_start', 'minute_count', 'day_start', 'day_count'])
    .where('key_id', 'in', [...keyIds]);
}

/** The stored windows of these keys (keys without a row are absent). */
export function selectWindows(db: Kysely<Database>, keyIds: readonly string[]) {
  return selectWindowsQuery(db, keyIds).execute();
}

/** Deletes the rows whose day window started before `dayStart`; how many went. */
export async function deleteWindowsBefore(db: Kysely<Database>, dayStart: number): Promise<number> {
  const result = await db.deleteFrom('rate_limits').where('day_start', '<', dayStart).executeTakeFirst();
  return Number(result.numDeletedRows);
}
