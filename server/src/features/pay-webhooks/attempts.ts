// Delivery attempts (docs/webhooks.md): due rows are claimed with a lease (Postgres: FOR UPDATE SKIP LOCKED;
// SQLite: one writer), POSTed with the outbound client and the Sigil-* headers, signed with the webhook's secret
// as it is at attempt time, and finished only by the lease holder. 2xx = delivered; anything else retries on the
// spec's schedule, dead at the 6th failure; 50 consecutive dead letters auto-pause the webhook; at most 60
// attempts per webhook per minute (the excess waits for the next minute, it is not a failure).
// Throughput (docs/webhooks.md "Benchmarks"): the db work is per BATCH, not per delivery — one claim, one joined
// read, one budget statement per webhook of the batch, and one finishing statement for every delivered attempt
// that completed in the same event-loop turn.
import { sql, type Kysely } from 'kysely';
import { WEBHOOK_HEADERS } from '@sigil/contract/http-headers';
import { trimToLimit, type PayEvent } from '@sigil/contract/pay-events';
import {
  afterFailedAttempt,
  AUTO_PAUSED_PREFIX,
  DELIVERY_ID_PREFIX,
  WEBHOOK_LIMITS,
  type DeliveryErrorClass,
} from '@sigil/contract/webhooks';
import {
  affectedRows,
  dialectOf,
  withoutFsync,
  type Database,
  type WebhookDeliveriesTable,
} from '../../platform/db/index';
import { OutboundError, type OutboundClient } from '../../platform/outbound/client';
import { signatureHeaders } from '../../platform/outbound/signing';
import { prefixedId } from '../../platform/ids';

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

/** A new delivery row of one event to one webhook, queued now (the indexer's fan-out and test events). */
export function newDeliveryRow(
  webhookId: string,
  event: { id: string; type: string },
  test: boolean,
  now: number,
): WebhookDeliveriesTable {
  return {
    id: prefixedId(DELIVERY_ID_PREFIX, now),
    webhook_id: webhookId,
    event_id: event.id,
    event_type: event.type,
    test: test ? 1 : 0,
    created_at: now,
    ...queuedDeliveryState(now),
  };
}

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

/** A claimed delivery ready to be sent now: the exact body and signed headers. */
export interface ReadyAttempt {
  claim: ClaimedDelivery;
  url: string;
  body: string;
  headers: Record<string, string>;
}

const DEFAULT_LEASE_MS = 60_000;
const MINUTE = 60_000;

/** Claims up to `limit` due deliveries of active webhooks for `holder`: one statement, so no two holders share a row. */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  holder: string,
  limit: number,
  now: number,
  leaseMs = DEFAULT_LEASE_MS,
): Promise<ClaimedDelivery[]> {
  const due = sql`d.status = 'pending' and d.next_attempt_at <= ${now} and (d.lease_expires_at is null or d.lease_expires_at <= ${now})
    and s.status = 'active'`;
  const postgres = dialectOf(db) === 'postgres';
  const lock = postgres ? sql`for update of d skip locked` : sql``;
  // Postgres: the rows are re-checked after the lock. SQLite: one statement under the one write lock, nothing can
  // change in between; a re-check there would make the planner walk every pending row through the status index
  // instead of looking the claimed ids up by primary key (measured: 2.4 ms per claim with 2000 pending rows).
  const recheck = postgres
    ? sql`and status = 'pending' and (lease_expires_at is null or lease_expires_at <= ${now})`
    : sql``;
  // Ordered by due time only: a tie-break on id would sort every due row (no index has it) on each claim.
  const result = await sql<{ id: string; webhook_id: string; event_id: string; event_type: string; attempts: number }>`
    update webhook_deliveries set lease_holder = ${holder}, lease_expires_at = ${now + leaseMs}
    where id in (
      select d.id from webhook_deliveries d join webhook_subscriptions s on s.id = d.webhook_id
      where ${due} order by d.next_attempt_at limit ${limit} ${lock}
    )
    ${recheck}
    returning id, webhook_id, event_id, event_type, attempts`.execute(db);
  return result.rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    eventType: r.event_type,
    attempts: Number(r.attempts),
  }));
}

/**
 * Takes up to `count` slots of the webhook's per-minute budget; returns how many it got. Atomic conditional UPDATEs
 * on the subscription row, shared by every replica: all `count` at once (the usual case, one statement), else one
 * at a time until the minute is spent (the minute a webhook reaches its budget).
 */
