// The x402 reference store's queries: issued references (what each was issued for) and consumed payments. Queries only;
// the redeem flow (redeem.ts) decides what they mean. Consumption is ONE statement whose row count decides.
import type { Kysely } from 'kysely';
import {
  affectedRows,
  ensureKv,
  type Database,
  type X402PaymentsTable,
  type X402ReferencesTable,
  type X402SettlementsTable,
} from '../../platform/db/index';

export type IssuedReference = X402ReferencesTable;
export type ConsumedPayment = X402PaymentsTable;
export type Settlement = X402SettlementsTable;

/** kv key of the generated nonce secret when SIGIL_X402_NONCE_SECRET is unset (local mode). */
export const NONCE_SECRET_KV_KEY = 'x402.nonce_secret';

/** The nonce secret kept in kv: `candidate` is stored unless one already is, and the stored one is returned. */
export function storedNonceSecret(db: Kysely<Database>, candidate: string, at: number): Promise<string> {
  return ensureKv(db, NONCE_SECRET_KV_KEY, candidate, at);
}

/** Records an issued reference. A reference is a hash over a fresh nonce, so it never collides. */
export async function insertReference(db: Kysely<Database>, row: IssuedReference): Promise<void> {
  await db.insertInto('x402_references').values(row).execute();
}

/** An issued reference, and whether a payment has consumed it already (read with it: one statement). */
export type ReferenceState = IssuedReference & { spent: boolean };

function referencesWithState(db: Kysely<Database>) {
  return db
    .selectFrom('x402_references')
    .selectAll('x402_references')
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('x402_payments')
            .select('x402_payments.signature')
            .whereRef('x402_payments.reference', '=', 'x402_references.reference'),
        )
        .as('spent'),
    );
}

/** SQLite answers EXISTS with 0 or 1, Postgres with a boolean. */
const withState = ({ spent, ...row }: IssuedReference & { spent: unknown }): ReferenceState => ({
  ...row,
  spent: Boolean(spent),
});

export async function findReference(db: Kysely<Database>, reference: string): Promise<ReferenceState | undefined> {
  const row = await referencesWithState(db).where('x402_references.reference', '=', reference).executeTakeFirst();
  return row && withState(row);
}

/** Issued references among `references` (e.g. the accounts a payment appended to its transfer). */
export async function findReferences(db: Kysely<Database>, references: readonly string[]): Promise<ReferenceState[]> {
  if (references.length === 0) return [];
  const rows = await referencesWithState(db).where('x402_references.reference', 'in', references).execute();
  return rows.map(withState);
}

/** Whether a payment with this transaction signature was consumed already. */
export async function signatureConsumed(db: Kysely<Database>, signature: string): Promise<boolean> {
  const row = await db
    .selectFrom('x402_payments')
    .select('signature')
    .where('signature', '=', signature)
    .executeTakeFirst();
  return row !== undefined;
}

export type ConsumeOutcome = 'consumed' | 'signature-used' | 'reference-used';

/**
 * Consumes a payment and its reference at once: INSERT … ON CONFLICT DO NOTHING against both unique columns.
 * Exactly one concurrent caller inserts the row (1 row changed); every other one changes 0 rows and learns which
 * of the two was taken. Never read-then-write. Throws when the store fails (→ METERING_UNAVAILABLE).
 */
export async function consumePayment(db: Kysely<Database>, row: ConsumedPayment): Promise<ConsumeOutcome> {
  const result = await db
    .insertInto('x402_payments')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (affectedRows(result) === 1) return 'consumed';
  return (await signatureConsumed(db, row.signature)) ? 'signature-used' : 'reference-used';
}

/** Housekeeping: issued references past their window that never bought anything. */
export async function deleteExpiredReferences(db: Kysely<Database>, olderThan: number): Promise<number> {
  const result = await db
    .deleteFrom('x402_references')
    .where('expires_at', '<', olderThan)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('x402_payments')
            .select('signature')
            .whereRef('x402_payments.reference', '=', 'x402_references.reference'),
        ),
      ),
    )
    .executeTakeFirst();
  return affectedRows(result);
}

// ── facilitator rail ──

export async function findSettlement(db: Kysely<Database>, paymentKey: string): Promise<Settlement | undefined> {
  return db.selectFrom('x402_settlements').selectAll().where('payment_key', '=', paymentKey).executeTakeFirst();
}

/** Records a payment about to be settled; false when a row for it exists already (another request has it). */
export async function insertSettlement(db: Kysely<Database>, row: Settlement): Promise<boolean> {
  const result = await db
    .insertInto('x402_settlements')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return affectedRows(result) === 1;
}

/**
 * Drops settlement rows started before `olderThan`. Safe a day on: a payment transaction lands only while its
 * blockhash is recent (about a minute) and the recovery window is 600 s, so a payment presented again after that
 * is refused by the facilitator (its blockhash has expired) and can neither be charged nor buy a second response.
 */
export async function deleteOldSettlements(db: Kysely<Database>, olderThan: number): Promise<number> {
  const result = await db.deleteFrom('x402_settlements').where('started_at', '<', olderThan).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Forgets a payment the facilitator refused to settle (nothing landed), so it is judged anew if presented again. */
export async function deleteSettlement(db: Kysely<Database>, paymentKey: string): Promise<void> {
  await db
    .deleteFrom('x402_settlements')
    .where('payment_key', '=', paymentKey)
    .where('transaction', 'is', null)
    .where('served_at', 'is', null)
    .execute();
}

/**
 * The one statement that decides which request a settled payment bought: sets `served_at` (and the transaction)
 * only while it is unset. false: another request was served with this payment first.
 */
export async function markSettlementServed(
  db: Kysely<Database>,
  paymentKey: string,
  transaction: string,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable('x402_settlements')
    .set({ transaction, served_at: at })
    .where('payment_key', '=', paymentKey)
    .where('served_at', 'is', null)
    .executeTakeFirst();
  return affectedRows(result) === 1;
}
