// Subscriptions of any stream: creation helpers (URL vetting, the secret, the starting row, the per-account cap)
// and the management verbs every stream's routes share (list, get, deliveries, rotate, resume, delete, redeliver,
// recover, test event). Each verb takes the db and the stream first; the stream only scopes the rows and shapes
// them (stream.ts). Errors are ApiError with the spec's codes.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import {
  AUTO_PAUSED_PREFIX,
  DeliveryListQuerySchema,
  DeliveryRecordSchema,
  WEBHOOK_ID_PREFIX,
  WEBHOOK_LIMITS,
  WEBHOOK_SECRET_PREFIX,
  type DeliveryErrorClass,
  type DeliveryRecord,
} from '@sigil/contract/webhooks';
import {
  DISABLED_PREFIX,
  DISABLED_REASON,
  webhookState,
  type DeliveryAttempt,
  type DeliveryDetail,
  type DeliveryPageQuery,
} from '@sigil/contract/owner-webhooks';
import type { Database } from '../../platform/db/index';
import { storedAnswer, StoredJson } from '../../platform/stored-json';
import { vetDestination, type Resolver } from '../../platform/outbound/destination-policy';
import { prefixedId } from '../../platform/ids';
import { newDeliveryRow } from './attempts';
import {
  insertDeliveries,
  requeueFinished,
  requeueWindow,
  selectAttemptPage,
  selectDeliveries,
  selectDelivery,
  selectDeliveryPage,
  type DeliveryPosition,
  type DeliveryRow,
} from './delivery-queries';
import { toDeliveryRecord } from './records';
import type { WebhookStream } from './stream';
import {
  countSubscriptions,
  deleteSubscription,
  insertSubscriptionCounted,
  pauseSubscriptionFor,
  resumePausedSubscription,
  rotateSubscriptionSecret,
  selectOwnedSubscription,
  selectStreamSubscriptions,
  updateSubscription,
  type SubscriptionChange,
  type SubscriptionRow,
} from './subscription-queries';

/** Who is calling: the API key and the account it belongs to (a webhook belongs to the account). */
export interface WebhookCaller {
  keyId: string;
  account: string;
}

/**
 * `whsec_` + base64 of 24 random bytes (32 characters, no padding): the Standard Webhooks secret format, so the
 * stock libraries take it as is; Sigil-Signature keys its HMAC with the whole string.
 */
export const newWebhookSecret = () => WEBHOOK_SECRET_PREFIX + randomBytes(24).toString('base64');

export const limitReached = () =>
  new ApiError('LIMIT_REACHED', `an account may hold at most ${WEBHOOK_LIMITS.perAccount} webhooks; delete one first`);

/** LIMIT_REACHED when the account's webhooks of `stream` already fill the cap (25 per stream). */
export async function checkRoomFor(db: Kysely<Database>, account: string, stream: string): Promise<void> {
  if ((await countSubscriptions(db, account, stream)) >= WEBHOOK_LIMITS.perAccount) throw limitReached();
}

/**
 * A webhook's destination as the outbound destination policy normalizes it (either stream): INVALID_URL when it is
 * no URL or too long once normalized, URL_REJECTED when the policy refuses where it points.
 */
export async function vetWebhookUrl(
  url: string,
  deps: { resolver?: Resolver | undefined; allowLoopback?: boolean | undefined },
): Promise<string> {
  const verdict = await vetDestination(url, deps.resolver, { allowLoopback: deps.allowLoopback });
  if (!verdict.ok) {
    if (verdict.reason === 'invalid_url') throw new ApiError('INVALID_URL', `url: ${verdict.message}`);
    throw new ApiError('URL_REJECTED', `url: ${verdict.message}`);
  }
  const href = verdict.url.href;
  if (href.length > WEBHOOK_LIMITS.maxUrlLength) throw new ApiError('INVALID_URL', 'url: too long');
  return href;
}

/**
 * A new webhook's row, active and with nothing delivered yet: `fields` (who, what, where, the secret, the stream)
 * over the starting state every new webhook has (no scope wallets, no watch position).
 */