async function takeRateSlots(db: Kysely<Database>, webhookId: string, count: number, now: number): Promise<number> {
  const window = now - (now % MINUTE);
  const take = async (n: number) =>
    Number(
      (
        await sql`
      update webhook_subscriptions
      set rate_count = case when rate_window_start = ${window} then rate_count + ${n} else ${n} end, rate_window_start = ${window}
      where id = ${webhookId} and (case when rate_window_start = ${window} then rate_count else 0 end) + ${n} <= ${WEBHOOK_LIMITS.deliveriesPerMinute}`.execute(
          db,
        )
      ).numAffectedRows ?? 0n,
    ) === 1;
  if (count > 1 && (await take(count))) return count;
  let granted = 0;
  while (granted < count && (await take(1))) granted++;
  return granted;
}

/** Gives claims back (no attempt made), due at `at` (null: unchanged). */
async function release(
  db: Kysely<Database>,
  claims: ClaimedDelivery[],
  holder: string,
  at: number | null,
): Promise<void> {
  if (claims.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_holder: null, lease_expires_at: null, ...(at === null ? {} : { next_attempt_at: at }) })
    .where(
      'id',
      'in',
      claims.map((c) => c.id),
    )
    .where('lease_holder', '=', holder)
    .execute();
}

/** The secrets that sign an attempt at `nowMs`: the current one, and the previous one during a rotation overlap. */
export function liveSecrets(
  row: { secret: string; previous_secret: string | null; previous_secret_until: number | null },
  nowMs: number,
): string[] {
  return row.previous_secret !== null && row.previous_secret_until !== null && nowMs < row.previous_secret_until
    ? [row.secret, row.previous_secret]
    : [row.secret];
}

function signedHeaders(
  body: string,
  event: { id: string; type: string },
  ids: { deliveryId: string; webhookId: string },
  secrets: readonly string[],
  nowMs: number,
) {
  const t = Math.floor(nowMs / 1000);
  // webhook-id is the event id: the same for every attempt and every webhook, what Standard Webhooks receivers
  // dedupe on (as Sigil-Event-Id is).
  const { 'Sigil-Signature': sigil, ...standard } = signatureHeaders(secrets, event.id, t, body);
  return {
    'content-type': 'application/json',
    [WEBHOOK_HEADERS.signature]: sigil!,
    [WEBHOOK_HEADERS.eventId]: event.id,
    [WEBHOOK_HEADERS.eventType]: event.type,
    [WEBHOOK_HEADERS.deliveryId]: ids.deliveryId,
    [WEBHOOK_HEADERS.subscriptionId]: ids.webhookId,
    ...standard,
  };
}

/** The request body and headers of one attempt (exported for tests, the bench and the docs). */
export function buildDeliveryRequest(
  payload: PayEvent,
  ids: { deliveryId: string; webhookId: string },
  secret: string | readonly string[],
  nowMs: number,
) {
  const { body } = trimToLimit(payload);
  return { body, headers: signedHeaders(body, payload, ids, typeof secret === 'string' ? [secret] : secret, nowMs) };
}

/**
 * The body of a stored payload (pay_events.payload, written as JSON.stringify of the event). Within 64 KiB the
 * stored text IS the body: no parse and re-serialization per attempt. Over it, trimToLimit drops memo and
 * references and sets `truncated: true`.
 */
export function deliveryBody(storedPayload: string, stream: 'pay' | 'identity' = 'pay'): string {
  // Identity payloads are bounded far below 64 KiB (names ≤ 32 bytes, record values ≤ 512): sent as stored, so
  // every delivery is byte-identical to the log.
  if (stream === 'identity') return storedPayload;
  // A UTF-16 unit is at most 3 UTF-8 bytes: most bodies are judged without counting.
  if (
    storedPayload.length * 3 <= WEBHOOK_LIMITS.maxBodyBytes ||
    Buffer.byteLength(storedPayload, 'utf8') <= WEBHOOK_LIMITS.maxBodyBytes
  ) {
    return storedPayload;
  }
  return trimToLimit(JSON.parse(storedPayload) as PayEvent).body;
}

/**
 * Claims up to `limit` due deliveries and readies them to be sent NOW (the caller starts every returned attempt at
 * once: the webhook's url, status and secret are read in this call, so a rotation applies from the next attempt).
 * Claims of a webhook that is no longer active are released ('skipped'); those over the per-minute budget are
 * released due at the next minute ('deferred'). Three statements for the whole batch plus one per webhook in it.
 */
