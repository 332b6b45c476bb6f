import type { Kysely } from 'kysely';

// Delivery detail (docs/webhooks.md "Managed with the session"): one row per attempt to send a delivery — when,
// the receiver's status or the error class, how long, and the headers sent (signatures only, never a secret). A
// delivery's attempts go with it (its webhook's deletion, a stream's retention). And the URL-change challenges of
// the session routes: a challenge issued for an existing webhook names it, so it can change that webhook's URL and
// never register a new one (nor the other way round).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull()) // epoch ms
    .addColumn('status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull()) // JSON object
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'id'])
    .execute();
  await db.schema.alterTable('webhook_challenges').addColumn('webhook_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_challenges').dropColumn('webhook_id').execute();
  await db.schema.dropTable('webhook_attempts').execute();
}