export function newSubscriptionRow(
  now: number,
  fields: Pick<
    SubscriptionRow,
    'account' | 'key_id' | 'scope_type' | 'scope_value' | 'url' | 'event_types' | 'description' | 'secret' | 'stream'
  > &
    Partial<SubscriptionRow>,
): SubscriptionRow {
  return {
    id: prefixedId(WEBHOOK_ID_PREFIX, now),
    handle_account: null,
    authority_wallet: null,
    payment_wallet: null,
    wallets: '[]',
    status: 'active',
    paused_reason: null,
    consecutive_dead: 0,
    watch_from_slot: 0,
    rate_window_start: 0,
    rate_count: 0,
    created_at: now,
    updated_at: now,
    watch_from_sequence: null,
    previous_secret: null,
    previous_secret_until: null,
    ...fields,
  };
}

/** Inserts a webhook row inside the caller's transaction within the account's cap for its stream (LIMIT_REACHED). */
export async function insertWithinCap(trx: Kysely<Database>, row: SubscriptionRow): Promise<void> {
  if ((await insertSubscriptionCounted(trx, row)) > WEBHOOK_LIMITS.perAccount) throw limitReached();
}

const notFound = () => new ApiError('WEBHOOK_NOT_FOUND', 'no such webhook on this account');

/** The caller's webhook `id` of `stream`, or WEBHOOK_NOT_FOUND (another account's or stream's id looks missing). */
export async function ownRow(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
): Promise<SubscriptionRow> {
  const row = await selectOwnedSubscription(db, { account: caller.account, id, stream: stream.name });
  if (!row) throw notFound();
  return row;
}

const owned = (stream: WebhookStream, caller: WebhookCaller, id: string) => ({
  account: caller.account,
  id,
  stream: stream.name,
});

/** GET …/webhooks: the account's webhooks of the stream, oldest first. */
export async function listWebhooks<W>(
  db: Kysely<Database>,
  stream: WebhookStream<W>,
  caller: WebhookCaller,
): Promise<{ webhooks: W[] }> {
  return { webhooks: (await selectStreamSubscriptions(db, caller.account, stream.name)).map(stream.toWebhook) };
}

/** GET …/{id}/deliveries?limit=1..200 (default 50): newest first. */
export async function listDeliveries(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  query: { limit?: unknown } = {},
): Promise<{ deliveries: DeliveryRecord[] }> {
  const parsed = DeliveryListQuerySchema.safeParse(query);
  if (!parsed.success)
    throw new ApiError('BAD_REQUEST', `limit: must be an integer from 1 to ${WEBHOOK_LIMITS.deliveriesPageMax}`);
  await ownRow(db, stream, caller, id);
  return { deliveries: (await selectDeliveries(db, id, parsed.data.limit)).map(toDeliveryRecord) };
}

/**
 * POST …/rotate-secret: the new secret signs every attempt from now on, retries of older events included; the
 * replaced one keeps signing beside it for the overlap (WEBHOOK_LIMITS.rotationOverlapMs, 24 h), so a receiver
 * can switch secrets at its own pace. A second rotation within the overlap ends the first one's old secret.
 */
export async function rotateWebhookSecret(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  now: number,
): Promise<{ id: string; secret: string }> {
  const secret = newWebhookSecret();
  const change = { secret, previousUntil: now + WEBHOOK_LIMITS.rotationOverlapMs, now };
  if ((await rotateSubscriptionSecret(db, owned(stream, caller, id), change)) !== 1) throw notFound();
  return { id, secret };
}

/**
 * POST …/resume: only an auto-paused webhook resumes (a scope change needs a fresh registration with a new proof);
 * anything else is NOT_RESUMABLE. The dead-letter streak restarts from zero.
 */
export async function resumeWebhook(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  now: number,
): Promise<SubscriptionRow> {
  const changed = await resumePausedSubscription(db, owned(stream, caller, id), AUTO_PAUSED_PREFIX, now);
  const row = await ownRow(db, stream, caller, id); // WEBHOOK_NOT_FOUND for another account's id
  if (changed !== 1) {
    throw new ApiError(
      'NOT_RESUMABLE',
      row.status === 'active'
        ? 'webhook is active, not auto-paused'
        : 'webhook is not auto-paused (a scope change needs a new registration)',
    );
  }
  return row;
}

