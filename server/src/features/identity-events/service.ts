// Identity webhooks (the identity stream of the webhook engine) and the replayable log (docs/identity-events.md).
// Subscriptions live in the engine's tables with stream 'identity' and share its management rules and delivery;
// what differs is here: creation without a wallet proof (the data is public), the registry-wide scope for partner
// keys, and the log.
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import {
  parseIdentityEventTypes,
  parseIdentityScope,
  type IdentityEvent,
  type IdentityEventsQuery,
  type IdentityLogPage,
  type IdentityWebhook,
  type IdentityWebhookCreated,
  type IdentityWebhookCreateRequest,
} from '@sigil/contract/identity-events';
import type { KeyTier } from '@sigil/contract/keys';
import type { OwnerWebhookPatch } from '@sigil/contract/owner-webhooks';
import { normalizeName } from '@sigil/contract/names';
import type { Database } from '../../platform/db/index';
import { storedAnswer, storedArray, type StoredJson } from '../../platform/stored-json';
import type { Resolver } from '../../platform/outbound/destination-policy';
import {
  checkRoomFor,
  createWebhookStreamService,
  insertWithinCap,
  newSubscriptionRow,
  newWebhookSecret,
  updateWebhook,
  vetWebhookUrl,
  type QueueSignal,
  type WebhookCaller,
  type WebhookStreamVerbs,
} from '../webhooks/index';
import { deleteEventsBefore, lockedNextSequence, selectLogBounds, selectLogPage } from './queries';
import { identityWebhookStream, toIdentityWebhook } from './stream';

export interface IdentityServiceDeps {
  db: Kysely<Database>;
  resolver?: Resolver;
  allowLoopback: boolean;
  /** False when the deployment turned identity webhooks off (SIGIL_IDENTITY_WEBHOOKS); the log keeps serving. */
  enabled?: boolean;
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
  await checkRoomFor(db, caller.account, identityWebhookStream.name);

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
      stream: identityWebhookStream.name,
      watch_from_sequence: fromSequence,
    });
    await insertWithinCap(trx, fresh);
    return fresh;
  });
  return { ...toIdentityWebhook(row), secret };
}

/** What the log holds, in words: "sequences 4..6", or "none (latest sequence 6)". */
function holds(bounds: { oldest: number | null; latest: number }): string {
  if (bounds.oldest !== null) return `sequences ${bounds.oldest}..${bounds.latest}`;
  return bounds.latest === 0 ? 'no events yet (latest sequence 0)' : `none (latest sequence ${bounds.latest})`;
}

/**
 * A cursor the log can continue from: at most the latest sequence, and not behind the oldest kept (the events after
 * it must still be there). Anything else is refused with the bounds, so that a consumer detects a gap (retention) or
 * a log that is not the one it read (a rebuild, another deployment) instead of reading an empty page.
 */
function checkCursor(after: number, bounds: { oldest: number | null; latest: number }): void {
  if (after > bounds.latest) {
    throw new ApiError('CURSOR_AHEAD', `cursor ${after} is beyond the log: it holds ${holds(bounds)}`);
  }
  const firstKept = bounds.oldest ?? bounds.latest + 1;
  if (after < firstKept - 1) {
    throw new ApiError(
      'CURSOR_EXPIRED',
      `events after cursor ${after} were removed by retention: the log holds ${holds(bounds)}`,
    );
  }
}

/**
 * The sequence a stored event states: the indexer writes each payload with its row's sequence, so the page reads the
 * payloads alone and only the last one is parsed, for the next cursor.
 */
function sequenceOf(payload: string): number {
  return (JSON.parse(payload) as Pick<IdentityEvent, 'sequence'>).sequence;
}

/**
 * GET /v1/identity/events: the log in `sequence` order after the cursor, filtered; each event is the stored
 * payload (the exact body its deliveries sent), written into the page as stored: it was validated when the indexer
 * wrote it. `next_after` is the last sequence of the page (the next call's `after`), `has_more` whether more matched
 * at the time of the read; `oldest_sequence` / `latest_sequence` are the log's bounds (a new consumer that wants
 * only what comes next starts at `after = latest_sequence`).
 */
