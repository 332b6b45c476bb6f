import type { Kysely } from 'kysely';

// x402 pay-per-call (features/x402, docs/x402.md).
// - x402_references: every reference a challenge issued, with what it was issued for (request hash, payer, price)
//   and the server-side nonce it was derived with. Never updated: consumption lives in x402_payments.
// - x402_payments: one row per payment that bought a success. Unique by transaction signature AND by reference:
//   the single INSERT … ON CONFLICT DO NOTHING that writes it is the atomic "consume once" (row count decides).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('x402_references')
    .addColumn('reference', 'text', (c) => c.primaryKey())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull()) // the metered procedure's price class
    .addColumn('amount', 'text', (c) => c.notNull()) // quoted price, smallest units, decimal
    .addColumn('issued_at', 'bigint', (c) => c.notNull()) // epoch ms
    .addColumn('expires_at', 'bigint', (c) => c.notNull()) // epoch ms
    .execute();
  await db.schema
    .createIndex('x402_references_request')
    .on('x402_references')
    .columns(['request_hash', 'payer'])
    .execute();
  await db.schema.createIndex('x402_references_expires_at').on('x402_references').column('expires_at').execute();

  await db.schema
    .createTable('x402_payments')
    .addColumn('signature', 'text', (c) => c.primaryKey())
    .addColumn('reference', 'text', (c) => c.notNull().unique())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('consumed_at', 'bigint', (c) => c.notNull()) // epoch ms
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('x402_payments').execute();
  await db.schema.dropTable('x402_references').execute();
}