/** DELETE …/{id}: removes it and its delivery log. */
export async function deleteWebhook(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
): Promise<void> {
  if ((await deleteSubscription(db, owned(stream, caller, id))) !== 1) throw notFound();
}

/**
 * POST …/{id}/deliveries/{deliveryId}/redeliver: puts a delivered or dead delivery back in the queue as a fresh
 * delivery (attempts from zero, due now). A pending one is already queued: answered as is.
 */
export async function redeliver(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  ids: { id: string; deliveryId: string },
  now: number,
): Promise<DeliveryRecord> {
  await ownRow(db, stream, caller, ids.id);
  const row = await requeueFinished(db, ids.id, ids.deliveryId, now);
  if (!row) throw new ApiError('DELIVERY_NOT_FOUND', 'no such delivery on this webhook');
  return toDeliveryRecord(row);
}

/**
 * POST …/{id}/recover `{since, until?}` (Svix's recover): every `dead` delivery of this webhook created in
 * [since, until) — and every still-pending one that has failed at least once — is due now with a fresh attempt
 * budget. Idempotent: a repeat finds them pending with no attempts and changes nothing (`requeued: 0`). Delivered
 * ones are left alone (redeliver is for those).
 */
export async function recoverDeliveries(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  window: { since: number; until?: number },
  now: number,
): Promise<{ requeued: number; pending: number }> {
  await ownRow(db, stream, caller, id);
  return requeueWindow(db, id, { since: window.since, until: window.until ?? now + 1 }, now);
}

/**
 * POST …/{id}/test: the stream stores its signed test sample (`test: true`) and the engine queues it through the
 * normal delivery path, in one transaction. Answers the delivery record.
 */
export async function sendTestEvent(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  now: number,
  type?: string,
): Promise<DeliveryRecord> {
  if (type !== undefined && !stream.eventTypes.includes(type)) {
    throw new ApiError('INVALID_EVENT_TYPES', `type: not an event type of this stream: ${JSON.stringify(type)}`);
  }
  const row = await ownRow(db, stream, caller, id);
  const delivery = await db.transaction().execute(async (trx) => {
    const event = await stream.storeTestEvent(trx, row, now, type);
    const queued = newDeliveryRow(id, event, true, now);
    await insertDeliveries(trx, [queued]);
    return queued;
  });
  return toDeliveryRecord(delivery);
}

/**
 * PATCH (session routes) without a new URL: the description (null or blank clears it) and the event types (the
 * stream's grammar, stored normalized). Answers the row.
 */
export async function updateWebhook(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  patch: { description?: string | null; event_types?: readonly unknown[]; url?: string },
  now: number,
): Promise<SubscriptionRow> {
  const change: SubscriptionChange = {};
  if (patch.description !== undefined) change.description = patch.description?.trim() ? patch.description : null;
  if (patch.event_types !== undefined) change.event_types = JSON.stringify(stream.parseEventTypes(patch.event_types));
  if (patch.url !== undefined) change.url = patch.url;
  if ((await updateSubscription(db, owned(stream, caller, id), change, now)) !== 1) throw notFound();
  return ownRow(db, stream, caller, id);
}

/**
 * The owner turns deliveries off: the webhook pauses with DISABLED_REASON, from active or auto-paused (the owner's
 * choice outlasts the auto-pause; enable then reactivates it). Already disabled, or paused because its scope
 * changed (it gets nothing anyway, and only a new registration lifts that): answered as it is.
 */
export async function disableWebhook(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  now: number,
): Promise<SubscriptionRow> {
  await pauseSubscriptionFor(db, owned(stream, caller, id), {
    reason: DISABLED_REASON,
    over: [AUTO_PAUSED_PREFIX],
    now,
  });
  return ownRow(db, stream, caller, id);
}

