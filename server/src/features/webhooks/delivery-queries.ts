// SQL of webhook deliveries (table webhook_deliveries, and the counters on webhook_subscriptions the delivery
// state machine keeps: the per-minute budget and the dead-letter streak). Claims are leases: a row is claimed in one
// statement (Postgres: FOR UPDATE SKIP LOCKED; SQLite: one writer) and finished only where the lease is still ours.
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import {
  affectedRows,
  dialectOf,
  prepared,
  withoutFsyncNative,
  type Database,
  type NativeQuery,
  type Slots,
  type WebhookAttemptsTable,
  type WebhookDeliveriesTable,
} from '../../platform/db/index';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attempts: number;
  /** The delivery's webhook as it was at the claim: where it goes, how it is signed, whether it is still active. */
  target: ClaimTarget;
}

export interface ClaimTarget {
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  status: string;
  stream: string;
}

/** A delivery as it is when (re)queued: no attempts yet, due now, unleased, nothing recorded. */
export function queuedDeliveryState(now: number) {
  return {
    status: 'pending' as const,
    attempts: 0,
    last_status: null,
    last_error: null,
    response_ms: null,
    next_attempt_at: now,
    lease_holder: null,
    lease_expires_at: null,
    delivered_at: null,
  };
}

/**
 * Claims up to `limit` due deliveries of active webhooks of `streams` for `holder`, each with its webhook's target as
 * it is now: one statement, so no two holders share a row, and one round trip.
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  claim: { holder: string; limit: number; now: number; leaseMs: number; streams: readonly string[] },
): Promise<ClaimedDelivery[]> {
  const { holder, now } = claim;
  if (claim.streams.length === 0) return [];
  const due = sql`d.status = 'pending' and d.next_attempt_at <= ${now} and (d.lease_expires_at is null or d.lease_expires_at <= ${now})
    and s.status = 'active' and s.stream in (${sql.join(claim.streams)})`;
  const postgres = dialectOf(db) === 'postgres';
  const lock = postgres ? sql`for update of d skip locked` : sql``;
  // Postgres: the rows are re-checked after the lock. SQLite: one statement under the one write lock, nothing can
  // change in between; a re-check there would make the planner walk every pending row through the status index
  // instead of looking the claimed ids up by primary key (measured: 2.4 ms per claim with 2000 pending rows).
  const recheck = postgres
    ? sql`and status = 'pending' and (lease_expires_at is null or lease_expires_at <= ${now})`
    : sql``;
  // Ordered by due time only: a tie-break on id would sort every due row (no index has it) on each claim.
  const result = await sql<
    { id: string; webhook_id: string; event_id: string; event_type: string; attempts: number } & ClaimTarget
  >`
    update webhook_deliveries set lease_holder = ${holder}, lease_expires_at = ${now + claim.leaseMs}
    where id in (
      select d.id from webhook_deliveries d join webhook_subscriptions s on s.id = d.webhook_id
      where ${due} order by d.next_attempt_at limit ${claim.limit} ${lock}
    )
    ${recheck}
    returning id, webhook_id, event_id, event_type, attempts, ${CLAIM_TARGET}`.execute(db);
  return result.rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    eventType: r.event_type,
    attempts: Number(r.attempts),
    target: {
      url: r.url,
      secret: r.secret,
      previous_secret: r.previous_secret,
      previous_secret_until: r.previous_secret_until === null ? null : Number(r.previous_secret_until),
      status: r.status,
      stream: r.stream,
    },
  }));
}

/**
 * The claimed rows' webhook columns, read by primary key in the claim's RETURNING (SQLite's RETURNING cannot name a
 * joined table). Fixed text, built once: these names are constants, not input.
 */
const CLAIM_TARGET = sql.raw(
  (['url', 'secret', 'previous_secret', 'previous_secret_until', 'status', 'stream'] satisfies (keyof ClaimTarget)[])
    .map((c) => `(select s.${c} from webhook_subscriptions s where s.id = webhook_deliveries.webhook_id) as ${c}`)
    .join(', '),
);

/**
 * Takes slots of each webhook's budget of `max` per minute starting at `window`: `n` for each of `wants`, all or none
 * per webhook, in ONE conditional UPDATE of the subscription rows (shared by every replica). Answers the webhooks
 * that got theirs.
 */
