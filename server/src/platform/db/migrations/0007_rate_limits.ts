import type { Kysely } from 'kysely';

// One row per key holding both fixed windows (features/ratelimit, docs/rate-limits.md), so the limiter is ONE
// atomic upsert per request instead of a transaction over two window rows. It replaces rate_counters, which is
// left in place on purpose: during a rolling deploy on a shared Postgres the replicas still running the previous
// release keep using it. A later migration drops it. The counts of the moment of the upgrade are not carried over
// (a deploy forgets at most one minute's and one day's counts).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('minute_start', 'bigint', (c) => c.notNull()) // epoch ms, UTC-aligned
    .addColumn('minute_count', 'integer', (c) => c.notNull())
    .addColumn('day_start', 'bigint', (c) => c.notNull())
    .addColumn('day_count', 'integer', (c) => c.notNull())
    .execute();
  // Housekeeping deletes keys idle since before yesterday.
  await db.schema.createIndex('rate_limits_day_start').on('rate_limits').column('day_start').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limits').execute();
}
