import type { Kysely } from 'kysely';
import type { Database } from './schema';

/** Small platform state (an indexer cursor, a last-run time). Values are text; JSON.stringify structured ones. */
export async function readKv(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('kv').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/**
 * The stored value, storing `candidate` first when the key has none: of several replicas starting at once, the
 * first insert wins and every one of them reads the same value back (a generated secret they must share).
 */
export async function ensureKv(
  db: Kysely<Database>,
  key: string,
  candidate: string,
  now: number = Date.now(),
): Promise<string> {
  await db
    .insertInto('kv')
    .values({ key, value: candidate, updated_at: now })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('kv').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}

/** Sets the value (insert or overwrite) in one statement. */
export async function writeKv(
  db: Kysely<Database>,
  key: string,
  value: string,
  now: number = Date.now(),
): Promise<void> {
  await db
    .insertInto('kv')
    .values({ key, value, updated_at: now })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), updated_at: eb.ref('excluded.updated_at') })),
    )
    .execute();
}
