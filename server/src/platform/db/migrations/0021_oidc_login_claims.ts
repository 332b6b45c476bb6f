import type { Kysely } from 'kysely';

// The claims a sign-in proved (handle, source, attestation slugs), kept beside the grant's login: the code exchange
// that follows the sign-in within moments issues the id token from them instead of re-reading the chain
// (features/oidc/account.ts). Null for logins made before: those are read live.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oidc_logins').addColumn('claims', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oidc_logins').dropColumn('claims').execute();
}
