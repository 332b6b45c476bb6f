// SQL of the pay stream's own table as the webhook engine needs it: the stored events' bodies for a delivery batch,
// and the test events (pay_events, test = 1); and the indexer's reads of the pay subscriptions' watched-wallet
// index. The rest of the indexer's SQL lives beside the indexer.
import type { Kysely } from 'kysely';
import type { Database, PayEventsTable } from '../../platform/db/index';

/** The stored payloads (and types) of these pay events. */
export function selectPayEventPayloads(db: Kysely<Database>, ids: readonly string[]) {
  return db
    .selectFrom('pay_events')
    .select(['id', 'type', 'payload'])
    .where('id', 'in', [...ids])
    .execute();
}

export async function insertPayEvent(db: Kysely<Database>, row: PayEventsTable): Promise<void> {
  await db.insertInto('pay_events').values(row).execute();
}

/**
 * Of `addresses`, those an active pay subscription watches (webhook_watched_wallets, kept by the webhook engine
 * with the subscriptions), each with the earliest slot one watches it from: an index lookup of these addresses (in
 * chunks), whatever the number of subscriptions.
 */
export async function selectWatchedWallets(
  db: Kysely<Database>,
  addresses: readonly string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const unique = [...new Set(addresses)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db
      .selectFrom('webhook_watched_wallets as w')
      .innerJoin('webhook_subscriptions as s', 's.id', 'w.subscription_id')
      .select(['w.wallet', (eb) => eb.fn.min<number | string>('w.watch_from_slot').as('from')])
      .where('w.wallet', 'in', unique.slice(i, i + 500))
      .where('w.stream', '=', 'pay')
      .where('s.status', '=', 'active')
      .groupBy('w.wallet')
      .execute();
    for (const row of rows) out.set(row.wallet, Number(row.from));
  }
  return out;
}

/** The active pay subscriptions created at or after `since` (epoch ms): id, creation time, watch start. */
export function selectPayCreatedSince(db: Kysely<Database>, since: number) {
  return db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'created_at', 'watch_from_slot'])
    .where('stream', '=', 'pay')
    .where('created_at', '>=', since)
    .where('status', '=', 'active')
    .execute();
}

/** The earliest watch start of the active pay subscriptions (null: none). */
export async function selectEarliestPayWatch(db: Kysely<Database>): Promise<number | null> {
  const { from } = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.min<number | string>('watch_from_slot').as('from'))
    .where('stream', '=', 'pay')
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  return from === null ? null : Number(from);
}
