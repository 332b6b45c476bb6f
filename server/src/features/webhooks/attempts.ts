// Delivery attempts (docs/webhooks.md): due rows are claimed with a lease, POSTed with the outbound client and the
// Sigil-* headers, signed with the webhook's secret as it is at attempt time, and finished only by the lease
// holder. 2xx = delivered; anything else retries on the spec's schedule, dead at the 6th failure; 50 consecutive
// dead letters auto-pause the webhook; at most 60 attempts per webhook per minute (the excess waits for the next
// minute, it is not a failure). The bodies come from the stream the webhook belongs to (stream.ts).
// Throughput (docs/webhooks.md "Benchmarks"): the db work is per BATCH, not per delivery — one claim that also reads
// the claimed rows' webhooks, one budget statement for the batch's webhooks, one read of its events per stream, and
// one finishing statement (Postgres; on SQLite, prepared statements run natively in one group-committed write) for
// each batch of delivered attempts.
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
  withoutFsyncTogether,
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
  deleteDeliveriesOfEvents,
  finishFailedWithAttempt,
  queuedDeliveryState,
  recordDelivered,
  releaseClaims,
  takeRateSlots,
  type ClaimedDelivery,
  type DeliveredAttempt,
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
 * Takes slots of the per-minute budgets for each webhook's group of claims; answers how many of each group it got:
 * every group's whole count in one statement (the usual case), then, for a webhook that could not have them all
 * (the minute it reaches its budget), one at a time until its minute is spent.
 */
async function grantRateSlots(
  db: Kysely<Database>,
  counts: Map<string, number>,
  now: number,
): Promise<Map<string, number>> {
  const budget = { window: now - (now % MINUTE), max: WEBHOOK_LIMITS.deliveriesPerMinute };
  const whole = await takeRateSlots(
    db,
    [...counts].map(([webhookId, n]) => ({ webhookId, n })),
    budget,
  );
  const granted = new Map<string, number>();
  for (const [webhookId, count] of counts) {
    let n = whole.has(webhookId) ? count : 0;
    while (n < count && count > 1 && (await takeRateSlots(db, [{ webhookId, n: 1 }], budget)).size === 1) n++;
    granted.set(webhookId, n);
  }
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
): Promise<Map<string, StoredEvent>> {
  const events = new Map<string, StoredEvent>();
  for (const stream of streams) {
    const ids = [...new Set(claims.filter((c) => c.target.stream === stream.name).map((c) => c.eventId))];
    if (ids.length === 0) continue;
    for (const [id, event] of await stream.loadEvents(db, ids)) events.set(id, event);
  }
  return events;
}

/**
 * The claims whose event is not among `events`, after deleting every delivery of those events. On Postgres the claim
 * and the read of the bodies commit apart: a retention prune committing in between takes claimed events away.
 * Nothing is sent for those, and their events' deliveries go as the prune's do: a row the prune missed (written
 * while it ran) could never be sent, and kept it would stay pending for good (the claim does not read the events,
 * so it would take it again at every lease expiry).
 */
async function removeEventless(
  db: Kysely<Database>,
  claims: ClaimedDelivery[],
  events: Map<string, StoredEvent>,
): Promise<ClaimedDelivery[]> {
  const gone = claims.filter((claim) => !events.has(claim.eventId));
  await deleteDeliveriesOfEvents(
    db,
    gone.map((claim) => claim.eventId),
  );
  return gone;
}

/**
 * Claims up to `limit` due deliveries and readies them to be sent NOW (the caller starts every returned attempt at
 * once: the webhook's url, status and secret are read by the claim, so a rotation applies from the next attempt).
 * Claims of a webhook that is no longer active are released ('skipped'); those over the per-minute budget are
 * released due at the next minute ('deferred'); those whose event is gone by the time the bodies are read are
 * 'skipped' and deleted. `claimed`: how many rows the claim took (fewer than `limit`: nothing more is due now).
 */
export async function claimReadyAttempts(
  db: Kysely<Database>,
  deps: DeliveryDeps,
  limit: number,
): Promise<{ ready: ReadyAttempt[]; settled: AttemptOutcome[]; claimed: number }> {
  const now = deps.now?.() ?? Date.now();
  const inactive: ClaimedDelivery[] = [];
  const overBudget: ClaimedDelivery[] = [];
  const granted: ClaimedDelivery[] = [];
  let claimed = 0;
  let events = new Map<string, StoredEvent>();
  let gone: ClaimedDelivery[] = [];
  // SQLite: the claim, the budget counters and the removal of claims without an event commit without fsync. A power
  // cut may forget a claim (the row is due again: at most a duplicate, which at-least-once allows), the last
  // moment's counts (docs/data.md) or a removal (the row is claimed, found without its event and removed again).
  await withoutFsync(db, async (conn) => {
    const claims = await claimDueDeliveries(conn, {
      holder: deps.holder,
      limit,
      now,
      leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
      streams: deps.streams.map((s) => s.name),
    });
    claimed = claims.length;
    if (claims.length === 0) return;
    const perWebhook = new Map<string, ClaimedDelivery[]>();
    for (const claim of claims) {
      if (claim.target.status !== 'active') inactive.push(claim);
      else perWebhook.set(claim.webhookId, [...(perWebhook.get(claim.webhookId) ?? []), claim]);
    }
    const slots = await grantRateSlots(conn, new Map([...perWebhook].map(([id, group]) => [id, group.length])), now);
    for (const [webhookId, group] of perWebhook) {
      granted.push(...group.slice(0, slots.get(webhookId)));
      overBudget.push(...group.slice(slots.get(webhookId)));
    }
    events = await loadBatchEvents(conn, deps.streams, granted);
    gone = await removeEventless(conn, granted, events);
  });
  const ids = (claims: ClaimedDelivery[]) => claims.map((c) => c.id);
  await releaseClaims(db, ids(inactive), deps.holder, null);
  await releaseClaims(db, ids(overBudget), deps.holder, now - (now % MINUTE) + MINUTE);
  const sendable = granted.filter((claim) => events.has(claim.eventId));

  const ready = sendable.map((claim): ReadyAttempt => {
    const event = events.get(claim.eventId)!;
    const headers = signedHeaders(
      event.body,
      { id: claim.eventId, type: event.type },
      { deliveryId: claim.id, webhookId: claim.webhookId },
      liveSecrets(claim.target, now),
      now,
    );
    return { claim, at: now, url: claim.target.url, body: event.body, headers };
  });
  return {
    ready,
    settled: [
      ...inactive.map(() => 'skipped' as const),
      ...overBudget.map(() => 'deferred' as const),
      ...gone.map(() => 'skipped' as const),
    ],
    claimed,
  };
}