export async function takeRateSlots(
  db: Kysely<Database>,
  wants: readonly { webhookId: string; n: number }[],
  budget: { window: number; max: number },
): Promise<Set<string>> {
  if (wants.length === 0) return new Set();
  const { window, max } = budget;
  const values = sql.join(wants.map((w) => sql`(cast(${w.webhookId} as text), cast(${w.n} as integer))`));
  const granted = await sql<{ id: string }>`
      update webhook_subscriptions
      set rate_count = case when rate_window_start = ${window} then rate_count + v.column2 else v.column2 end, rate_window_start = ${window}
      from (values ${values}) as v
      where webhook_subscriptions.id = v.column1
        and (case when rate_window_start = ${window} then rate_count else 0 end) + v.column2 <= ${max}
      returning webhook_subscriptions.id`.execute(db);
  return new Set(granted.rows.map((r) => r.id));
}

/** Gives claims back (no attempt made), due at `at` (null: unchanged). */
export async function releaseClaims(
  db: Kysely<Database>,
  ids: string[],
  holder: string,
  at: number | null,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_holder: null, lease_expires_at: null, ...(at === null ? {} : { next_attempt_at: at }) })
    .where('id', 'in', ids)
    .where('lease_holder', '=', holder)
    .execute();
}

/** A delivered attempt to record: its row in webhook_attempts and when it finished. */
export interface DeliveredAttempt {
  attempt: WebhookAttemptsTable;
  at: number;
}

/**
 * Records delivered attempts where `holder` still holds their lease, committed without fsync (durability.ts): each
 * delivery marked delivered, its attempt's row, and its webhook's dead-letter streak reset (a write only where it is
 * not 0). Postgres: ONE statement (data-modifying CTEs), one round trip. SQLite: per row, the delivery's update and
 * its attempt's insert, then one reset per webhook, all prepared statements run on the native connection inside the
 * group commit (in process a statement costs microseconds; building a multi-row statement cost more). Answers the
 * delivery ids it won.
 */
export function recordDelivered(
  db: Kysely<Database>,
  holder: string,
  rows: readonly DeliveredAttempt[],
): Promise<Set<string>> {
  if (rows.length === 0) return Promise.resolve(new Set());
  return withoutFsyncNative(
    db,
    (query) => recordDeliveredNative(db, query, holder, rows),
    (relaxed) => recordDeliveredPostgres(relaxed, holder, rows),
  );
}

const markDeliveredStatement = prepared(
  (
    db: Kysely<Database>,
    v: Slots<{ id: string; holder: string; attempt: number; status: number | null; ms: number; at: number }>,
  ) =>
    db
      .updateTable('webhook_deliveries')
      .set({
        status: 'delivered',
        attempts: v.attempt,
        last_status: v.status,
        response_ms: v.ms,
        delivered_at: v.at,
        last_error: null,
        next_attempt_at: null,
        lease_holder: null,
        lease_expires_at: null,
      })
      .where('id', '=', v.id)
      .where('lease_holder', '=', v.holder)
      .returning('webhook_id'),
);

const resetDeadStreakStatement = prepared((db: Kysely<Database>, v: Slots<{ webhookId: string }>) =>
  db
    .updateTable('webhook_subscriptions')
    .set({ consecutive_dead: 0 })
    .where('id', '=', v.webhookId)
    .where('consecutive_dead', '>', 0),
);

function recordDeliveredNative(
  db: Kysely<Database>,
  query: NativeQuery,
  holder: string,
  rows: readonly DeliveredAttempt[],
): Set<string> {
  const run = <R>(bound: { text: string; parameters: unknown[] }) => query<R>(bound.text, bound.parameters);
  const won = new Set<string>();
  const webhooks = new Set<string>();
  for (const { attempt: a, at } of rows) {
    const [marked] = run<{ webhook_id: string }>(
      markDeliveredStatement.bind(db, {
        id: a.delivery_id,
        holder,
        attempt: a.attempt,
        status: a.status,
        ms: a.duration_ms,
        at,
      }),
    );
    if (!marked) continue; // the lease is no longer ours
    won.add(a.delivery_id);
    webhooks.add(marked.webhook_id);
    run(insertAttemptStatement.bind(db, a));
  }
  for (const webhookId of webhooks) run(resetDeadStreakStatement.bind(db, { webhookId }));
  return won;
}

