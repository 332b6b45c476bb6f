// SQL of the identity log as its routes, the webhook engine and housekeeping use it (identity_events,
// identity_event_wallets). The indexer's SQL lives beside the indexer.
import { sql, type Kysely } from 'kysely';
import type { Database, IdentityEventsTable } from '../../platform/db/index';
import { deleteDeliveriesOfEvents } from '../webhooks/index';

/** The stored payloads (and types) of these identity events. */
export function selectIdentityEventPayloads(db: Kysely<Database>, ids: readonly string[]) {
  return db
    .selectFrom('identity_events')
    .select(['id', 'type', 'payload'])
    .where('id', 'in', [...ids])
    .execute();
}

/**
 * Stores a test event under the next free negative sequence (below every stored one, outside the log: the log
 * serves sequences above 0 only).
 */
export async function insertIdentityTestEvent(
  trx: Kysely<Database>,
  row: Omit<IdentityEventsTable, 'sequence'>,
): Promise<void> {
  const { low } = await trx
    .selectFrom('identity_events')
    .select((eb) => eb.fn.min<number>('sequence').as('low'))
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('identity_events')
    .values({ ...row, sequence: Math.min(0, Number(low ?? 0)) - 1 })
    .execute();
}

/** The concrete SQL test of an event_types list: exact types and `family.%` prefixes. */
function typeFilter(patterns: string[]) {
  if (patterns.includes('*')) return sql<boolean>`1 = 1`;
  const exact = patterns.filter((p) => !p.endsWith('.*'));
  const families = patterns.filter((p) => p.endsWith('.*')).map((p) => `${p.slice(0, -1)}%`);
  return sql<boolean>`(${sql.join(
    [...(exact.length > 0 ? [sql`type in (${sql.join(exact)})`] : []), ...families.map((f) => sql`type like ${f}`)],
    sql` or `,
  )})`;
}

/** Up to `take` log entries after `after` in sequence order, filtered (types already parsed, handle normalized). */
export function selectLogPage(
  db: Kysely<Database>,
  page: { after: number; take: number; types?: string[]; handle?: string; wallet?: string },
) {
  let q = db
    .selectFrom('identity_events')
    .select(['sequence', 'payload'])
    .where('test', '=', 0)
    .where('sequence', '>', page.after)
    .orderBy('sequence')
    .limit(page.take);
  if (page.types !== undefined) q = q.where(typeFilter(page.types));
  if (page.handle !== undefined) q = q.where('handle_name', '=', page.handle);
  if (page.wallet !== undefined) {
    const wallet = page.wallet;
    q = q.where('sequence', 'in', (eb) =>
      eb.selectFrom('identity_event_wallets').select('sequence').where('wallet', '=', wallet),
    );
  }
  return q.execute();
}

/**
 * The log's bounds: the oldest sequence kept (null when retention removed them all, or none was written) and the
 * latest sequence the stream ever assigned (0 before its first event; pruning never lowers it).
 */
export async function selectLogBounds(db: Kysely<Database>): Promise<{ oldest: number | null; latest: number }> {
  // One statement, one round trip: both bounds as scalar subqueries.
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('identity_events')
        .select((e) => e.fn.min<number>('sequence').as('oldest'))
        .where('test', '=', 0)
        .where('sequence', '>', 0)
        .as('oldest'),
      eb.selectFrom('identity_stream').select('next_sequence').where('id', '=', 'main').as('next_sequence'),
    ])
    .executeTakeFirstOrThrow();
  const { oldest, next_sequence: next } = row as {
    oldest: number | string | null;
    next_sequence: number | string | null;
  };
  return { oldest: oldest === null ? null : Number(oldest), latest: next === null ? 0 : Number(next) - 1 };
}

/** The sequence of a logged (non-test) event, by its id; undefined when it is not in the log. */
export function selectLoggedSequence(db: Kysely<Database>, id: string) {
  return db
    .selectFrom('identity_events')
    .select('sequence')
    .where('id', '=', id)
    .where('test', '=', 0)
    .executeTakeFirst();
}

/** Where the stream starts and how far it has read (undefined before its first run). */
export function selectStreamPosition(db: Kysely<Database>) {
  return db
    .selectFrom('identity_stream')
    .select(['start_slot', 'last_slot'])
    .where('id', '=', 'main')
    .executeTakeFirst();
}

/** Deletes events created before `cutoff` and their deliveries; answers the events deleted. */
export async function deleteEventsBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  await deleteDeliveriesOfEvents(db, db.selectFrom('identity_events').select('id').where('created_at', '<', cutoff));
  const result = await db.deleteFrom('identity_events').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