interface PendingDelivered extends DeliveredAttempt {
  done: (won: boolean) => void;
  fail: (err: unknown) => void;
}

/** Rows per finishing statement (8 parameters each; well under SQLite's and Postgres' parameter limits). */
const FINISH_BATCH = 100;

/**
 * Finishes delivered attempts in batches: the 2xx that complete in one event-loop turn, and those that complete while
 * the previous batch is being written (one batch at a time, so batches grow with the database's latency), are
 * recorded by ONE statement on Postgres (on SQLite: prepared statements run natively in one group-committed write),
 * still only where we hold the lease.
 * SQLite: without fsync — a power cut may forget it; the row is then still claimed, its lease expires and the event
 * is delivered again, a duplicate that at-least-once delivery allows (receivers dedupe by event id).
 * `recording(n)` is told, in the same turn as each batch's write is requested, how many attempts it records, and
 * with −n once it is settled: the worker claims for those slots at once, so that on SQLite the next claim joins the
 * same group commit as the recording instead of a commit of its own after it.
 */
export function createDeliveredFinisher(
  db: Kysely<Database>,
  holder: string,
  recording?: (change: number) => void,
): (attempt: WebhookAttemptsTable, at: number) => Promise<boolean> {
  let pending: PendingDelivered[] = [];
  let flushing = false;
  const flush = async () => {
    if (flushing) return; // the flush under way takes the rows that came meanwhile next
    flushing = true;
    const rows = pending;
    pending = [];
    for (let i = 0; i < rows.length; i += FINISH_BATCH) {
      const chunk = rows.slice(i, i + FINISH_BATCH);
      // Requested before `recording` is told (the claim it prompts then joins the same group commit); an async
      // wrapper so that even a synchronous throw settles this chunk instead of leaving the finisher stuck.
      const written = (async () => recordDelivered(db, holder, chunk))();
      recording?.(chunk.length);
      try {
        const won = await written;
        for (const r of chunk) r.done(won.has(r.attempt.delivery_id));
      } catch (err) {
        for (const r of chunk) r.fail(err);
      } finally {
        recording?.(-chunk.length);
      }
    }
    flushing = false;
    if (pending.length > 0) void flush();
  };
  return (attempt, at) =>
    new Promise<boolean>((done, fail) => {
      if (pending.length === 0 && !flushing) setImmediate(() => void flush());
      pending.push({ attempt, at, done, fail });
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

/** What one POST of an attempt came to: the HTTP status (if any), the error class (null on 2xx), how long, when. */
export interface PostOutcome {
  status: number | null;
  error: DeliveryErrorClass | null;
  ms: number;
  /** When it ended (epoch ms). */
  endedAt: number;
}

/** POSTs the attempt (nothing is written: `finishAttempt` records what came of it). */
export async function postAttempt(deps: DeliveryDeps, attempt: ReadyAttempt): Promise<PostOutcome> {
  const ended = (outcome: Omit<PostOutcome, 'endedAt'>) => ({ ...outcome, endedAt: deps.now?.() ?? Date.now() });
  try {
    const answer = await deps.client.post(attempt.url, attempt.body, attempt.headers);
    const ok = answer.status >= 200 && answer.status <= 299;
    return ended({ status: answer.status, error: ok ? null : 'http_status', ms: Math.round(answer.ms) });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    const error = (
      err.kind === 'not_json' || err.kind === 'body_too_large' || err.kind === 'invalid_json' ? 'http_status' : err.kind
    ) as DeliveryErrorClass;
    return ended({ status: null, error, ms: Math.round(err.ms) });
  }
}

/**
 * Records what came of a posted attempt, under the lease: delivered rows through `finishDelivered` (batched),
 * failures one by one (retry on the spec's schedule, dead at the 6th, auto-pause after 50 dead in a row).
 */
export async function finishAttempt(
  db: Kysely<Database>,
  deps: DeliveryDeps,
  attempt: ReadyAttempt,
  posted: PostOutcome,
  finishDeliveredAttempt: ReturnType<typeof createDeliveredFinisher>,
): Promise<AttemptOutcome> {
  const { claim } = attempt;
  const { status, error, ms, endedAt: finished } = posted;
  const attempts = claim.attempts + 1;
  const record = attemptRow(attempt, attempts, { status, error, ms });
  if (error === null) return (await finishDeliveredAttempt(record, finished)) ? 'delivered' : 'lost';

  const failed = { attempts, last_status: status, response_ms: ms, last_error: error };
  const next = afterFailedAttempt(attempts, deps.rand);
  // Only the lease holder may finish: if our lease ran out and another worker took the row, we lost it. The outcome
  // and its attempt row commit together: a crash between them would leave the attempt out of the history.
  if (!next.dead) {
    const won = await withoutFsyncTogether(db, (conn) =>
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