export async function readIdentityLog(
  db: Kysely<Database>,
  query: IdentityEventsQuery,
): Promise<StoredJson<IdentityLogPage>> {
  const bounds = await selectLogBounds(db);
  if (query.after !== undefined) checkCursor(query.after, bounds);
  const rows = await selectLogPage(db, {
    after: query.after ?? 0,
    take: query.limit + 1,
    ...(query.types === undefined ? {} : { types: parseIdentityEventTypes(query.types.split(',')) }),
    ...(query.handle === undefined ? {} : { handle: normalizeName(query.handle).name }),
    ...(query.wallet === undefined ? {} : { wallet: query.wallet }),
  });
  const page = rows.slice(0, query.limit);
  return storedAnswer<IdentityLogPage>({
    events: storedArray<IdentityEvent>(page.map((r) => r.payload)),
    next_after: page.length > 0 ? sequenceOf(page[page.length - 1]!.payload) : (query.after ?? null),
    has_more: rows.length > query.limit,
    oldest_sequence: bounds.oldest,
    latest_sequence: bounds.latest,
  });
}

/** Retention: events (and their deliveries) older than `days` go; the sequence never restarts (the stream row). */
export function pruneIdentityLog(db: Kysely<Database>, days: number, now: number): Promise<number> {
  return deleteEventsBefore(db, now - days * 24 * 60 * 60 * 1000);
}

/** The identity verbs, caller first: the engine's management verbs on the identity stream, creation and the log. */
/**
 * PATCH /v1/keys/{id}/webhooks/identity/{webhookId}: description, event_types and url, the url vetted as at
 * creation. Identity webhooks are created without a wallet proof, so a new url needs none either (nonce and
 * signature are refused: nothing would check them).
 */
export async function editIdentityWebhook(
  deps: IdentityServiceDeps,
  caller: WebhookCaller,
  id: string,
  patch: OwnerWebhookPatch,
): Promise<IdentityWebhook> {
  if (patch.nonce !== undefined || patch.signature !== undefined)
    throw new ApiError('BAD_REQUEST', 'identity webhooks need no signature: send `url` alone');
  const url = patch.url === undefined ? undefined : await vetWebhookUrl(patch.url, deps);
  const row = await updateWebhook(
    deps.db,
    identityWebhookStream,
    caller,
    id,
    {
      ...(patch.description === undefined ? {} : { description: patch.description }),
      ...(patch.event_types === undefined ? {} : { event_types: patch.event_types }),
      ...(url === undefined ? {} : { url }),
    },
    deps.now?.() ?? Date.now(),
  );
  return toIdentityWebhook(row);
}

/** The identity stream's verbs: the engine's management verbs, creation and edit by its scope rules, and the log. */
export interface IdentityEventsService extends WebhookStreamVerbs<IdentityWebhook> {
  create(caller: WebhookCaller & { tier: KeyTier }, req: IdentityWebhookCreateRequest): Promise<IdentityWebhookCreated>;
  edit(caller: WebhookCaller, id: string, patch: OwnerWebhookPatch): Promise<IdentityWebhook>;
  /**
   * The log page as GET /v1/identity/events sends it (stored events as stored), served whether identity webhooks
   * are on or off.
   */
  log(query: IdentityEventsQuery): Promise<StoredJson<IdentityLogPage>>;
  /** The same page as values, for callers in this process. */
  events(query: IdentityEventsQuery): Promise<IdentityLogPage>;
}

export function createIdentityEventsService(deps: IdentityServiceDeps): IdentityEventsService {
  const { db } = deps;
  const { on, ...verbs } = createWebhookStreamService({
    ...deps,
    enabled: deps.enabled ?? true,
    stream: identityWebhookStream,
  });
  return {
    ...verbs,
    create: on((caller: WebhookCaller & { tier: KeyTier }, req: IdentityWebhookCreateRequest) =>
      createIdentityWebhook(deps, caller, req),
    ),
    edit: on((caller: WebhookCaller, id: string, patch: OwnerWebhookPatch) =>
      editIdentityWebhook(deps, caller, id, patch),
    ),
    /** The log page as the route sends it: stored events as stored. */
    log: (query: IdentityEventsQuery) => readIdentityLog(db, query),
    /** The same page as values, for callers in this process. */
    events: async (query: IdentityEventsQuery): Promise<IdentityLogPage> => (await readIdentityLog(db, query)).toJSON(),
  };
}