async function recordDeliveredPostgres(
  db: Kysely<Database>,
  holder: string,
  rows: readonly DeliveredAttempt[],
): Promise<Set<string>> {
  // Each row's values, named by v's columns below, the attempt row's own columns included.
  const values = sql.join(
    rows.map(
      ({ attempt: a, at }) =>
        sql`(cast(${a.delivery_id} as text), cast(${a.attempt} as integer), cast(${a.status} as integer), cast(${a.duration_ms} as integer), cast(${at} as bigint), cast(${a.id} as text), cast(${a.attempted_at} as bigint), cast(${a.headers} as text))`,
    ),
  );
  const won = await sql<{ id: string }>`
    with v (id, attempt, status, ms, at, attempt_id, attempted_at, headers) as (values ${values}),
    won as (
      update webhook_deliveries set status = 'delivered', attempts = v.attempt, last_status = v.status,
        response_ms = v.ms, delivered_at = v.at, last_error = null, next_attempt_at = null, lease_holder = null,
        lease_expires_at = null
      from v where webhook_deliveries.id = v.id and webhook_deliveries.lease_holder = ${holder}
      returning webhook_deliveries.id, webhook_deliveries.webhook_id
    ),
    attempts as (
      insert into webhook_attempts (id, delivery_id, attempt, attempted_at, status, error, duration_ms, headers)
      select v.attempt_id, v.id, v.attempt, v.attempted_at, v.status, null, v.ms, v.headers from v join won on won.id = v.id
    ),
    streaks as (
      update webhook_subscriptions set consecutive_dead = 0
      where id in (select webhook_id from won) and consecutive_dead > 0
    )
    select id from won`.execute(db);
  return new Set(won.rows.map((r) => r.id));
}

/**
 * Records a failed attempt (retry later, or dead) where `holder` still holds the lease, and the attempt's own row
 * when it did; rows changed.
 */
export async function finishFailedWithAttempt(
  db: Kysely<Database>,
  holder: string,
  id: string,
  outcome: Parameters<typeof finishFailed>[3],
  attempt: WebhookAttemptsTable,
): Promise<number> {
  const won = await finishFailed(db, holder, id, outcome);
  if (won === 1) await insertAttemptStatement(db, attempt);
  return won;
}

/** An attempt's row: one prepared statement (built and compiled once), run once per delivery attempt. */
const insertAttemptStatement = prepared((db: Kysely<Database>, a: Slots<WebhookAttemptsTable>) =>
  db.insertInto('webhook_attempts').values({
    id: a.id,
    delivery_id: a.delivery_id,
    attempt: a.attempt,
    attempted_at: a.attempted_at,
    status: a.status,
    error: a.error,
    duration_ms: a.duration_ms,
    headers: a.headers,
  }),
);

/** Records a failed attempt (retry later, or dead) where `holder` still holds the lease; rows changed. */
async function finishFailed(
  db: Kysely<Database>,
  holder: string,
  id: string,
  outcome: {
    attempts: number;
    last_status: number | null;
    response_ms: number;
    last_error: string;
    status?: 'dead';
    next_attempt_at: number | null;
  },
): Promise<number> {
  return affectedRows(
    await db
      .updateTable('webhook_deliveries')
      .set({ ...outcome, lease_holder: null, lease_expires_at: null })
      .where('id', '=', id)
      .where('lease_holder', '=', holder)
      .executeTakeFirst(),
  );
}

/** One more dead letter in a row; at `pauseAfter` the webhook is paused with `reason`. */
export async function countDeadLetter(
  db: Kysely<Database>,
  webhookId: string,
  pause: { after: number; reason: string; now: number },
): Promise<void> {
  await db
    .updateTable('webhook_subscriptions')
    .set((eb) => ({ consecutive_dead: eb('consecutive_dead', '+', 1) }))
    .where('id', '=', webhookId)
    .execute();
  await db
    .updateTable('webhook_subscriptions')
    .set({ status: 'paused', paused_reason: pause.reason, updated_at: pause.now })
    .where('id', '=', webhookId)
    .where('status', '=', 'active')
    .where('consecutive_dead', '>=', pause.after)
    .execute();
}

