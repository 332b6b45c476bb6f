// SQL of the request log (table request_log, migration 0017): batched inserts, the per-key trim, the age trim and
// the paged read. Rows are keyed (account, key_id, at, request_id): the read pages on (at, request_id) descending.
import { sql, type Kysely } from 'kysely';
import type { RequestLogStatusClass } from '@sigil/contract/usage-history';
import { dialectOf, executeServerPrepared, type Database, type RequestLogTable } from '../../platform/db/index';

/** Rows per INSERT statement on SQLite (9 parameters a row: far below its bind-parameter limit). */
const ROWS_PER_STATEMENT = 500;

/**
 * Rows per statement on Postgres, where a flush's rows travel as eight arrays: the bound on one statement's size
 * (the buffer holds at most MAX_PENDING_REQUESTS rows between flushes).
 */
const ROWS_PER_ARRAY_STATEMENT = 5_000;

/**
 * Writes a flush's rows. A replayed flush (a failed commit retried) must not fail on the rows it already wrote, so a
 * row already stored is skipped.
 *
 * On Postgres the rows go as one array per column into one statement whose text never changes, planned once per
 * connection (executeServerPrepared): a VALUES list of 500 rows is 4,000 parameters that Postgres parses, binds and
 * plans on every flush, which measured about as much of its CPU as storing the rows themselves (docs/usage-history.md
 * "Cost"). SQLite runs in process, where a VALUES list costs only its compile.
 */
export async function insertRequests(db: Kysely<Database>, rows: RequestLogTable[]): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    for (let i = 0; i < rows.length; i += ROWS_PER_ARRAY_STATEMENT)
      await executeServerPrepared(db, insertAsArrays(rows.slice(i, i + ROWS_PER_ARRAY_STATEMENT)));
    return;
  }
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT)
    await db
      .insertInto('request_log')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) => oc.doNothing())
      .execute();
}

/** Postgres: the rows as one array per column, unnested into the table. */
function insertAsArrays(rows: RequestLogTable[]) {
  const column = <C extends keyof RequestLogTable>(name: C) => rows.map((row) => row[name]);
  return sql`
    INSERT INTO request_log (account, key_id, at, request_id, method, route, status, latency_us)
    SELECT * FROM unnest(${column('account')}::text[], ${column('key_id')}::text[], ${column('at')}::bigint[],
      ${column('request_id')}::text[], ${column('method')}::text[], ${column('route')}::text[],
      ${column('status')}::integer[], ${column('latency_us')}::integer[])
    ON CONFLICT DO NOTHING`;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Distinct keys per trim statement on Postgres: a bound on one statement's size. */
const KEYS_PER_TRIM = 1_000;

/**
 * Keeps the newest `keep` rows of each of `keys` (a key, or a paying wallet under key ''), bounded per key by the
 * index on its rows; a key with fewer rows loses none. A flush trims every key that grew, so the statements must not
 * follow the number of keys: on Postgres one statement for up to KEYS_PER_TRIM keys (their names as arrays, planned
 * once per connection); on SQLite, in process, one statement per key inside one transaction (one commit).
 */
export async function trimKeys(
  db: Kysely<Database>,
  keys: readonly { account: string; key_id: string }[],
  keep: number,
): Promise<void> {
  if (keys.length === 0) return;
  if (dialectOf(db) === 'postgres') {
    // In one order on every replica: two trims over the same keys then lock their rows key by key in the same
    // order, and cannot deadlock each other.
    const ordered = [...keys].sort((a, b) =>
      a.account === b.account ? compare(a.key_id, b.key_id) : compare(a.account, b.account),
    );
    for (let i = 0; i < ordered.length; i += KEYS_PER_TRIM)
      await executeServerPrepared(db, trimAsArrays(ordered.slice(i, i + KEYS_PER_TRIM), keep));
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const { account, key_id } of keys)
      await trx
        .deleteFrom('request_log')
        .where('account', '=', account)
        .where('key_id', '=', key_id)
        .where('at', '<', (eb) =>
          eb
            .selectFrom('request_log')
            .select('at')
            .where('account', '=', account)
            .where('key_id', '=', key_id)
            .orderBy('at', 'desc')
            .limit(1)
            .offset(keep - 1),
        )
        .execute();
  });
}

/**
 * Postgres: per key, the `at` of its keep-th newest row (null with fewer rows), found once per key through the key's
 * index and kept (MATERIALIZED), then the key's rows older than that. Written as a join on the cut directly, the
 * planner evaluated the cut again for every stored row of the keys: 110 s for 300 keys of 1,100 rows, against 0.36 s
 * this way (EXPLAIN ANALYZE of the generic plan, a freshly loaded table).
 */
export function trimAsArrays(keys: readonly { account: string; key_id: string }[], keep: number) {
  return sql`
    WITH cuts AS MATERIALIZED (
      SELECT t.account, t.key_id, (
        SELECT x.at FROM request_log AS x
        WHERE x.account = t.account AND x.key_id = t.key_id
        ORDER BY x.at DESC OFFSET ${keep - 1}::integer LIMIT 1
      ) AS at
      FROM unnest(${keys.map((k) => k.account)}::text[], ${keys.map((k) => k.key_id)}::text[]) AS t(account, key_id)
    )
    DELETE FROM request_log AS r USING cuts AS c
    WHERE r.account = c.account AND r.key_id = c.key_id AND r.at < c.at`;
}

export async function deleteRequestsBefore(db: Kysely<Database>, before: number): Promise<number> {
  const result = await db.deleteFrom('request_log').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface RequestLogRead {
  account: string;
  /** One key ('' for x402-paid calls); absent: the whole account. */
  keyId?: string;
  status?: RequestLogStatusClass;
  requestId?: string;
  before?: { at: number; requestId: string };
  take: number;
}

const STATUS_RANGES: Record<RequestLogStatusClass, [number, number]> = {
  '2xx': [200, 299],
  '3xx': [300, 399],
  '4xx': [400, 499],
  '429': [429, 429],
  '5xx': [500, 599],
};

export async function readRequests(db: Kysely<Database>, read: RequestLogRead): Promise<RequestLogTable[]> {
  let q = db.selectFrom('request_log').selectAll().where('account', '=', read.account);
  if (read.keyId !== undefined) q = q.where('key_id', '=', read.keyId);
  if (read.requestId !== undefined) q = q.where('request_id', '=', read.requestId);
  if (read.status !== undefined) {
    const [low, high] = STATUS_RANGES[read.status];
    q = q.where('status', '>=', low).where('status', '<=', high);
  }
  if (read.before) {
    const { at, requestId } = read.before;
    q = q.where((eb) => eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('request_id', '<', requestId)])]));
  }
  return q.orderBy('at', 'desc').orderBy('request_id', 'desc').limit(read.take).execute();
}
