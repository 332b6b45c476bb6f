import type { Kysely } from 'kysely';

// Fixed-window rate counters (features/ratelimit, docs/rate-limits.md): one row per key, window kind and window.
// No foreign key to api_keys: the limiter must not pay for a join, and housekeeping deletes old windows anyway.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_counters')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull()) // 'minute' | 'day'
    .addColumn('window_start', 'bigint', (c) => c.notNull()) // epoch ms, UTC-aligned
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_counters_pk', ['key_id', 'unit', 'window_start'])
    .execute();
  // Housekeeping deletes by age.
  await db.schema.createIndex('rate_counters_window_start').on('rate_counters').column('window_start').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_counters').execute();
}
