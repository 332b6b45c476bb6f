// SQL of the identity log (identity_events, identity_event_wallets, identity_stream) as its routes, the webhook
// engine, housekeeping and the indexer use it.
import { sql, type Kysely } from 'kysely';
import {
  affectedRows,
  dialectOf,
  prepared,
  withoutFsyncTogether,
  type Database,
  type IdentityEventsTable,
  type Slots,
} from '../../platform/db/index';
import { deleteDeliveriesOfEvents, type SubscriptionRow } from '../webhooks/index';

/** The one row of identity_stream: the log's next sequence and how far the indexer has read. */
const STREAM_ROW = 'main';

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

/**
 * The log's unfiltered page, the common read: compiled once (prepared.ts), so a page costs SQLite's work and the
 * rows, not a query build per call.
 */
const unfilteredPage = prepared((db: Kysely<Database>, v: Slots<{ after: number; take: number }>) =>
  db
    .selectFrom('identity_events')
    .select('payload')
    .where('test', '=', 0)
    .where('sequence', '>', v.after)
    .orderBy('sequence')
    .limit(v.take),
);

/**
 * The stored payloads of up to `take` log entries after `after` in sequence order, filtered (types already parsed,
 * handle normalized). The payload alone: a second column per row costs SQLite's row objects about a fifth more, and
 * each payload states its own sequence (the indexer stores the event with the sequence of its row).
 */
export async function selectLogPage(
  db: Kysely<Database>,
  page: { after: number; take: number; types?: string[]; handle?: string; wallet?: string },
) {
  if (page.types === undefined && page.handle === undefined && page.wallet === undefined)
    return (await unfilteredPage(db, { after: page.after, take: page.take })).rows;
  let q = db
    .selectFrom('identity_events')
    .select('payload')
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

/** Both bounds in one statement (scalar subqueries), compiled once. */
const logBounds = prepared((db: Kysely<Database>, v: Slots<{ stream: string }>) =>
  db.selectNoFrom((eb) => [
    eb
      .selectFrom('identity_events')
      .select((e) => e.fn.min<number>('sequence').as('oldest'))
      .where('test', '=', 0)
      .where('sequence', '>', 0)
      .as('oldest'),
    eb.selectFrom('identity_stream').select('next_sequence').where('id', '=', v.stream).as('next_sequence'),
  ]),
);

/**
 * The log's bounds: the oldest sequence kept (null when retention removed them all, or none was written) and the
 * latest sequence the stream ever assigned (0 before its first event; pruning never lowers it).
 */
export async function selectLogBounds(db: Kysely<Database>): Promise<{ oldest: number | null; latest: number }> {
  const row = (await logBounds(db, { stream: STREAM_ROW })).rows[0]!;
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
    .where('id', '=', STREAM_ROW)
    .executeTakeFirst();
}

/**
 * Deletes events created before `cutoff` and their deliveries, in one transaction: a prune that fails half-way keeps
 * both, and on SQLite no write lands between the two statements to keep a delivery without its event (Postgres reads
 * committed rows anew per statement: a delivery committed after the first can outlive its event, and the delivery
 * worker deletes it when it claims it). Without fsync on SQLite: a power cut may forget the prune, which the next
 * pass repeats. Answers the events deleted.
 */
export function deleteEventsBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  return withoutFsyncTogether(db, async (trx) => {
    await deleteDeliveriesOfEvents(
      trx,
      trx.selectFrom('identity_events').select('id').where('created_at', '<', cutoff),
    );
    const result = await trx.deleteFrom('identity_events').where('created_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

// ── the indexer ─────────────────────────────────────────────────────────────────────────────────────

/** The stream row, created at the backfill slot when the stream has never run. */
export async function ensureStreamRow(db: Kysely<Database>, startSlot: number, now: number) {
  await db
    .insertInto('identity_stream')
    .values({
      id: STREAM_ROW,
      next_sequence: 1,
      start_slot: startSlot,
      last_signature: null,
      last_slot: null,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return db.selectFrom('identity_stream').selectAll().where('id', '=', STREAM_ROW).executeTakeFirstOrThrow();
}

/**
 * The stream's next sequence, read under a row lock (Postgres `FOR UPDATE`; SQLite has one writer) that the
 * caller's transaction holds to its end: the indexer's commit and a webhook's creation serialize on it, so a new
 * webhook's `from_sequence` is exactly the first event it will be fanned out. Null before the stream's first run.
 */
export async function lockedNextSequence(trx: Kysely<Database>): Promise<number | null> {
  const lock = dialectOf(trx) === 'postgres' ? sql` for update` : sql``;
  const row = (
    await sql<{
      next_sequence: number;
    }>`select next_sequence from identity_stream where id = ${STREAM_ROW}${lock}`.execute(trx)
  ).rows[0];
  return row ? Number(row.next_sequence) : null;
}

/**
 * Moves the stream to `next` only if it is still where this writer read it (`expected`): ONE conditional UPDATE;
 * rows changed (1 for the writer that read this cursor and sequence, else 0).
 */
export async function advanceStream(
  trx: Kysely<Database>,
  expected: { nextSequence: number; lastSignature: string | null },
  next: { nextSequence: number; lastSignature: string; lastSlot: number; now: number },
): Promise<number> {
  return affectedRows(
    await trx
      .updateTable('identity_stream')
      .set({
        next_sequence: next.nextSequence,
        last_signature: next.lastSignature,
        last_slot: next.lastSlot,
        updated_at: next.now,
      })
      .where('id', '=', STREAM_ROW)
      .where('next_sequence', '=', expected.nextSequence)
      .where((eb) =>
        expected.lastSignature === null
          ? eb('last_signature', 'is', null)
          : eb('last_signature', '=', expected.lastSignature),
      )
      .executeTakeFirst(),
  );
}

/** The active identity webhooks. */
export function selectActiveIdentitySubscriptions(trx: Kysely<Database>): Promise<SubscriptionRow[]> {
  return trx
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('stream', '=', 'identity')
    .where('status', '=', 'active')
    .execute();
}

/** Stores one logged event and the wallets it concerns (the log's wallet filter). */
export async function insertLoggedEvent(
  trx: Kysely<Database>,
  row: IdentityEventsTable,
  wallets: readonly string[],
): Promise<void> {
  await trx.insertInto('identity_events').values(row).execute();
  for (const wallet of wallets) {
    await trx.insertInto('identity_event_wallets').values({ wallet, sequence: row.sequence }).execute();
  }
}

/** Of `accounts`, the handle accounts the identity tables already know. */
export async function selectKnownHandleAccounts(
  db: Kysely<Database>,
  accounts: readonly string[],
): Promise<Set<string>> {
  const known = await db
    .selectFrom('identity_handles')
    .select('account')
    .where('account', 'in', ['', ...accounts])
    .execute();
  return new Set(known.map((k) => k.account));
}
