// Delivery attempts (docs/webhooks.md): due rows are claimed with a lease (Postgres: FOR UPDATE SKIP LOCKED;
// SQLite: one writer), POSTed with the outbound client and the Sigil-* headers, signed with the webhook's secret
// as it is at attempt time, and finished only by the lease holder. 2xx = delivered; anything else retries on the
// spec's schedule, dead at the 6th failure; 50 consecutive dead letters auto-pause the webhook; at most 60
// attempts per webhook per minute (the excess waits for the next minute, it is not a failure).
import { sql, type Kysely } from 'kysely';
import { trimToLimit, type PayEvent } from '@sigil/contract/pay-events';
import { afterFailedAttempt, AUTO_PAUSED_PREFIX, WEBHOOK_HEADERS, WEBHOOK_LIMITS, type DeliveryErrorClass } from '@sigil/contract/webhooks';
import { affectedRows, dialectOf, withoutFsync, type Database } from '../../platform/db/index';
import { OutboundError, type OutboundClient } from '../../platform/outbound/client';
import { signWebhook } from '../../platform/outbound/signing';

export interface DeliveryDeps {
  client: OutboundClient;
  /** Unique per process (lease holder). */
  holder: string;
  now?: () => number;
  /** [0, 1) like Math.random: the retry jitter. */
  rand?: () => number;
  /** How long a claim is ours; must exceed the response timeout. Default 60 s. */
  leaseMs?: number;
}

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attempts: number;
}

export type AttemptOutcome = 'delivered' | 'retry' | 'dead' | 'deferred' | 'skipped' | 'lost';

const DEFAULT_LEASE_MS = 60_000;
const MINUTE = 60_000;

/** Claims up to `limit` due deliveries of active webhooks for `holder`: one statement, so no two holders share a row. */
export async function claimDueDeliveries(db: Kysely<Database>, holder: string, limit: number, now: number, leaseMs = DEFAULT_LEASE_MS): Promise<ClaimedDelivery[]> {
  const due = sql`d.status = 'pending' and d.next_attempt_at <= ${now} and (d.lease_expires_at is null or d.lease_expires_at <= ${now})
    and s.status = 'active'`;
  const lock = dialectOf(db) === 'postgres' ? sql`for update of d skip locked` : sql``;
  const result = await sql<{ id: string; webhook_id: string; event_id: string; event_type: string; attempts: number }>`
    update webhook_deliveries set lease_holder = ${holder}, lease_expires_at = ${now + leaseMs}
    where id in (
      select d.id from webhook_deliveries d join webhook_subscriptions s on s.id = d.webhook_id
      where ${due} order by d.next_attempt_at, d.id limit ${limit} ${lock}
    )
    and status = 'pending' and (lease_expires_at is null or lease_expires_at <= ${now})
    returning id, webhook_id, event_id, event_type, attempts`.execute(db);
  return result.rows.map((r) => ({ id: r.id, webhookId: r.webhook_id, eventId: r.event_id, eventType: r.event_type, attempts: Number(r.attempts) }));
}

/** Takes one slot of the webhook's per-minute budget (atomic, shared by every replica). */
async function takeRateSlot(db: Kysely<Database>, webhookId: string, now: number): Promise<boolean> {
  const window = now - (now % MINUTE);
  // A counter: on SQLite it commits without fsync (a power cut forgets the last moment's counts; docs/data.md).
  const result = await withoutFsync(db, (conn) => sql`
    update webhook_subscriptions
    set rate_count = case when rate_window_start = ${window} then rate_count + 1 else 1 end, rate_window_start = ${window}
    where id = ${webhookId} and (rate_window_start <> ${window} or rate_count < ${WEBHOOK_LIMITS.deliveriesPerMinute})`.execute(conn));
  return Number(result.numAffectedRows ?? 0n) === 1;
}

/** Gives the claim back (no attempt made), due at `at`. */
async function release(db: Kysely<Database>, claim: ClaimedDelivery, holder: string, at: number | null): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_holder: null, lease_expires_at: null, ...(at === null ? {} : { next_attempt_at: at }) })
    .where('id', '=', claim.id)
    .where('lease_holder', '=', holder)
    .execute();
}

/** The request body and headers of one attempt (exported for tests and the docs). */
export function buildDeliveryRequest(payload: PayEvent, ids: { deliveryId: string; webhookId: string }, secret: string, nowMs: number) {
  const { body } = trimToLimit(payload);
  const t = Math.floor(nowMs / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      [WEBHOOK_HEADERS.signature]: signWebhook(secret, t, body),
      [WEBHOOK_HEADERS.eventId]: payload.id,
      [WEBHOOK_HEADERS.eventType]: payload.type,
      [WEBHOOK_HEADERS.deliveryId]: ids.deliveryId,
      [WEBHOOK_HEADERS.subscriptionId]: ids.webhookId,
    },
  };
}

