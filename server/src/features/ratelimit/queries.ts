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
 * so the keyed request's single statement (keys/admit.queries.ts) can take them from the key's tier.
 */
export function countIfRoom(minuteLimit: RawBuilder<unknown>, dayLimit: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`ON CONFLICT (key_id) DO UPDATE SET
          minute_count = CASE WHEN r.minute_start >= excluded.minute_start THEN r.minute_count + excluded.minute_count ELSE excluded.minute_count END,
          minute_start = CASE WHEN r.minute_start >= excluded.minute_start THEN r.minute_start ELSE excluded.minute_start END,
          day_count = CASE WHEN r.day_start >= excluded.day_start THEN r.day_count + excluded.day_count ELSE excluded.day_count END,
          day_start = CASE WHEN r.day_start >= excluded.day_start THEN r.day_start ELSE excluded.day_start END
        WHERE (CASE WHEN r.minute_start >= excluded.minute_start THEN r.minute_count ELSE 0 END) + excluded.minute_count <= ${minuteLimit}
          AND (CASE WHEN r.day_start >= excluded.day_start THEN r.day_count ELSE 0 END) + excluded.day_count <= ${dayLimit}
        RETURNING minute_count, day_count`;
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
