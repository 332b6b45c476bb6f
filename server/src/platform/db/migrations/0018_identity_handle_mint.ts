import type { Kysely } from 'kysely';

// The identity indexer looks a tokenized handle up by its NFT mint when a transaction moves one unit of a token
// (docs/identity-events.md "A tokenized handle's NFT"): an index keeps that lookup off a scan of every handle.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('identity_handles_mint').on('identity_handles').column('mint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('identity_handles_mint').execute();
}
