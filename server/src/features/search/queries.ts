// SQL of the handle index (table handle_index, migration 0008). Names compare byte-wise on both dialects (the
// migration), so `name > cursor` and the prefix range below follow the same order as ORDER BY name.
import { sql, type Kysely } from 'kysely';
import type { Database, HandleIndexTable } from '../../platform/db/index';

export type IndexRow = Omit<HandleIndexTable, 'updated_at'>;

/** Rows written per statement: well under SQLite's 32766 bound parameters (7 columns each). */
const CHUNK = 500;

export interface SearchQuery {
  /** Normalized, 1..32 characters, taken literally. */
  q: string;
  mode: 'prefix' | 'substring';
  agentOnly: boolean;
  /** Rows to return (the service asks for one more than a page to know whether another follows). */
  take: number;
  /** Only names after this one (the cursor). */
  after?: string;
}

/**
 * The smallest string above every string that starts with `prefix` in code-point order: the last code point
 * incremented. `[prefix, successor)` is exactly the names with that prefix, one range scan of the primary key.
 */
function successor(prefix: string): string {
  const points = Array.from(prefix);
  const last = points.pop()!.codePointAt(0)!;
  return points.join('') + String.fromCodePoint(last + 1);
}

/** LIKE with `\` as the escape character: `%`, `_` and `\` in q match themselves. */
function likeLiteral(q: string): string {
  return q.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export async function searchIndex(db: Kysely<Database>, query: SearchQuery): Promise<IndexRow[]> {
  let select = db
    .selectFrom('handle_index')
    .select(['name', 'account', 'owner', 'handle_type', 'agent', 'registered_slot'])
    .orderBy('name')
    .limit(query.take);
  if (query.mode === 'prefix') {
    select = select.where('name', '>=', query.q).where('name', '<', successor(query.q));
  } else {
    // Both dialects: LIKE with an explicit ESCAPE; names are lowercase and so is q, so SQLite's ASCII
    // case-insensitive LIKE changes nothing.
    select = select.where(sql<boolean>`name like ${`%${likeLiteral(query.q)}%`} escape '\\'`);
  }
  if (query.agentOnly) select = select.where('agent', '=', 1);
  if (query.after !== undefined) select = select.where('name', '>', query.after);
  return select.execute();
}

/** The index's rows, or only those of `names`. */
export async function readIndex(db: Kysely<Database>, names?: readonly string[]): Promise<IndexRow[]> {
  let select = db
    .selectFrom('handle_index')
    .select(['name', 'account', 'owner', 'handle_type', 'agent', 'registered_slot']);
  if (names) select = select.where('name', 'in', names.length > 0 ? [...names] : ['']);
  return select.execute();
}

/** One transaction: the rows to insert or change (upserts, idempotent) and the names to drop. */
export async function applyIndexChanges(
  db: Kysely<Database>,
  upserts: IndexRow[],
  removals: string[],
  now: number,
): Promise<void> {
  if (upserts.length === 0 && removals.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < upserts.length; i += CHUNK) {
      const rows = upserts.slice(i, i + CHUNK).map((row) => ({ ...row, updated_at: now }));
      await trx
        .insertInto('handle_index')
        .values(rows)
        .onConflict((oc) =>
          oc.column('name').doUpdateSet((eb) => ({
            account: eb.ref('excluded.account'),
            owner: eb.ref('excluded.owner'),
            handle_type: eb.ref('excluded.handle_type'),
            agent: eb.ref('excluded.agent'),
            registered_slot: eb.ref('excluded.registered_slot'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    }
    for (let i = 0; i < removals.length; i += CHUNK) {
      await trx
        .deleteFrom('handle_index')
        .where('name', 'in', removals.slice(i, i + CHUNK))
        .execute();
    }
  });
}

/** The newest identity event's sequence (0 when the log is empty). */
export async function latestIdentitySequence(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('identity_events')
    .select((eb) => eb.fn.max('sequence').as('latest'))
    .executeTakeFirst();
  return Number(row?.latest ?? 0);
}

/** Identity events after `sequence`, oldest first: their sequence and the handle they concern (if any). */
export async function identityChangesAfter(
  db: Kysely<Database>,
  sequence: number,
  limit: number,
): Promise<{ sequence: number; handle_name: string | null }[]> {
  const rows = await db
    .selectFrom('identity_events')
    .select(['sequence', 'handle_name'])
    .where('sequence', '>', sequence)
    .orderBy('sequence')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ sequence: Number(row.sequence), handle_name: row.handle_name }));
}
