// Delivery attempts (docs/webhooks.md): due rows are claimed with a lease, POSTed with the outbound client and the
// Sigil-* headers, signed with the webhook's secret as it is at attempt time, and finished only by the lease
// holder. 2xx = delivered; anything else retries on the spec's schedule, dead at the 6th failure; 50 consecutive
// dead letters auto-pause the webhook; at most 60 attempts per webhook per minute (the excess waits for the next
// minute, it is not a failure). The bodies come from the stream the webhook belongs to (stream.ts).
// Throughput (docs/webhooks.md "Benchmarks"): the db work is per BATCH, not per delivery — one claim, one read of
// the batch's webhooks, one read of its events per stream, one budget statement per webhook of the batch, and one
// finishing statement for every delivered attempt that completed in the same event-loop turn.
import type { Kysely } from 'kysely';
import { WEBHOOK_HEADERS } from '@sigil/contract/http-headers';
import {
  afterFailedAttempt,
  AUTO_PAUSED_PREFIX,
  DELIVERY_ID_PREFIX,
  WEBHOOK_LIMITS,
  type DeliveryErrorClass,
} from '@sigil/contract/webhooks';
import {
  withoutFsync,
  type Database,
  type WebhookAttemptsTable,
  type WebhookDeliveriesTable,
} from '../../platform/db/index';
import { OutboundError, type OutboundClient } from '../../platform/outbound/client';
import { signatureHeaders } from '../../platform/outbound/signing';
import { prefixedId } from '../../platform/ids';
import {
  claimDueDeliveries,
  countDeadLetter,
  finishDelivered,
  finishFailedWithAttempt,
  insertAttempts,
  queuedDeliveryState,
  releaseClaims,
  resetDeadStreaks,
  selectClaimTargets,
  takeRateSlots,
  type ClaimedDelivery,
} from './delivery-queries';
import type { StoredEvent, WebhookStream } from './stream';

/** A new delivery row of one event to one webhook, queued now (a stream's fan-out and test events). */
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
  /** The streams whose deliveries this worker sends (the ones the deployment turned on). */
  streams: readonly WebhookStream[];
  now?: () => number;
  /** [0, 1) like Math.random: the retry jitter. */
  rand?: () => number;
  /** How long a claim is ours; must exceed the response timeout. Default 60 s. */
  leaseMs?: number;
}

export type AttemptOutcome = 'delivered' | 'retry' | 'dead' | 'deferred' | 'skipped' | 'lost';

/** A claimed delivery ready to be sent now: the exact body and signed headers. */
export interface ReadyAttempt {
  claim: ClaimedDelivery;
  /** When it is sent (epoch ms): the signatures' timestamp. */
  at: number;
  url: string;
  body: string;
  headers: Record<string, string>;
}

const DEFAULT_LEASE_MS = 60_000;
const ATTEMPT_ID_PREFIX = 'whatt_';
const MINUTE = 60_000;

/**
 * Takes up to `count` slots of the webhook's per-minute budget; returns how many it got: all `count` at once (the
 * usual case, one statement), else one at a time until the minute is spent (the minute a webhook reaches its budget).
 */
async function grantRateSlots(db: Kysely<Database>, webhookId: string, count: number, now: number): Promise<number> {
  const budget = { window: now - (now % MINUTE), max: WEBHOOK_LIMITS.deliveriesPerMinute };
  if (count > 1 && (await takeRateSlots(db, webhookId, count, budget))) return count;
  let granted = 0;
  while (granted < count && (await takeRateSlots(db, webhookId, 1, budget))) granted++;
  return granted;
}

/** The secrets that sign an attempt at `nowMs`: the current one, and the previous one during a rotation overlap. */
function liveSecrets(
  row: { secret: string; previous_secret: string | null; previous_secret_until: number | null },
  nowMs: number,
): string[] {
  return row.previous_secret !== null && row.previous_secret_until !== null && nowMs < row.previous_secret_until
    ? [row.secret, row.previous_secret]
    : [row.secret];
}

