// Identity webhooks (subscriptions to the identity stream) and the replayable log (docs/identity-events.md).
// Subscriptions live in the pay webhooks' tables with stream 'identity' and share their management rules and the
// one delivery engine (features/pay-webhooks); what differs is here: creation without a wallet proof (the data is
// public), the registry-wide scope for partner keys, the test event, and the log.
import { sql, type Kysely, type Selectable } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import {
  IDENTITY_EVENT_ID_PREFIX,
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENTS_SCHEMA,
  IdentityEventSchema,
  parseIdentityEventTypes,
  parseIdentityScope,
  type IdentityEvent,
  type IdentityEventsQuery,
  type IdentityWebhook,
  type IdentityWebhookCreated,
  type IdentityWebhookCreateRequest,
} from '@sigil/contract/identity-events';
import { isoSeconds, WEBHOOK_LIMITS, type DeliveryRecord } from '@sigil/contract/webhooks';
import type { KeyTier } from '@sigil/contract/keys';
import { normalizeName } from '@sigil/contract/names';
import type { Database, WebhookSubscriptionsTable } from '../../platform/db/index';
import type { Resolver } from '../../platform/outbound/destination-policy';
import { prefixedId } from '../../platform/ids';
import {
  countWebhooks,
  deleteWebhook,
  insertWithinCap,
  limitReached,
  listDeliveries,
  newDeliveryRow,
  newSubscriptionRow,
  newWebhookSecret,
  ownRow,
  recoverDeliveries,
  redeliver,
  resumeWebhook,
  rotateWebhookSecret,
  streamRows,
  TEST_SIGNATURE,
  testEventChain,
  vetWebhookUrl,
  type QueueSignal,
  type WebhookCaller,
} from '../pay-webhooks/index';
import { lockedNextSequence } from './indexer';

const seconds = (ms: number) => Math.floor(ms / 1000);

export function toIdentityWebhook(row: Selectable<WebhookSubscriptionsTable>): IdentityWebhook {
  return {
    id: row.id,
    scope: { type: row.scope_type, value: row.scope_value },
    url: row.url,
    event_types: JSON.parse(row.event_types) as string[],
    description: row.description,
    status: row.status,
    paused_reason: row.paused_reason,
    from_sequence: Number(row.watch_from_sequence ?? 1),
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
  };
}

export interface IdentityServiceDeps {
  db: Kysely<Database>;
  resolver?: Resolver;
  allowLoopback: boolean;
  /** Told whenever a verb queued a delivery (test, redeliver, recover). */
  queued: QueueSignal;
  now?: () => number;
}

/**
 * POST /v1/identity/webhooks: no wallet proof — every identity event is read from public chain state, so a
 * subscription reveals nothing its owner could not read from the chain (docs/identity-events.md). The URL is
 * vetted as for pay webhooks; `*` (the whole registry) needs a partner key; 25 identity webhooks per account.
 * Delivery starts with the next event the stream writes (`from_sequence`); the log serves everything earlier.
 */
export async function createIdentityWebhook(
  deps: IdentityServiceDeps,
  caller: WebhookCaller & { tier: KeyTier },
  req: IdentityWebhookCreateRequest,
): Promise<IdentityWebhookCreated> {
  const { db } = deps;
  const now = deps.now?.() ?? Date.now();
  const scope = parseIdentityScope(req.scope);
  if (scope.type === 'registry' && caller.tier !== 'partner') {
    throw new ApiError('PARTNER_TIER_REQUIRED', 'scope `*` (the whole registry) needs a partner-tier key');
  }
  const eventTypes = parseIdentityEventTypes(req.event_types);
  const url = await vetWebhookUrl(req.url, deps);
  if ((await countWebhooks(db, caller.account, 'identity')) >= WEBHOOK_LIMITS.perAccount) throw limitReached();

  const secret = newWebhookSecret();
  const row = await db.transaction().execute(async (trx) => {
    // The stream's next sequence under its row lock (lockedNextSequence): the indexer commits either before this
    // (its events are in the log, before from_sequence) or after (it sees this webhook and fans out to it).
    // Before the stream's first run: from 1, the whole backfill.
    const fromSequence = (await lockedNextSequence(trx)) ?? 1;
    const fresh = newSubscriptionRow(now, {
      account: caller.account,
      key_id: caller.keyId,
      scope_type: scope.type,
      scope_value: scope.value,
      url,
      event_types: JSON.stringify(eventTypes),
      description: req.description?.trim() ? req.description : null,
      secret,
      stream: 'identity',
      watch_from_sequence: fromSequence,
    });
    await insertWithinCap(trx, fresh);
    return fresh;
  });
  return { ...toIdentityWebhook(row), secret };
}

/** GET /v1/identity/webhooks: the account's identity webhooks, oldest first. */
export async function listIdentityWebhooks(
  db: Kysely<Database>,
  caller: WebhookCaller,
): Promise<{ webhooks: IdentityWebhook[] }> {
  return { webhooks: (await streamRows(db, caller, 'identity')).map(toIdentityWebhook) };
}

/** The system program's address: an obviously fake account for test events. */
const NO_ADDRESS = '11111111111111111111111111111111';

/**
 * POST …/{id}/test: a signed `handle.registered` sample with `test: true` and `sequence: 0`, through the normal
 * delivery path. Test events are stored (the delivery engine reads bodies from the store) under negative keys,
 * outside the log.
 */
