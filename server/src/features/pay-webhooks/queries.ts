// SQL of the pay stream's own table as the webhook engine needs it: the stored events' bodies for a delivery batch,
// and the test events (pay_events, test = 1). The indexer's SQL lives beside the indexer.
import type { Kysely } from 'kysely';
import type { Database, PayEventsTable } from '../../platform/db/index';

/** The stored payloads (and types) of these pay events. */
export function selectPayEventPayloads(db: Kysely<Database>, ids: readonly string[]) {
  return db
    .selectFrom('pay_events')
    .select(['id', 'type', 'payload'])
    .where('id', 'in', [...ids])
    .execute();
}

export async function insertPayEvent(db: Kysely<Database>, row: PayEventsTable): Promise<void> {
  await db.insertInto('pay_events').values(row).execute();
}
