import type { Kysely } from 'kysely';

// x402 facilitator rail (features/x402, docs/x402.md): one row per payment (a partially signed transaction, keyed by
// the SHA-256 of its message) from the moment Sigil asks the facilitator to settle it. It outlives processes and is
// shared by replicas, so a payment settles and buys a response at most once whatever process sees it again, and a
// settlement that timed out can be resumed by the same payment (the response served without a second charge).
// - transaction: the settled transaction's signature, once known;
// - served_at: set by the one conditional UPDATE that decides which request the payment bought.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('x402_settlements')
    .addColumn('payment_key', 'text', (c) => c.primaryKey()) // hex SHA-256 of the transaction message
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull()) // quoted price, smallest units, decimal
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull()) // epoch ms
    .addColumn('transaction', 'text')
    .addColumn('served_at', 'bigint') // epoch ms
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('x402_settlements').execute();
}