/** Reactivates a webhook its owner disabled (the dead-letter streak restarts); anything else is NOT_DISABLED. */
export async function enableWebhook(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  now: number,
): Promise<SubscriptionRow> {
  const changed = await resumePausedSubscription(db, owned(stream, caller, id), DISABLED_PREFIX, now);
  const row = await ownRow(db, stream, caller, id);
  if (changed !== 1)
    throw new ApiError('NOT_DISABLED', `webhook is ${webhookState(row).replace('_', '-')}, not disabled`);
  return row;
}

const badCursor = () => new ApiError('BAD_REQUEST', 'cursor: not a cursor this list gave');
const DELIVERY_CURSOR = /^(\d{1,16})\.(whdel_[1-9A-HJ-NP-Za-km-z]{1,64})$/;
const ATTEMPT_CURSOR = /^whatt_[1-9A-HJ-NP-Za-km-z]{1,64}$/;

/** A page of the webhook's deliveries, newest first, filtered by status and event type (session routes). */
export async function deliveryPage(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  id: string,
  query: DeliveryPageQuery,
): Promise<{ deliveries: DeliveryRecord[]; next_cursor: string | null }> {
  let before: DeliveryPosition | undefined;
  if (query.cursor !== undefined) {
    const m = DELIVERY_CURSOR.exec(query.cursor);
    if (!m) throw badCursor();
    before = { createdAt: Number(m[1]), id: m[2]! };
  }
  await ownRow(db, stream, caller, id);
  const rows = await selectDeliveryPage(db, id, {
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.event_type === undefined ? {} : { eventType: query.event_type }),
    ...(before === undefined ? {} : { before }),
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    deliveries: page.map(toDeliveryRecord),
    next_cursor: rows.length > query.limit && last ? `${Number(last.created_at)}.${last.id}` : null,
  };
}

async function ownDelivery(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  ids: { id: string; deliveryId: string },
): Promise<DeliveryRow> {
  await ownRow(db, stream, caller, ids.id);
  const row = await selectDelivery(db, ids.id, ids.deliveryId);
  if (!row) throw new ApiError('DELIVERY_NOT_FOUND', 'no such delivery on this webhook');
  return row;
}

/**
 * One delivery in full: the record, the body every attempt sends (read as the worker reads it, so byte for byte),
 * and the headers of the newest attempt (null before the first), written into the answer as stored: the worker
 * stored them as JSON.stringify of the headers it sent.
 */
export async function deliveryDetail(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  ids: { id: string; deliveryId: string },
): Promise<StoredJson<DeliveryDetail>> {
  const row = await ownDelivery(db, stream, caller, ids);
  const event = (await stream.loadEvents(db, [row.event_id])).get(row.event_id);
  const [latest] = await selectAttemptPage(db, row.id, { take: 1 });
  return storedAnswer<DeliveryDetail>({
    // The record is built here, not stored: parsed as the route's output parser parsed it (its keys in schema order).
    delivery: DeliveryRecordSchema.parse(toDeliveryRecord(row)),
    body: event?.body ?? '',
    headers: latest ? new StoredJson<Record<string, string>>(latest.headers) : null,
  });
}

/**
 * The delivery's attempts, newest first, paged by cursor; each attempt's headers as stored (see deliveryDetail). The
 * other fields are written in the schema's order, the order its parse gave them.
 */
export async function attemptPage(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  ids: { id: string; deliveryId: string },
  query: { limit: number; cursor?: string | undefined },
): Promise<StoredJson<{ attempts: DeliveryAttempt[]; next_cursor: string | null }>> {
  if (query.cursor !== undefined && !ATTEMPT_CURSOR.test(query.cursor)) throw badCursor();
  const row = await ownDelivery(db, stream, caller, ids);
  const rows = await selectAttemptPage(db, row.id, {
    ...(query.cursor === undefined ? {} : { beforeId: query.cursor }),
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return storedAnswer<{ attempts: DeliveryAttempt[]; next_cursor: string | null }>({
    attempts: page.map((a) => ({
      attempt: a.attempt,
      attempted_at: Number(a.attempted_at),
      status: a.status,
      error: a.error as DeliveryErrorClass | null,
      duration_ms: a.duration_ms,
      headers: new StoredJson<Record<string, string>>(a.headers),
    })),
    next_cursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
  });
}
