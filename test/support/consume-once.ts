/**
 * The consume-once pattern (docs/data.md), on a throwaway table, shared by the in-process tests and the child
 * processes that race each other. A real feature writes the same single UPDATE on its own table.
 */
import { sql, type Kysely } from 'kysely';
import { affectedRows } from '../../server/src/platform/db/index';

export const TOKENS_TABLE = 'test_single_use_tokens';

export async function createTokensTable(db: Kysely<any>, ids: string[]): Promise<void> {
  await db.schema
    .createTable(TOKENS_TABLE)
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('used_at', 'bigint')
    .addColumn('used_by', 'text')
    .execute();
  await db.deleteFrom(TOKENS_TABLE).execute();
  if (ids.length > 0)
    await db
      .insertInto(TOKENS_TABLE)
      .values(ids.map((id) => ({ id, used_at: null, used_by: null })))
      .execute();
}

/** THE pattern: one conditional UPDATE; the row count says whether this caller won. */
export async function consumeToken(db: Kysely<any>, id: string, consumer: string, now = Date.now()): Promise<boolean> {
  const result = await db
    .updateTable(TOKENS_TABLE)
    .set({ used_at: now, used_by: consumer })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return affectedRows(result) === 1;
}

/** The bug the pattern prevents: read, decide, then write. Kept to prove the race harness catches it. */
export async function consumeTokenReadThenWrite(
  db: Kysely<any>,
  id: string,
  consumer: string,
  now = Date.now(),
): Promise<boolean> {
  const row = await db.selectFrom(TOKENS_TABLE).select('used_at').where('id', '=', id).executeTakeFirst();
  if (!row || row.used_at !== null) return false;
  await db.updateTable(TOKENS_TABLE).set({ used_at: now, used_by: consumer }).where('id', '=', id).execute();
  return true;
}

export async function tokenRows(
  db: Kysely<any>,
): Promise<{ id: string; used_at: number | null; used_by: string | null }[]> {
  const { rows } = await sql<{ id: string; used_at: number | null; used_by: string | null }>`
    select id, used_at, used_by from ${sql.table(TOKENS_TABLE)} order by id`.execute(db);
  return rows;
}
