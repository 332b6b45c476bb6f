import type { Kysely } from 'kysely';

// The client a stored model belongs to (a token's, code's or grant's clientId, an interaction's client_id), beside
// its grant: one statement then reads a token with its client, grant and login (features/oidc/adapter.ts
// "read-ahead"). Null for rows written before, which are simply read without it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oidc_payloads').addColumn('client_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oidc_payloads').dropColumn('client_id').execute();
}
