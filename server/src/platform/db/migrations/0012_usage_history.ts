import type { Kysely } from 'kysely';

// Usage over time (features/usage-history, docs/usage-history.md): request counts per account, key, bucket and
// outcome, at two resolutions (minute rows for the last hours, hour rows for the last weeks). Written in batches
// by each replica (count = count + n upserts), read by the portal's charts, trimmed by housekeeping.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('usage_history')
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull()) // '' for keyless (x402-paid) calls
    .addColumn('resolution', 'text', (c) => c.notNull()) // 'minute' | 'hour'
    .addColumn('bucket_start', 'bigint', (c) => c.notNull()) // epoch ms, UTC-aligned
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_history_pk', ['account', 'key_id', 'resolution', 'bucket_start', 'outcome'])
    .execute();
  // Housekeeping deletes by resolution and age.
  await db.schema
    .createIndex('usage_history_age')
    .on('usage_history')
    .columns(['resolution', 'bucket_start'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_history').execute();
}
