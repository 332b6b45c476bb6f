import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../connect';

// The handle index (features/search, docs/search.md): the registry's live handles as the index worker last saw them,
// for the keyed handle search. A copy of chain state, rebuilt by every pass: nothing here is authoritative.
export async function up(db: Kysely<any>): Promise<void> {
  // Names are compared byte-wise on both dialects: the cursor (`name > last`) and the prefix range
  // (`name >= q AND name < successor(q)`) need the order of code points, which a Postgres locale collation is not
  // (it may ignore `_` and `.`). SQLite's default BINARY collation already is; Postgres needs "C" on the column.
  const postgres = dialectOf(db) === 'postgres';
  await db.schema
    .createTable('handle_index')
    .addColumn('name', 'text', (c) => (postgres ? c.modifyFront(sql`collate "C"`) : c).primaryKey())
    .addColumn('account', 'text', (c) => c.notNull()) // the Handle PDA
    .addColumn('owner', 'text', (c) => c.notNull()) // the account's owner field (tokenized: the recorded owner)
    .addColumn('handle_type', 'integer', (c) => c.notNull())
    .addColumn('agent', 'integer', (c) => c.notNull()) // 0/1: handle type 3 or a live agent.manifest record
    .addColumn('registered_slot', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull()) // epoch ms of the last change of this row
    .execute();
  // The primary key serves prefix search and the cursor; agent-only search walks this one in name order.
  await db.schema.createIndex('handle_index_agent_name').on('handle_index').columns(['agent', 'name']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('handle_index').execute();
}