export async function claimReadyAttempts(
  db: Kysely<Database>,
  deps: DeliveryDeps,
  limit: number,
): Promise<{ ready: ReadyAttempt[]; settled: AttemptOutcome[] }> {
  const now = deps.now?.() ?? Date.now();
  const inactive: ClaimedDelivery[] = [];
  const overBudget: ClaimedDelivery[] = [];
  const granted: ClaimedDelivery[] = [];
  const byId = new Map<
    string,
    {
      url: string;
      secret: string;
      previous_secret: string | null;
      previous_secret_until: number | null;
      status: string;
      stream: 'pay' | 'identity';
      type: string | null;
      payload: string | null;
      identity_type: string | null;
      identity_payload: string | null;
    }
  >();
  // SQLite: the claim and the budget counters commit without fsync. A power cut may forget a claim (the row is
  // due again: at most a duplicate, which at-least-once allows) or the last moment's counts (docs/data.md).
  await withoutFsync(db, async (conn) => {
    const claims = await claimDueDeliveries(conn, deps.holder, limit, now, deps.leaseMs);
    if (claims.length === 0) return;
    // One read for the batch: each webhook as it is now (url, secrets, status) and each event's stored payload, from
    // the table of the webhook's stream (one engine for both streams).
    const rows = await conn
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_subscriptions as s', 's.id', 'd.webhook_id')
      .leftJoin('pay_events as e', 'e.id', 'd.event_id')
      .leftJoin('identity_events as ie', 'ie.id', 'd.event_id')
      .select([
        'd.id',
        's.url',
        's.secret',
        's.previous_secret',
        's.previous_secret_until',
        's.status',
        's.stream',
        'e.type',
        'e.payload',
        'ie.type as identity_type',
        'ie.payload as identity_payload',
      ])
      .where(
        'd.id',
        'in',
        claims.map((c) => c.id),
      )
      .execute();
    for (const r of rows) byId.set(r.id, r);
    const perWebhook = new Map<string, ClaimedDelivery[]>();
    for (const claim of claims) {
      if (byId.get(claim.id)?.status !== 'active') inactive.push(claim);
      else perWebhook.set(claim.webhookId, [...(perWebhook.get(claim.webhookId) ?? []), claim]);
    }
    for (const [webhookId, group] of perWebhook) {
      const slots = await takeRateSlots(conn, webhookId, group.length, now);
      granted.push(...group.slice(0, slots));
      overBudget.push(...group.slice(slots));
    }
  });
  await release(db, inactive, deps.holder, null);
  await release(db, overBudget, deps.holder, now - (now % MINUTE) + MINUTE);

  const ready = granted.map((claim): ReadyAttempt => {
    const row = byId.get(claim.id)!;
    const identity = row.stream === 'identity';
    const body = deliveryBody((identity ? row.identity_payload : row.payload)!, row.stream);
    const headers = signedHeaders(
      body,
      { id: claim.eventId, type: (identity ? row.identity_type : row.type)! },
      { deliveryId: claim.id, webhookId: claim.webhookId },
      liveSecrets(row, now),
      now,
    );
    return { claim, url: row.url, body, headers };
  });
  return { ready, settled: [...inactive.map(() => 'skipped' as const), ...overBudget.map(() => 'deferred' as const)] };
}

interface DeliveredRow {
  claim: ClaimedDelivery;
  status: number;
  ms: number;
  at: number;
  done: (won: boolean) => void;
  fail: (err: unknown) => void;
}

/** Rows per finishing statement (5 parameters each; well under SQLite's and Postgres' parameter limits). */
const FINISH_BATCH = 100;

/**
 * Finishes delivered attempts in batches: every 2xx that completes in one event-loop turn is written by ONE
 * UPDATE … FROM (VALUES …) RETURNING (both dialects), still only where we hold the lease. SQLite: without fsync —
 * a power cut may forget it; the row is then still claimed, its lease expires and the event is delivered again, a
 * duplicate that at-least-once delivery allows (receivers dedupe by event id).
 */
