import type { Kysely } from 'kysely';

// The request log (features/usage-history, docs/usage-history.md): the latest requests of each key (and of each
// x402-paying wallet), written in batches by each replica, trimmed to a bounded count per key and a bounded age.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('request_log')
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull()) // '' for keyless (x402-paid) calls
    .addColumn('at', 'bigint', (c) => c.notNull()) // epoch ms
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('latency_us', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_log_pk', ['account', 'key_id', 'at', 'request_id'])
    .execute();
  // The account-wide read (every key, newest first) and the age trim.
  await db.schema.createIndex('request_log_account_at').on('request_log').columns(['account', 'at']).execute();
  await db.schema.createIndex('request_log_at').on('request_log').column('at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('request_log').execute();
}