/** The headers of one attempt: Sigil-* and Standard Webhooks, signed over `body` at `nowMs`. */
export function signedHeaders(
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

/** Each claimed event's stored body, read from its webhook's stream: one read per stream in the batch. */
async function loadBatchEvents(
  db: Kysely<Database>,
  streams: readonly WebhookStream[],
  claims: ClaimedDelivery[],
  streamOf: Map<string, string>,
): Promise<Map<string, StoredEvent>> {
  const events = new Map<string, StoredEvent>();
  for (const stream of streams) {
    const ids = [...new Set(claims.filter((c) => streamOf.get(c.id) === stream.name).map((c) => c.eventId))];
    if (ids.length === 0) continue;
    for (const [id, event] of await stream.loadEvents(db, ids)) events.set(id, event);
  }
  return events;
}

/**
 * Claims up to `limit` due deliveries and readies them to be sent NOW (the caller starts every returned attempt at
 * once: the webhook's url, status and secret are read in this call, so a rotation applies from the next attempt).
 * Claims of a webhook that is no longer active are released ('skipped'); those over the per-minute budget are
 * released due at the next minute ('deferred').
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
  const targets = new Map<string, Awaited<ReturnType<typeof selectClaimTargets>>[number]>();
  let events = new Map<string, StoredEvent>();
  // SQLite: the claim and the budget counters commit without fsync. A power cut may forget a claim (the row is
  // due again: at most a duplicate, which at-least-once allows) or the last moment's counts (docs/data.md).
  await withoutFsync(db, async (conn) => {
    const claims = await claimDueDeliveries(conn, {
      holder: deps.holder,
      limit,
      now,
      leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
      streams: deps.streams.map((s) => s.name),
    });
    if (claims.length === 0) return;
    for (const r of await selectClaimTargets(
      conn,
      claims.map((c) => c.id),
    ))
      targets.set(r.id, r);
    const perWebhook = new Map<string, ClaimedDelivery[]>();
    for (const claim of claims) {
      if (targets.get(claim.id)?.status !== 'active') inactive.push(claim);
      else perWebhook.set(claim.webhookId, [...(perWebhook.get(claim.webhookId) ?? []), claim]);
    }
    for (const [webhookId, group] of perWebhook) {
      const slots = await grantRateSlots(conn, webhookId, group.length, now);
      granted.push(...group.slice(0, slots));
      overBudget.push(...group.slice(slots));
    }
    const streamOf = new Map([...targets].map(([id, t]) => [id, t.stream]));
    events = await loadBatchEvents(conn, deps.streams, granted, streamOf);
  });
  const ids = (claims: ClaimedDelivery[]) => claims.map((c) => c.id);
  await releaseClaims(db, ids(inactive), deps.holder, null);
  await releaseClaims(db, ids(overBudget), deps.holder, now - (now % MINUTE) + MINUTE);

  const ready = granted.map((claim): ReadyAttempt => {
    const target = targets.get(claim.id)!;
    const event = events.get(claim.eventId)!;
    const headers = signedHeaders(
      event.body,
      { id: claim.eventId, type: event.type },
      { deliveryId: claim.id, webhookId: claim.webhookId },
      liveSecrets(target, now),
      now,
    );
    return { claim, at: now, url: target.url, body: event.body, headers };
  });
  return { ready, settled: [...inactive.map(() => 'skipped' as const), ...overBudget.map(() => 'deferred' as const)] };
}

interface DeliveredRow {
  claim: ClaimedDelivery;
  attempt: WebhookAttemptsTable;
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
 * statement, still only where we hold the lease. SQLite: without fsync — a power cut may forget it; the row is then
 * still claimed, its lease expires and the event is delivered again, a duplicate that at-least-once delivery allows
 * (receivers dedupe by event id).
 */
export function createDeliveredFinisher(
  db: Kysely<Database>,
  holder: string,
): (claim: ClaimedDelivery, attempt: WebhookAttemptsTable, at: number) => Promise<boolean> {
  let pending: DeliveredRow[] = [];
  const flush = async () => {
    const rows = pending;
    pending = [];
    for (let i = 0; i < rows.length; i += FINISH_BATCH) {
      const chunk = rows.slice(i, i + FINISH_BATCH);
      try {
        const delivered = chunk.map((r) => ({
          id: r.claim.id,
          attempts: r.claim.attempts + 1,
          status: r.status,
          ms: r.ms,
          at: r.at,
        }));
        const wonIds = await withoutFsync(db, async (conn) => {
          const won = await finishDelivered(conn, holder, delivered);
          await insertAttempts(
            conn,
            chunk.filter((r) => won.has(r.claim.id)).map((r) => r.attempt),
          );
          return won;
        });
        await resetDeadStreaks(db, [
          ...new Set(chunk.filter((r) => wonIds.has(r.claim.id)).map((r) => r.claim.webhookId)),
        ]);
        for (const r of chunk) r.done(wonIds.has(r.claim.id));
      } catch (err) {
        for (const r of chunk) r.fail(err);
      }
    }
  };
  return (claim, attempt, at) =>
    new Promise<boolean>((done, fail) => {
      if (pending.length === 0) setImmediate(() => void flush());
      pending.push({ claim, attempt, status: attempt.status!, ms: attempt.duration_ms, at, done, fail });
    });
}

/** The attempt as the delivery detail shows it: when, the outcome, how long, the headers sent. */
function attemptRow(
  attempt: ReadyAttempt,
  n: number,
  outcome: { status: number | null; error: DeliveryErrorClass | null; ms: number },
): WebhookAttemptsTable {
  return {
    id: prefixedId(ATTEMPT_ID_PREFIX, attempt.at),
    delivery_id: attempt.claim.id,
    attempt: n,
    attempted_at: attempt.at,
    status: outcome.status,
    error: outcome.error,
    duration_ms: Math.max(0, outcome.ms),
    headers: JSON.stringify(attempt.headers),
  };
}

/** POSTs the attempt; answers the HTTP status (if any), the error class (null on 2xx) and the time it took. */
async function post(
  client: OutboundClient,
  attempt: ReadyAttempt,
): Promise<{ status: number | null; error: DeliveryErrorClass | null; ms: number }> {
  try {
    const answer = await client.post(attempt.url, attempt.body, attempt.headers);
    const ok = answer.status >= 200 && answer.status <= 299;
    return { status: answer.status, error: ok ? null : 'http_status', ms: Math.round(answer.ms) };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    const error = (
      err.kind === 'not_json' || err.kind === 'body_too_large' || err.kind === 'invalid_json' ? 'http_status' : err.kind
    ) as DeliveryErrorClass;
    return { status: null, error, ms: Math.round(err.ms) };
  }
}

/**
 * Sends one ready attempt and finishes it under the lease: delivered rows through `finishDelivered` (batched),
 * failures one by one (retry on the spec's schedule, dead at the 6th, auto-pause after 50 dead in a row).
 */
export async function sendAttempt(
  db: Kysely<Database>,
  deps: DeliveryDeps,
  attempt: ReadyAttempt,
  finishDeliveredAttempt: ReturnType<typeof createDeliveredFinisher>,
): Promise<AttemptOutcome> {
  const { claim } = attempt;
  const { status, error, ms } = await post(deps.client, attempt);
  const finished = deps.now?.() ?? Date.now();
  const attempts = claim.attempts + 1;
  const record = attemptRow(attempt, attempts, { status, error, ms });
  if (error === null) return (await finishDeliveredAttempt(claim, record, finished)) ? 'delivered' : 'lost';

  const failed = { attempts, last_status: status, response_ms: ms, last_error: error };
  const next = afterFailedAttempt(attempts, deps.rand);
  // Only the lease holder may finish: if our lease ran out and another worker took the row, we lost it.
  if (!next.dead) {
    const won = await withoutFsync(db, (conn) =>
      finishFailedWithAttempt(
        conn,
        deps.holder,
        claim.id,
        { ...failed, next_attempt_at: finished + next.delayMs },
        record,
      ),
    );
    return won === 1 ? 'retry' : 'lost';
  }
  const won = await db
    .transaction()
    .execute((trx) =>
      finishFailedWithAttempt(trx, deps.holder, claim.id, { ...failed, status: 'dead', next_attempt_at: null }, record),
    );
  if (won !== 1) return 'lost';
  await countDeadLetter(db, claim.webhookId, {
    after: WEBHOOK_LIMITS.autoPauseAfterDead,
    reason: `${AUTO_PAUSED_PREFIX}${WEBHOOK_LIMITS.autoPauseAfterDead} consecutive deliveries dead-lettered`,
    now: finished,
  });
  return 'dead';
}
