import type { Kysely } from 'kysely';

// Connect (features/connect, docs/connect.md): challenges (single use, consumed by one conditional UPDATE) and
// issued sessions (the JWT's `jti`, so a session can be revoked before it expires).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('connect_challenges')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('audience', 'text', (c) => c.notNull()) // the presenting key's id
    .addColumn('kind', 'text', (c) => c.notNull()) // 'handle' | 'wallet'
    .addColumn('handle', 'text') // canonical handle (handle kind, or the primary of a wallet in a mode)
    .addColumn('epoch', 'text') // handle kind: registration epoch (decimal u64)
    .addColumn('wallet', 'text') // requested wallet (wallet kind); null for {handle}
    .addColumn('mode', 'text') // null | 'tx' | 'signin'
    .addColumn('message', 'text', (c) => c.notNull()) // the exact string issued
    .addColumn('created_at', 'bigint', (c) => c.notNull()) // epoch ms
    .addColumn('expires_at', 'bigint', (c) => c.notNull()) // epoch ms
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('connect_challenges_expires_at').on('connect_challenges').column('expires_at').execute();

  await db.schema
    .createTable('connect_sessions')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('audience', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('handle', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull()) // epoch ms
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('connect_sessions_address')
    .on('connect_sessions')
    .columns(['address', 'audience'])
    .execute();
  await db.schema.createIndex('connect_sessions_expires_at').on('connect_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('connect_sessions').execute();
  await db.schema.dropTable('connect_challenges').execute();
}
