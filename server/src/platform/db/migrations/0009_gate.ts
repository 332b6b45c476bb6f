import type { Kysely } from 'kysely';

// Gate policies (features/gate, docs/gate.md): one row per policy with its current version, and every version's
// canonical JSON with its SHA-256. A replace moves the current version with one conditional UPDATE (the If-Match
// hash in its WHERE), so of two racing replaces exactly one wins.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('gate_policies')
    .addColumn('id', 'text', (c) => c.primaryKey()) // gpol_…
    .addColumn('account', 'text', (c) => c.notNull()) // the owning key's account
    .addColumn('name', 'text')
    .addColumn('version', 'integer', (c) => c.notNull()) // the current version
    .addColumn('hash', 'text', (c) => c.notNull()) // the current version's hash (the ETag)
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('gate_policies_account').on('gate_policies').columns(['account', 'id']).execute();
  await db.schema
    .createTable('gate_policy_versions')
    .addColumn('policy_id', 'text', (c) => c.notNull().references('gate_policies.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull()) // canonical JSON
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('gate_policy_versions_pk', ['policy_id', 'version'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('gate_policy_versions').execute();
  await db.schema.dropTable('gate_policies').execute();
}
