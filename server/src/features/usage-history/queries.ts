// SQL of usage history (table usage_history, migration 0012): the batched upserts of counts and the range sum.
import { sql, type Kysely } from 'kysely';
import type { Database, UsageHistoryTable } from '../../platform/db/index';

/** Rows per INSERT statement (far below both dialects' bind-parameter limits: 6 parameters a row). */
const ROWS_PER_STATEMENT = 500;

export type Row = Omit<UsageHistoryTable, 'resolution'> & { resolution: 'minute' | 'hour' };

/** Upserts rows adding their counts to what is stored (both dialects: ON CONFLICT … DO UPDATE). */
export async function addRows(db: Kysely<Database>, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('usage_history')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc
          .columns(['account', 'key_id', 'resolution', 'bucket_start', 'outcome'])
          .doUpdateSet({ count: sql<number>`usage_history.count + excluded.count` }),
      )
      .execute();
  }
}

/** Counts per (bucket, outcome) of an account (or one key) at one resolution from `from` on. */
export function sumUsage(
  db: Kysely<Database>,
  read: { account: string; keyId?: string; resolution: 'minute' | 'hour'; from: number },
): Promise<{ bucket_start: number; outcome: string; n: number }[]> {
  let q = db
    .selectFrom('usage_history')
    .select(['bucket_start', 'outcome', (eb) => eb.fn.sum<number>('count').as('n')])
    .where('account', '=', read.account)
    .where('resolution', '=', read.resolution)
    .where('bucket_start', '>=', read.from)
    .groupBy(['bucket_start', 'outcome']);
  if (read.keyId !== undefined) q = q.where('key_id', '=', read.keyId);
  return q.execute();
}

/** Deletes one resolution's rows whose bucket started before `before`; how many went. */
export async function deleteUsageBefore(
  db: Kysely<Database>,
  resolution: 'minute' | 'hour',
  before: number,
): Promise<number> {
  const result = await db
    .deleteFrom('usage_history')
    .where('resolution', '=', resolution)
    .where('bucket_start', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
