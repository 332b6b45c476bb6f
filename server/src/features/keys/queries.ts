// The api_keys table's queries. Every function takes the db (or a transaction) first; service.ts decides what the
// rows mean (docs/keys.md).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { KeyTier } from '@sigil/contract/keys';
import { affectedRows, dialectOf, nativeStatement, type ApiKeysTable, type Database } from '../../platform/db/index';

export type KeyRow = Selectable<ApiKeysTable>;

const KEY_COLUMNS = [
  'id',
  'account',
  'name',
  'tier',
  'secret_prefix',
  'created_at',
  'revoked_at',
  'last_used_at',
] as const;

// Postgres advisory-lock class for "one account's keys" (ASCII 'keys'); the second int is hashtext(account).
const KEYS_LOCK_CLASS = 0x6b657973;

/**
 * Inserts a key, then counts the account's active keys, in one transaction; `check(count)` throwing rolls the
 * insert back. The count is exact under concurrency: SQLite's insert takes the file's write lock; on Postgres
 * an advisory lock per account serializes creators.
 */
export async function insertKeyCounted(
  db: Kysely<Database>,
  row: KeyRow,
  check: (activeKeys: number) => void,
): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await db.transaction().execute(async (trx) => {
    if (postgres) await sql`select pg_advisory_xact_lock(${KEYS_LOCK_CLASS}, hashtext(${row.account}))`.execute(trx);
    await trx.insertInto('api_keys').values(row).execute();
    const { n } = await trx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account', '=', row.account)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    check(Number(n));
  });
}

/** The account's keys without their hashes, revoked ones included, newest first. */
export function selectAccountKeys(db: Kysely<Database>, account: string) {
  return db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('account', '=', account)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** One of the account's keys without its hash, or undefined (also when the key belongs to someone else). */
export function selectOwnKey(db: Kysely<Database>, account: string, keyId: string) {
  return db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('id', '=', keyId)
    .where('account', '=', account)
    .executeTakeFirst();
}

/** Marks one of the account's keys revoked unless it already is (the first revocation time stays). */
export async function markKeyRevoked(db: Kysely<Database>, account: string, keyId: string, now: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('account', '=', account)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Relabels one of the account's keys. */
export async function setKeyName(
  db: Kysely<Database>,
  account: string,
  keyId: string,
  name: string | null,
): Promise<void> {
  await db.updateTable('api_keys').set({ name }).where('id', '=', keyId).where('account', '=', account).execute();
}

const keyByHash = (db: Kysely<Database>, hash: string) =>
  db.selectFrom('api_keys').selectAll().where('secret_hash', '=', hash);

/** The key whose secret hashes to `hash` (one indexed equality), or undefined. */
export function selectKeyByHash(db: Kysely<Database>, hash: string): Promise<KeyRow | undefined> {
  return keyByHash(db, hash).executeTakeFirst();
}

/** The same lookup for a NativeQuery (SQLite; keys/admit.queries.ts). */
export const keyByHashNative = nativeStatement(
  (db, hash: string) => keyByHash(db, hash).compile(),
  (hash) => [hash],
);

/** Sets last_used_at unless it is already after `threshold` (a concurrent writer won); whether it wrote. */
export async function markKeyUsed(
  db: Kysely<Database>,
  keyId: string,
  threshold: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', threshold)]))
    .executeTakeFirst();
  return affectedRows(result) === 1;
}

/** Sets a key's tier; false for an unknown id. */
export async function setKeyTierRow(db: Kysely<Database>, keyId: string, tier: KeyTier): Promise<boolean> {
  return affectedRows(await db.updateTable('api_keys').set({ tier }).where('id', '=', keyId).executeTakeFirst()) === 1;
}

/**
 * Inserts the portal's key row; when it exists, `overwrite` replaces its account, tier and secret and un-revokes it,
 * otherwise the stored row stays. One statement, so replicas starting at once agree. Returns whether it wrote, and
 * the stored row.
 */
export async function upsertPortalKeyRow(
  db: Kysely<Database>,
  row: KeyRow,
  overwrite: boolean,
): Promise<{ wrote: boolean; stored: KeyRow }> {
  const insert = db.insertInto('api_keys').values(row);
  const result = await (
    overwrite
      ? insert.onConflict((oc) =>
          oc.column('id').doUpdateSet({
            account: row.account,
            tier: row.tier,
            secret_hash: row.secret_hash,
            secret_prefix: row.secret_prefix,
            revoked_at: null,
          }),
        )
      : insert.onConflict((oc) => oc.column('id').doNothing())
  ).executeTakeFirst();
  const stored = await db.selectFrom('api_keys').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
  return { wrote: affectedRows(result) === 1, stored };
}