export async function insertDeliveries(db: Kysely<Database>, rows: WebhookDeliveriesTable[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

/** The webhook's deliveries, newest first. */
export function selectDeliveries(db: Kysely<Database>, webhookId: string, limit: number): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Queues a delivered or dead delivery again as a fresh one (a pending one is left as is); answers the row. */
export async function requeueFinished(
  db: Kysely<Database>,
  webhookId: string,
  deliveryId: string,
  now: number,
): Promise<DeliveryRow | undefined> {
  await db
    .updateTable('webhook_deliveries')
    .set(queuedDeliveryState(now))
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .where('status', 'in', ['delivered', 'dead'])
    .execute();
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

/**
 * Requeues every dead delivery of the webhook created in [since, until) — and every pending one that has failed at
 * least once and is not leased — then counts the pending ones of the window (test deliveries excluded).
 */
export async function requeueWindow(
  db: Kysely<Database>,
  webhookId: string,
  window: { since: number; until: number },
  now: number,
): Promise<{ requeued: number; pending: number }> {
  const inWindow = <Q extends { where: (...args: any[]) => Q }>(q: Q) =>
    q
      .where('webhook_id', '=', webhookId)
      .where('created_at', '>=', window.since)
      .where('created_at', '<', window.until)
      .where('test', '=', 0);
  const requeued = affectedRows(
    await inWindow(db.updateTable('webhook_deliveries'))
      .set(queuedDeliveryState(now))
      .where((eb) => eb.or([eb('status', '=', 'dead'), eb.and([eb('status', '=', 'pending'), eb('attempts', '>', 0)])]))
      .where((eb) => eb.or([eb('lease_holder', 'is', null), eb('lease_expires_at', '<=', now)]))
      .executeTakeFirst(),
  );
  const { n } = await inWindow(db.selectFrom('webhook_deliveries'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { requeued, pending: Number(n) };
}

/** Pending deliveries that are not test events (the operator's backlog gauge). */
export async function countPendingDeliveries(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .where('test', '=', 0)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** When the oldest pending delivery (test events aside) was created; undefined when none is pending. */
export async function oldestPendingCreatedAt(db: Kysely<Database>): Promise<number | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .where('test', '=', 0)
    .select((eb) => eb.fn.min('created_at').as('oldest'))
    .executeTakeFirst();
  return row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest);
}

/** Dead-lettered deliveries, test events aside. */
export async function countDeadDeliveries(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'dead')
    .where('test', '=', 0)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Deletes every delivery of the events `eventIds` lists or selects: a stream's retention removing old events, and
 * claims whose event such a prune removed (a delivery is never kept without its event).
 */
export async function deleteDeliveriesOfEvents<T extends keyof Database>(
  db: Kysely<Database>,
  eventIds: readonly string[] | SelectQueryBuilder<Database, T, { id: string }>,
): Promise<void> {
  if (Array.isArray(eventIds) && eventIds.length === 0) return; // `in ()` is no SQL
  await db.deleteFrom('webhook_deliveries').where('event_id', 'in', eventIds).execute();
}

/** A newest-first position: the created_at and id of the last row of the previous page. */
export interface DeliveryPosition {
  createdAt: number;
  id: string;
}

/**
 * One page of the webhook's deliveries, newest first, after `before` (keyset on created_at, id), of one status
 * and event type when given. Answers up to `take` rows.
 */
export function selectDeliveryPage(
  db: Kysely<Database>,
  webhookId: string,
  page: { status?: string; eventType?: string; before?: DeliveryPosition; take: number },
): Promise<DeliveryRow[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (page.status !== undefined) q = q.where('status', '=', page.status as DeliveryRow['status']);
  if (page.eventType !== undefined) q = q.where('event_type', '=', page.eventType);
  const before = page.before;
  if (before !== undefined)
    q = q.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.take).execute();
}

/** One delivery of the webhook. */
export function selectDelivery(
  db: Kysely<Database>,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** The delivery's attempts, newest first (ids sort by time), those older than `beforeId` when given. */
export function selectAttemptPage(
  db: Kysely<Database>,
  deliveryId: string,
  page: { beforeId?: string; take: number },
): Promise<AttemptRow[]> {
  let q = db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId);
  if (page.beforeId !== undefined) q = q.where('id', '<', page.beforeId);
  return q.orderBy('id', 'desc').limit(page.take).execute();
}
