import type { Kysely } from 'kysely';

// What the keyed request's batched upsert counted into a key's row (features/keys/admit.queries.ts): Postgres 15's
// RETURNING gives only the row after the update, so the statement writes the amount it added beside the counts and
// reads it back in the same RETURNING; each request's own remaining follows from it (docs/rate-limits.md "The key
// step"). Nothing else reads it, so the writers that do not set it (the limiter's single upsert) leave it as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('rate_limits')
    .addColumn('last_counted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('rate_limits').dropColumn('last_counted').execute();
}
