import type { Kysely } from 'kysely';

// The watched-wallet index of webhook subscriptions (features/webhooks): one row per (wallet, subscription),
// written and removed in the same db transaction as the subscription, so the ingestion pipeline matches a block by
// looking up the block's addresses instead of loading every subscription. Rows of a removed subscription go with it
// (ON DELETE CASCADE). Also an index for the subscriptions created since a pass last looked (their look-back).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_watched_wallets')
    .addColumn('wallet', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id').onDelete('cascade'))
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('watch_from_slot', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_watched_wallets_pk', ['wallet', 'subscription_id'])
    .execute();
  // The cascade's lookup (a subscription's rows).
  await db.schema
    .createIndex('webhook_watched_wallets_subscription')
    .on('webhook_watched_wallets')
    .column('subscription_id')
    .execute();
  await db.schema
    .createIndex('webhook_subscriptions_stream_created')
    .on('webhook_subscriptions')
    .columns(['stream', 'created_at'])
    .execute();
  const subscriptions = (await db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'stream', 'wallets', 'watch_from_slot'])
    .execute()) as { id: string; stream: string; wallets: string; watch_from_slot: number | string }[];
  const rows = subscriptions.flatMap((sub) =>
    [...new Set(JSON.parse(sub.wallets) as string[])].map((wallet) => ({
      wallet,
      subscription_id: sub.id,
      stream: sub.stream,
      watch_from_slot: sub.watch_from_slot,
    })),
  );
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('webhook_watched_wallets')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_subscriptions_stream_created').execute();
  await db.schema.dropTable('webhook_watched_wallets').execute();
}