/** One attempt of a claimed delivery, finished under the lease. */
export async function attemptDelivery(db: Kysely<Database>, deps: DeliveryDeps, claim: ClaimedDelivery): Promise<AttemptOutcome> {
  const now = deps.now?.() ?? Date.now();
  // One read for the webhook (as it is now: url, secret, status) and the event payload.
  const sub = await db
    .selectFrom('webhook_subscriptions as s')
    .innerJoin('pay_events as e', (join) => join.on('e.id', '=', claim.eventId))
    .select(['s.url', 's.secret', 's.status', 'e.payload'])
    .where('s.id', '=', claim.webhookId)
    .executeTakeFirst();
  if (!sub || sub.status !== 'active') {
    await release(db, claim, deps.holder, null);
    return 'skipped';
  }
  if (!(await takeRateSlot(db, claim.webhookId, now))) {
    await release(db, claim, deps.holder, now - (now % MINUTE) + MINUTE);
    return 'deferred';
  }
  // The secret as it is now: a rotation applies to the next attempt, retries of older events included.
  const request = buildDeliveryRequest(JSON.parse(sub.payload) as PayEvent, { deliveryId: claim.id, webhookId: claim.webhookId }, sub.secret, now);

  let status: number | null = null;
  let error: DeliveryErrorClass | null = null;
  let ms: number;
  try {
    const answer = await deps.client.post(sub.url, request.body, request.headers);
    status = answer.status;
    ms = answer.ms;
    if (status < 200 || status > 299) error = 'http_status';
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    error = (err.kind === 'not_json' || err.kind === 'body_too_large' || err.kind === 'invalid_json' ? 'http_status' : err.kind) as DeliveryErrorClass;
    ms = Math.round(err.ms);
  }
  const finished = deps.now?.() ?? Date.now();
  const attempts = claim.attempts + 1;
  const update = (conn: Kysely<Database> = db) => conn.updateTable('webhook_deliveries');
  // Only the lease holder may finish: if our lease ran out and another worker took the row, we lost it.
  const mine = (q: ReturnType<typeof update>) => q.where('id', '=', claim.id).where('lease_holder', '=', deps.holder);
  const common = { attempts, last_status: status, response_ms: Math.round(ms), lease_holder: null, lease_expires_at: null };

  if (error === null) {
    // SQLite: committed without fsync. A power cut may forget it; the row is then still claimed, its lease expires and
    // the event is delivered again — a duplicate, which at-least-once delivery allows (receivers dedupe by event id).
    const won = affectedRows(await withoutFsync(db, (conn) => mine(update(conn).set({ ...common, status: 'delivered', last_error: null, next_attempt_at: null, delivered_at: finished })).executeTakeFirst()));
    if (won !== 1) return 'lost';
    await db.updateTable('webhook_subscriptions').set({ consecutive_dead: 0 }).where('id', '=', claim.webhookId).where('consecutive_dead', '>', 0).execute();
    return 'delivered';
  }
  const next = afterFailedAttempt(attempts, deps.rand);
  if (!next.dead) {
    const won = affectedRows(await withoutFsync(db, (conn) => mine(update(conn).set({ ...common, last_error: error, next_attempt_at: finished + next.delayMs })).executeTakeFirst()));
    return won === 1 ? 'retry' : 'lost';
  }
  const won = affectedRows(await mine(update().set({ ...common, status: 'dead', last_error: error, next_attempt_at: null })).executeTakeFirst());
  if (won !== 1) return 'lost';
  await db.updateTable('webhook_subscriptions').set((eb) => ({ consecutive_dead: eb('consecutive_dead', '+', 1) })).where('id', '=', claim.webhookId).execute();
  await db
    .updateTable('webhook_subscriptions')
    .set({
      status: 'paused',
      paused_reason: `${AUTO_PAUSED_PREFIX}${WEBHOOK_LIMITS.autoPauseAfterDead} consecutive deliveries dead-lettered`,
      updated_at: finished,
    })
    .where('id', '=', claim.webhookId)
    .where('status', '=', 'active')
    .where('consecutive_dead', '>=', WEBHOOK_LIMITS.autoPauseAfterDead)
    .execute();
  return 'dead';
}
