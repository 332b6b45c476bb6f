// SQL of the pay stream: its own tables as the webhook engine needs them (the stored events' bodies for a delivery
// batch, the test events: pay_events, test = 1), and the indexer's (the pay subscriptions and their watched-wallet
// index, the invoice cache, stored events and their deliveries, binding re-checks, scope-change pauses).
import type { Kysely, Selectable } from 'kysely';
import type { Database, PayEventsTable, PayInvoicesTable, WebhookDeliveriesTable } from '../../platform/db/index';
import type { SubscriptionRow } from '../webhooks/index';

export type InvoiceRow = Selectable<PayInvoicesTable>;

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

/**
 * The pay subscriptions created at or after `since` (epoch ms): id, creation time, watch start. Paused ones too: a
 * pass that did not see a webhook because it was paused would take it for new once it is active again and re-read
 * the blocks since its registration, delivering what happened while it was paused.
 */
export function selectPayCreatedSince(db: Kysely<Database>, since: number) {
  return db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'created_at', 'watch_from_slot'])
    .where('stream', '=', 'pay')
    .where('created_at', '>=', since)
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

// ── the indexer ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The active pay subscriptions that may receive an event about one of `wallets`: those watching one of them (a wallet
 * scope watches its wallet, an `@name` scope its proven wallets), found through the watched-wallet index by the
 * wallets, whatever the number of subscriptions.
 */
export function selectPaySubscriptionsFor(
  db: Kysely<Database>,
  wallets: readonly string[],
): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('status', '=', 'active')
    .where('stream', '=', 'pay')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_watched_wallets')
        .select('subscription_id')
        .where('wallet', 'in', ['', ...wallets])
        .where('stream', '=', 'pay'),
    )
    .execute();
}

/**
 * The scopes (`@name`) of the `@name` pay subscriptions, whatever their status, whose proven wallets include `wallet`:
 * a lookup of the watched-wallet index by the wallet, whatever the number of subscriptions.
 */
export async function selectPayNamesWatching(db: Kysely<Database>, wallet: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_watched_wallets as w')
    .innerJoin('webhook_subscriptions as s', 's.id', 'w.subscription_id')
    .select('s.scope_value')
    .distinct()
    .where('w.wallet', '=', wallet)
    .where('w.stream', '=', 'pay')
    .where('s.scope_type', '=', 'name')
    .execute();
  return rows.map((row) => row.scope_value);
}

/** The active `@name` pay subscriptions. */
export function selectActivePayNameSubscriptions(db: Kysely<Database>): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('status', '=', 'active')
    .where('scope_type', '=', 'name')
    .where('stream', '=', 'pay')
    .execute();
}

/** Pauses the subscription with `reason` if it is still active; rows changed. */
export async function pauseActiveSubscription(
  db: Kysely<Database>,
  id: string,
  reason: string,
  now: number,
): Promise<number> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ status: 'paused', paused_reason: reason, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The cached invoice at `address`. */
export function selectInvoice(db: Kysely<Database>, address: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('pay_invoices').selectAll().where('address', '=', address).executeTakeFirst();
}

/** Caches an invoice learned from its account or its history; a row already there is kept. */
export async function insertInvoiceIfAbsent(db: Kysely<Database>, row: InvoiceRow): Promise<void> {
  await db
    .insertInto('pay_invoices')
    .values(row)
    .onConflict((oc) => oc.column('address').doNothing())
    .execute();
}

/** Caches an invoice whose creation was indexed; a row already there is marked as such. */
export async function upsertIndexedInvoice(db: Kysely<Database>, row: InvoiceRow, now: number): Promise<void> {
  await db
    .insertInto('pay_invoices')
    .values(row)
    .onConflict((oc) => oc.column('address').doUpdateSet({ create_indexed: 1, updated_at: now }))
    .execute();
}

/** Sets the cached invoice's status (0 open, 1 paid, 2 cancelled). */
export async function setInvoiceStatus(
  db: Kysely<Database>,
  address: string,
  status: number,
  now: number,
): Promise<void> {
  await db.updateTable('pay_invoices').set({ status, updated_at: now }).where('address', '=', address).execute();
}

/** Stores an event; one already stored under its id is kept (a replayed block adds nothing). */
export async function insertPayEventOnce(db: Kysely<Database>, row: PayEventsTable): Promise<void> {
  await db
    .insertInto('pay_events')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Queues a delivery unless the webhook already has one for the event; rows added (0 or 1). */
export async function insertDeliveryOnce(db: Kysely<Database>, row: WebhookDeliveriesTable): Promise<number> {
  const result = await db
    .insertInto('webhook_deliveries')
    .values(row)
    .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Up to `take` stored events whose binding was unverifiable and checked fewer than `limit` times. */
export function selectUnverifiedBindings(db: Kysely<Database>, limit: number, take: number) {
  return db
    .selectFrom('pay_events')
    .selectAll()
    .where('binding_status', '=', 'unverifiable')
    .where('binding_checks', '<', limit)
    .limit(take)
    .execute();
}

/** Records one more check of an event's binding and what it found. */
export async function setBindingCheck(
  db: Kysely<Database>,
  id: string,
  check: { status: string; checks: number },
): Promise<void> {
  await db
    .updateTable('pay_events')
    .set({ binding_checks: check.checks, binding_status: check.status })
    .where('id', '=', id)
    .execute();
}
