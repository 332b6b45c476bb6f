import { sql, type Kysely } from 'kysely';

// API keys (features/keys, docs/keys.md). Only a SHA-256 of the secret is stored; `secret_prefix` is for display.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('tier', 'text', (c) => c.notNull().check(sql`tier in ('free', 'partner')`))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('secret_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  // authenticateKey: one indexed equality per request.
  await db.schema.createIndex('api_keys_secret_hash').unique().on('api_keys').column('secret_hash').execute();
  // listKeys / the per-account active-key cap.
  await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_keys').execute();
}
