import type { Kysely } from 'kysely';

// The OpenID Connect provider (features/oidc, docs/oidc.md): the library's stored models (authorization codes,
// tokens, sessions, grants, interactions) as JSON payloads; each API key's client registration; and which Connect
// session a grant was signed in with (the account's claims and its revocation come from that session).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_payloads')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('user_code', 'text')
    .addColumn('expires_at', 'bigint') // epoch ms; null: no expiry
    .addColumn('consumed_at', 'bigint') // epoch ms; set once, by one conditional UPDATE
    .addPrimaryKeyConstraint('oidc_payloads_pk', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oidc_payloads_grant').on('oidc_payloads').column('grant_id').execute();
  await db.schema.createIndex('oidc_payloads_uid').on('oidc_payloads').column('uid').execute();
  await db.schema.createIndex('oidc_payloads_expiry').on('oidc_payloads').column('expires_at').execute();

  await db.schema
    .createTable('oidc_clients')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('client_type', 'text', (c) => c.notNull()) // 'confidential' | 'public'
    .addColumn('secret_hash', 'text') // hex SHA-256 of the client secret; null for a public client
    .addColumn('redirect_uris', 'text', (c) => c.notNull()) // JSON array
    .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull()) // JSON array
    .addColumn('scopes', 'text', (c) => c.notNull()) // space-separated
    .addColumn('backchannel_logout_uri', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oidc_logins')
    .addColumn('grant_id', 'text', (c) => c.primaryKey())
    .addColumn('session_jti', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('amr', 'text', (c) => c.notNull())
    .addColumn('sid', 'text') // the browser session's id for this client, once the library has saved it
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_logins_session').on('oidc_logins').column('session_jti').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_logins').execute();
  await db.schema.dropTable('oidc_clients').execute();
  await db.schema.dropTable('oidc_payloads').execute();
}
