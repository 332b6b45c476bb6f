import { sql, type Kysely } from 'kysely';

// Pay webhooks (features/pay-webhooks, docs/webhooks.md): subscriptions with their proven wallets, registration
// challenges, indexed pay events, delivery rows (claimed with leases), indexer cursors and an invoice cache.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('scope_type', 'text', (c) => c.notNull().check(sql`scope_type in ('wallet', 'name')`))
    .addColumn('scope_value', 'text', (c) => c.notNull())
    .addColumn('handle_account', 'text')
    .addColumn('authority_wallet', 'text')
    .addColumn('payment_wallet', 'text')
    .addColumn('wallets', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'paused')`))
    .addColumn('paused_reason', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('consecutive_dead', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('watch_from_slot', 'bigint', (c) => c.notNull())
    .addColumn('rate_window_start', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_subscriptions_account')
    .on('webhook_subscriptions')
    .columns(['account', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_challenges')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('scope_type', 'text', (c) => c.notNull())
    .addColumn('scope_value', 'text', (c) => c.notNull())
    .addColumn('wallet', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_challenges_expires').on('webhook_challenges').column('expires_at').execute();

  await db.schema
    .createTable('pay_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('slot', 'bigint', (c) => c.notNull())
    .addColumn('ix_index', 'integer', (c) => c.notNull())
    .addColumn('inner_index', 'integer', (c) => c.notNull())
    /** The wallet the event is about: the recipient of a payment, the payee of an invoice event. */
    .addColumn('wallet', 'text', (c) => c.notNull())
    .addColumn('binding_status', 'text')
    .addColumn('binding_checks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pay_events_binding')
    .on('pay_events')
    .columns(['binding_status', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('pay_events.id'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'dead')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('response_ms', 'integer')
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_holder', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  // One delivery per (webhook, event): fan-out is idempotent.
  await db.schema
    .createIndex('webhook_deliveries_once')
    .unique()
    .on('webhook_deliveries')
    .columns(['webhook_id', 'event_id'])
    .execute();
  // The claim query: due pending rows.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  // The delivery log, newest first.
  await db.schema
    .createIndex('webhook_deliveries_log')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('indexer_cursors')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('wallet', 'token')`))
    .addColumn('owner_wallet', 'text', (c) => c.notNull())
    .addColumn('start_slot', 'bigint', (c) => c.notNull())
    .addColumn('last_signature', 'text')
    .addColumn('last_slot', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('pay_invoices')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('payee', 'text', (c) => c.notNull())
    .addColumn('mint', 'text')
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('fee', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('bound', 'integer', (c) => c.notNull())
    .addColumn('handle_account', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('create_indexed', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'pay_invoices',
    'indexer_cursors',
    'webhook_deliveries',
    'pay_events',
    'webhook_challenges',
    'webhook_subscriptions',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
