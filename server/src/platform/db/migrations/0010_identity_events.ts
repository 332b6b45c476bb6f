import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../connect';

// Identity-change events (features/identity-events, docs/identity-events.md): the gapless, sequenced log of every
// registry change, the indexer's one-row stream state (cursor + next sequence, moved in the same transaction as the
// events it covers), the registry state the indexer keeps to tell a change's "before", and the webhook tables made
// to serve both streams (one delivery engine): a subscription names its stream, a registry-wide scope exists, a
// delivery's event lives in pay_events or identity_events (so its event_id no longer references pay_events), and a
// rotated secret keeps signing beside the new one for the overlap.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('identity_events')
    .addColumn('sequence', 'bigint', (c) => c.primaryKey())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('slot', 'bigint', (c) => c.notNull())
    .addColumn('handle_name', 'text')
    /** The exact JSON body every delivery of this event sends and the log serves. */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('identity_events_handle')
    .on('identity_events')
    .columns(['handle_name', 'sequence'])
    .execute();
  await db.schema.createIndex('identity_events_created').on('identity_events').column('created_at').execute();
  // The wallets an event is about (actors, owners before and after): the log's `wallet=` filter and wallet scopes.
  await db.schema
    .createTable('identity_event_wallets')
    .addColumn('wallet', 'text', (c) => c.notNull())
    .addColumn('sequence', 'bigint', (c) => c.notNull().references('identity_events.sequence').onDelete('cascade'))
    .addPrimaryKeyConstraint('identity_event_wallets_pk', ['wallet', 'sequence'])
    .execute();
  await db.schema
    .createIndex('identity_event_wallets_sequence')
    .on('identity_event_wallets')
    .column('sequence')
    .execute();

  await db.schema
    .createTable('identity_stream')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('next_sequence', 'bigint', (c) => c.notNull())
    .addColumn('start_slot', 'bigint', (c) => c.notNull())
    .addColumn('last_signature', 'text')
    .addColumn('last_slot', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // What the indexer has seen of the registry (a copy, from the stream's start slot on): the "before" of a change.
  await db.schema
    .createTable('identity_handles')
    .addColumn('account', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('owner', 'text')
    .addColumn('tokenized', 'integer', (c) => c.notNull())
    .addColumn('mint', 'text')
    .execute();
  await db.schema
    .createTable('identity_records')
    .addColumn('account', 'text', (c) => c.primaryKey())
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text')
    .addColumn('verified', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('identity_attestations')
    .addColumn('account', 'text', (c) => c.primaryKey())
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('identity_primaries')
    .addColumn('wallet', 'text', (c) => c.primaryKey())
    .addColumn('handle', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('identity_primaries_handle').on('identity_primaries').column('handle').execute();

  if (dialectOf(db) === 'postgres') {
    await sql`alter table webhook_deliveries drop constraint webhook_deliveries_event_id_fkey`.execute(db);
    await sql`alter table webhook_subscriptions drop constraint webhook_subscriptions_scope_type_check`.execute(db);
    await sql`alter table webhook_subscriptions add constraint webhook_subscriptions_scope_type_check
      check (scope_type in ('wallet', 'name', 'registry'))`.execute(db);
  } else {
    await rebuildSqliteWebhookTables(db);
  }
  await db.schema
    .alterTable('webhook_subscriptions')
    .addColumn('stream', 'text', (c) => c.notNull().defaultTo('pay'))
    .execute();
  // Identity subscriptions: events from this sequence on are delivered (the log serves everything before).
  await db.schema.alterTable('webhook_subscriptions').addColumn('watch_from_sequence', 'bigint').execute();
  // Secret rotation: the previous secret signs beside the new one until previous_secret_until (epoch ms).
  await db.schema.alterTable('webhook_subscriptions').addColumn('previous_secret', 'text').execute();
  await db.schema.alterTable('webhook_subscriptions').addColumn('previous_secret_until', 'bigint').execute();
  await db.schema
    .createIndex('webhook_subscriptions_stream')
    .on('webhook_subscriptions')
    .columns(['stream', 'status'])
    .execute();
  // recover: a webhook's deliveries by creation time and status.
  await db.schema
    .createIndex('webhook_deliveries_recover')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'status', 'created_at'])
    .execute();
}

/**
 * SQLite cannot drop a CHECK or a foreign key in place: both webhook tables are rebuilt from their own CREATE text
 * (the scope check gains 'registry'; the event_id reference to pay_events goes), rows copied, indexes re-created.
 * Order matters with foreign keys on: the new deliveries table references the new subscriptions table before either
 * old table is dropped, so no drop cascades into rows that are still wanted.
 */
async function rebuildSqliteWebhookTables(db: Kysely<any>): Promise<void> {
  const master = async (table: string) =>
    (
      await sql<{ type: string; name: string; sql: string | null }>`
        select type, name, sql from sqlite_master where tbl_name = ${table}`.execute(db)
    ).rows;
  const subs = await master('webhook_subscriptions');
  const dels = await master('webhook_deliveries');
  const createOf = (rows: typeof subs) => rows.find((r) => r.type === 'table')!.sql!;
  const indexesOf = (rows: typeof subs) => rows.filter((r) => r.type === 'index' && r.sql !== null).map((r) => r.sql!);

  const subsCreate = createOf(subs)
    .replace(/create table "webhook_subscriptions"/i, 'create table "webhook_subscriptions_v2"')
    .replace(`scope_type in ('wallet', 'name')`, `scope_type in ('wallet', 'name', 'registry')`);
  const delsCreate = createOf(dels)
    .replace(/create table "webhook_deliveries"/i, 'create table "webhook_deliveries_v2"')
    .replace(/references "webhook_subscriptions"/i, 'references "webhook_subscriptions_v2"')
    .replace(/\s*references "pay_events" \("id"\)/i, '');
  if (subsCreate.includes('webhook_subscriptions"') || delsCreate.includes('pay_events')) {
    throw new Error('0010: unexpected webhook table definitions; cannot rebuild');
  }
  await sql.raw(subsCreate).execute(db);
  await sql`insert into webhook_subscriptions_v2 select * from webhook_subscriptions`.execute(db);
  await sql.raw(delsCreate).execute(db);
  await sql`insert into webhook_deliveries_v2 select * from webhook_deliveries`.execute(db);
  await sql`drop table webhook_deliveries`.execute(db);
  await sql`drop table webhook_subscriptions`.execute(db);
  await sql`alter table webhook_subscriptions_v2 rename to webhook_subscriptions`.execute(db);
  await sql`alter table webhook_deliveries_v2 rename to webhook_deliveries`.execute(db);
  for (const index of [...indexesOf(subs), ...indexesOf(dels)]) await sql.raw(index).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'identity_primaries',
    'identity_attestations',
    'identity_records',
    'identity_handles',
    'identity_stream',
    'identity_event_wallets',
    'identity_events',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