export function createDeliveredFinisher(
  db: Kysely<Database>,
  holder: string,
): (claim: ClaimedDelivery, status: number, ms: number, at: number) => Promise<boolean> {
  let pending: DeliveredRow[] = [];
  const flush = async () => {
    const rows = pending;
    pending = [];
    for (let i = 0; i < rows.length; i += FINISH_BATCH) {
      const chunk = rows.slice(i, i + FINISH_BATCH);
      try {
        const values = sql.join(
          chunk.map(
            (r) =>
              sql`(cast(${r.claim.id} as text), cast(${r.claim.attempts + 1} as integer), cast(${r.status} as integer), cast(${r.ms} as integer), cast(${r.at} as bigint))`,
          ),
        );
        const won = await withoutFsync(db, (conn) =>
          sql<{ id: string }>`
          update webhook_deliveries
          set status = 'delivered', attempts = v.column2, last_status = v.column3, response_ms = v.column4, delivered_at = v.column5,
            last_error = null, next_attempt_at = null, lease_holder = null, lease_expires_at = null
          from (values ${values}) as v
          where webhook_deliveries.id = v.column1 and webhook_deliveries.lease_holder = ${holder}
          returning webhook_deliveries.id`.execute(conn),
        );
        const wonIds = new Set(won.rows.map((r) => r.id));
        const webhooks = [...new Set(chunk.filter((r) => wonIds.has(r.claim.id)).map((r) => r.claim.webhookId))];
        // A delivery resets the webhook's dead-letter streak (writes nothing, so costs no commit, when it is 0).
        if (webhooks.length > 0) {
          await db
            .updateTable('webhook_subscriptions')
            .set({ consecutive_dead: 0 })
            .where('id', 'in', webhooks)
            .where('consecutive_dead', '>', 0)
            .execute();
        }
        for (const r of chunk) r.done(wonIds.has(r.claim.id));
      } catch (err) {
        for (const r of chunk) r.fail(err);
      }
    }
  };
  return (claim, status, ms, at) =>
    new Promise<boolean>((done, fail) => {
      if (pending.length === 0) setImmediate(() => void flush());
      pending.push({ claim, status, ms, at, done, fail });
    });
}

/**
 * Sends one ready attempt and finishes it under the lease: delivered rows through `finishDelivered` (batched),
 * failures one by one (retry on the spec's schedule, dead at the 6th, auto-pause after 50 dead in a row).
 */
export async function sendAttempt(
  db: Kysely<Database>,
  deps: DeliveryDeps,
  attempt: ReadyAttempt,
  finishDelivered: ReturnType<typeof createDeliveredFinisher>,
): Promise<AttemptOutcome> {
  const { claim } = attempt;
  let status: number | null = null;
  let error: DeliveryErrorClass | null = null;
  let ms: number;
  try {
    const answer = await deps.client.post(attempt.url, attempt.body, attempt.headers);
    status = answer.status;
    ms = answer.ms;
    if (status < 200 || status > 299) error = 'http_status';
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    error = (
      err.kind === 'not_json' || err.kind === 'body_too_large' || err.kind === 'invalid_json' ? 'http_status' : err.kind
    ) as DeliveryErrorClass;
    ms = Math.round(err.ms);
  }
  const finished = deps.now?.() ?? Date.now();
  if (error === null) return (await finishDelivered(claim, status!, Math.round(ms), finished)) ? 'delivered' : 'lost';

  const attempts = claim.attempts + 1;
  const update = (conn: Kysely<Database> = db) => conn.updateTable('webhook_deliveries');
  // Only the lease holder may finish: if our lease ran out and another worker took the row, we lost it.
  const mine = (q: ReturnType<typeof update>) => q.where('id', '=', claim.id).where('lease_holder', '=', deps.holder);
  const common = {
    attempts,
    last_status: status,
    response_ms: Math.round(ms),
    lease_holder: null,
    lease_expires_at: null,
  };
  const next = afterFailedAttempt(attempts, deps.rand);
  if (!next.dead) {
    const won = affectedRows(
      await withoutFsync(db, (conn) =>
        mine(
          update(conn).set({ ...common, last_error: error, next_attempt_at: finished + next.delayMs }),
        ).executeTakeFirst(),
      ),
    );
    return won === 1 ? 'retry' : 'lost';
  }
  const won = affectedRows(
    await mine(
      update().set({ ...common, status: 'dead', last_error: error, next_attempt_at: null }),
    ).executeTakeFirst(),
  );
  if (won !== 1) return 'lost';
  await db
    .updateTable('webhook_subscriptions')
    .set((eb) => ({ consecutive_dead: eb('consecutive_dead', '+', 1) }))
    .where('id', '=', claim.webhookId)
    .execute();
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