export async function sendIdentityTestEvent(
  db: Kysely<Database>,
  caller: WebhookCaller,
  id: string,
  now: number,
): Promise<DeliveryRecord> {
  const row = await ownRow(db, caller, id, 'identity');
  const name = row.scope_type === 'name' ? row.scope_value.slice(1) : 'example';
  const event: IdentityEvent = IdentityEventSchema.parse({
    schema: IDENTITY_EVENTS_SCHEMA,
    id: prefixedId(IDENTITY_EVENT_ID_PREFIX, now),
    type: 'handle.registered',
    sequence: 0,
    notice: IDENTITY_EVENT_NOTICE,
    test: true,
    chain: testEventChain(isoSeconds(seconds(now))),
    handle: { name, account: NO_ADDRESS },
    actors: { signer: row.scope_type === 'wallet' ? row.scope_value : NO_ADDRESS },
    change: {
      handleType: 0,
      owner: { before: null, after: row.scope_type === 'wallet' ? row.scope_value : NO_ADDRESS },
    },
  });
  const delivery = newDeliveryRow(id, event, true, now);
  await db.transaction().execute(async (trx) => {
    const { low } = await trx
      .selectFrom('identity_events')
      .select((eb) => eb.fn.min<number>('sequence').as('low'))
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('identity_events')
      .values({
        sequence: Math.min(0, Number(low ?? 0)) - 1,
        id: event.id,
        type: event.type,
        signature: TEST_SIGNATURE,
        slot: 0,
        handle_name: name,
        payload: JSON.stringify(event),
        test: 1,
        created_at: now,
      })
      .execute();
    await trx.insertInto('webhook_deliveries').values(delivery).execute();
  });
  return (await listDeliveries(db, caller, id, { limit: 1 }, 'identity')).deliveries[0]!;
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
 * GET /v1/identity/events: the log in `sequence` order after the cursor, filtered; each event is the stored
 * payload (the exact body its deliveries sent). `next_after` is the last sequence of the page (the next call's
 * `after`), `has_more` whether more matched at the time of the read.
 */
export async function readIdentityLog(
  db: Kysely<Database>,
  query: IdentityEventsQuery,
): Promise<{ events: IdentityEvent[]; next_after: number | null; has_more: boolean }> {
  let q = db
    .selectFrom('identity_events')
    .select(['sequence', 'payload'])
    .where('test', '=', 0)
    .where('sequence', '>', query.after ?? 0)
    .orderBy('sequence')
    .limit(query.limit + 1);
  if (query.types !== undefined) q = q.where(typeFilter(parseIdentityEventTypes(query.types.split(','))));
  if (query.handle !== undefined) q = q.where('handle_name', '=', normalizeName(query.handle).name);
  if (query.wallet !== undefined) {
    const wallet = query.wallet;
    q = q.where('sequence', 'in', (eb) =>
      eb.selectFrom('identity_event_wallets').select('sequence').where('wallet', '=', wallet),
    );
  }
  const rows = await q.execute();
  const page = rows.slice(0, query.limit);
  return {
    events: page.map((r) => JSON.parse(r.payload) as IdentityEvent),
    next_after: page.length > 0 ? Number(page[page.length - 1]!.sequence) : (query.after ?? null),
    has_more: rows.length > query.limit,
  };
}

/** Retention: events (and their deliveries) older than `days` go; the sequence never restarts (the stream row). */
export async function pruneIdentityLog(db: Kysely<Database>, days: number, now: number): Promise<number> {
  const cutoff = now - days * 24 * 60 * 60 * 1000;
  const old = db.selectFrom('identity_events').select('id').where('created_at', '<', cutoff);
  await db.deleteFrom('webhook_deliveries').where('event_id', 'in', old).execute();
  const result = await db.deleteFrom('identity_events').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The identity verbs, caller first; management verbs are the pay webhooks' own rules on the identity stream. */
export function createIdentityEventsService(deps: IdentityServiceDeps) {
  const { db, queued } = deps;
  const now = () => deps.now?.() ?? Date.now();
  return {
    queued,
    create: (caller: WebhookCaller & { tier: KeyTier }, req: IdentityWebhookCreateRequest) =>
      createIdentityWebhook(deps, caller, req),
    list: (caller: WebhookCaller) => listIdentityWebhooks(db, caller),
    get: async (caller: WebhookCaller, id: string) => toIdentityWebhook(await ownRow(db, caller, id, 'identity')),
    deliveries: (caller: WebhookCaller, id: string, query?: { limit?: unknown }) =>
      listDeliveries(db, caller, id, query, 'identity'),
    rotateSecret: (caller: WebhookCaller, id: string) => rotateWebhookSecret(db, caller, id, now(), 'identity'),
    resume: async (caller: WebhookCaller, id: string) =>
      toIdentityWebhook(await resumeWebhook(db, caller, id, now(), 'identity')),
    remove: (caller: WebhookCaller, id: string) => deleteWebhook(db, caller, id, 'identity'),
    redeliver: async (caller: WebhookCaller, id: string, deliveryId: string) => {
      const record = await redeliver(db, caller, id, deliveryId, now(), 'identity');
      queued.notify();
      return record;
    },
    sendTest: async (caller: WebhookCaller, id: string) => {
      const record = await sendIdentityTestEvent(db, caller, id, now());
      queued.notify();
      return record;
    },
    recover: async (caller: WebhookCaller, id: string, window: { since: number; until?: number }) => {
      const result = await recoverDeliveries(db, caller, id, window, now(), 'identity');
      if (result.requeued > 0) queued.notify();
      return result;
    },
    events: (query: IdentityEventsQuery) => readIdentityLog(db, query),
  };
}

export type IdentityEventsService = ReturnType<typeof createIdentityEventsService>;
