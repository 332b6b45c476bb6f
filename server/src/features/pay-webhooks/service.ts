// Pay webhooks: registration by signed challenge, and management of an account's webhooks (docs/webhooks.md).
// Every function takes the db first. Errors are ApiError with the spec's codes (statuses in contract/errors.ts).
import type { QueueSignal } from './queue-signal';
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Address } from '@solana/kit';
import { ApiError } from '@sigil/contract/errors';
import {
  AUTO_PAUSED_PREFIX,
  buildWebhookChallengeMessage,
  DeliveryListQuerySchema,
  WEBHOOK_ID_PREFIX,
  WEBHOOK_LIMITS,
  WEBHOOK_SECRET_PREFIX,
  type DeliveryErrorClass,
  type DeliveryRecord,
  type PayEventType,
  type ParsedWebhookChallengeRequest,
  type Webhook,
  type WebhookChallengeResponse,
  type WebhookCreated,
  type WebhookRegisterRequest,
} from '@sigil/contract/webhooks';
import { IDENTITY_LIMITS } from '@sigil/contract/identity-events';
import { PAY_EVENT_NOTICE, PAY_EVENTS_SCHEMA, PAY_EVENT_ID_PREFIX, type PayEvent } from '@sigil/contract/pay-events';
import { ChainError, type ChainReader } from '../../platform/chain/types';
import { decodeSignature, verifyWalletMessage } from '../../platform/crypto/wallet-signature';
import {
  affectedRows,
  dialectOf,
  type Database,
  type WebhookChallengesTable,
  type WebhookDeliveriesTable,
  type WebhookSubscriptionsTable,
} from '../../platform/db/index';
import { vetDestination, type Resolver } from '../../platform/outbound/destination-policy';
import { prefixedId } from '../../platform/ids';
import { newDeliveryRow, queuedDeliveryState } from './attempts';
import { controllers, readNameControl, PAYMENT_RECORD_KEY } from './control';

/** Who is calling: the API key and the account it belongs to (a webhook belongs to the account). */
export interface WebhookCaller {
  keyId: string;
  account: string;
}

export interface WebhookServiceDeps {
  chain: ChainReader;
  /** DNS for the registration-time destination check; the system resolver by default. */
  resolver?: Resolver;
  /** Local development and tests only (docs/outbound.md): loopback receivers on any port. */
  allowLoopback?: boolean;
  /** Address-record key of the payment address (default X1). */
  paymentRecordKey?: string;
  now?: () => number;
}

// Postgres advisory-lock class for "one account's webhooks" (ASCII 'whks'); second int = hashtext(account).
const WEBHOOKS_LOCK_CLASS = 0x77686b73;

const randomBase58 = (bytes: number) => base58.encode(randomBytes(bytes));
/**
 * `whsec_` + base64 of 24 random bytes (32 characters, no padding): the Standard Webhooks secret format, so the
 * stock libraries take it as is; Sigil-Signature keys its HMAC with the whole string, as before.
 */
export const newWebhookSecret = () => WEBHOOK_SECRET_PREFIX + randomBytes(24).toString('base64');

/** Which event stream a webhook receives; both share the tables and the delivery engine. */
export type WebhookStream = 'pay' | 'identity';

const seconds = (ms: number) => Math.floor(ms / 1000);

export function toWebhook(row: Selectable<WebhookSubscriptionsTable>): Webhook {
  return {
    id: row.id,
    scope: {
      type: row.scope_type as 'wallet' | 'name',
      value: row.scope_value,
      wallets: JSON.parse(row.wallets) as string[],
    },
    url: row.url,
    event_types: JSON.parse(row.event_types) as PayEventType[],
    description: row.description,
    status: row.status,
    paused_reason: row.paused_reason,
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
  };
}

export function toDeliveryRecord(row: Selectable<WebhookDeliveriesTable>): DeliveryRecord {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type as PayEventType,
    status: row.status,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error as DeliveryErrorClass | null,
    response_ms: row.response_ms,
    next_attempt_at: row.status === 'pending' && row.next_attempt_at !== null ? seconds(row.next_attempt_at) : null,
    created_at: seconds(row.created_at),
    delivered_at: row.delivered_at === null ? null : seconds(row.delivered_at),
    test: row.test === 1,
  };
}

/** The account's webhooks of one stream: the cap (25) counts per stream. */
export async function countWebhooks(
  db: Kysely<Database>,
  account: string,
  stream: WebhookStream = 'pay',
): Promise<number> {
  const { n } = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account', '=', account)
    .where('stream', '=', stream)
    .executeTakeFirstOrThrow();
  return Number(n);
}

export const limitReached = () =>
  new ApiError('LIMIT_REACHED', `an account may hold at most ${WEBHOOK_LIMITS.perAccount} webhooks; delete one first`);

function chainFailure(err: unknown): never {
  if (err instanceof ChainError) {
    if (err.kind === 'unreachable') throw new ApiError('RPC_ERROR', 'chain read failed; retry');
    throw new ApiError('CONTROL_UNPROVEN', "the name's on-chain accounts do not decode; control cannot be proven");
  }
  throw err;
}

// ---------------------------------------------------------------------------------------------------------
// Registration

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
 * POST /v1/pay/webhooks/challenge: validates the request (field codes, WALLET_MISMATCH), vets the URL with the
 * outbound destination policy (INVALID_URL / URL_REJECTED), refuses early when the account is full
 * (LIMIT_REACHED), and stores a single-use, 10-minute challenge whose message the wallet signs.
 */
export async function issueWebhookChallenge(
  db: Kysely<Database>,
  deps: WebhookServiceDeps,
  caller: WebhookCaller,
  req: ParsedWebhookChallengeRequest,
): Promise<WebhookChallengeResponse> {
  const now = deps.now?.() ?? Date.now();
  const url = await vetWebhookUrl(req.url, deps);
  if ((await countWebhooks(db, caller.account)) >= WEBHOOK_LIMITS.perAccount) throw limitReached();

  const nonce = randomBase58(24);
  const expiresAt = seconds(now) + WEBHOOK_LIMITS.challengeTtlSeconds;
  const message = buildWebhookChallengeMessage({
    keyId: caller.keyId,
    scope: req.scope.value,
    url,
    eventTypes: req.eventTypes,
    nonce,
    expiresAt,
  });
  await db
    .insertInto('webhook_challenges')
    .values({
      nonce,
      account: caller.account,
      key_id: caller.keyId,
      scope_type: req.scope.type,
      scope_value: req.scope.value,
      wallet: req.wallet,
      url,
      event_types: JSON.stringify(req.eventTypes),
      description: req.description,
      message,
      expires_at: expiresAt * 1000,
      used_at: null,
      created_at: now,
    })
    .execute();
  return { nonce, message, expires_at: expiresAt };
}

interface ProvenScope {
  wallets: Address[];
  handleAccount: string | null;
  authorityWallet: string | null;
  paymentWallet: string | null;
}

/** Which wallet signed, and does it control the scope? Throws the spec's codes. */
async function proveControl(
  deps: WebhookServiceDeps,
  challenge: { scope_type: 'wallet' | 'name'; scope_value: string; wallet: string | null; message: string },
  signature: Uint8Array,
): Promise<ProvenScope> {
  const verifies = (signer: string) => verifyWalletMessage({ message: challenge.message, signature, signer }).ok;
  if (challenge.scope_type === 'wallet') {
    if (challenge.wallet !== null && challenge.wallet !== challenge.scope_value) {
      throw new ApiError('WALLET_MISMATCH', 'wallet: for a wallet scope the signing wallet must be that wallet');
    }
    if (!verifies(challenge.scope_value))
      throw new ApiError('SIGNATURE_INVALID', 'signature does not verify over the message for the scope wallet');
    return {
      wallets: [challenge.scope_value as Address],
      handleAccount: null,
      authorityWallet: null,
      paymentWallet: null,
    };
  }

  // `@name`: the claimed signer must verify first (a bad signature is SIGNATURE_INVALID whatever the chain says).
  if (challenge.wallet !== null && !verifies(challenge.wallet)) {
    throw new ApiError('SIGNATURE_INVALID', 'signature does not verify over the message for `wallet`');
  }
  const name = challenge.scope_value.slice(1);
  let control;
  try {
    control = await readNameControl(deps.chain, name, deps.paymentRecordKey ?? PAYMENT_RECORD_KEY);
  } catch (err) {
    chainFailure(err);
  }
  if (!control) throw new ApiError('NOT_FOUND', `${challenge.scope_value} is not registered`);
  const candidates = controllers(control);
  let signer: string | undefined;
  if (challenge.wallet !== null) {
    if (candidates.includes(challenge.wallet as Address)) signer = challenge.wallet;
    else if (control.authority.authority === null && control.authority.reason === 'nft-not-in-ata') {
      throw new ApiError(
        'CONTROL_UNPROVEN',
        `${challenge.scope_value}: its NFT is not held in an associated token account, so its holder cannot be proven`,
      );
    } else
      throw new ApiError(
        'NOT_CONTROLLER',
        `wallet does not control ${challenge.scope_value} (not its owner, NFT holder or verified payment address)`,
      );
  } else {
    signer = candidates.find(verifies);
    if (!signer) {
      if (candidates.length === 0)
        throw new ApiError('CONTROL_UNPROVEN', `${challenge.scope_value} has no provable controller on chain`);
      throw new ApiError(
        'SIGNATURE_INVALID',
        `signature does not verify over the message for any controller of ${challenge.scope_value}`,
      );
    }
  }
  return {
    wallets: candidates,
    handleAccount: control.handle.address,
    authorityWallet: control.authority.authority,
    paymentWallet: control.paymentWallet,
  };
}

/**
 * POST /v1/pay/webhooks: `{nonce, signature}`. The challenge must be unused, unexpired and issued to this key
 * (else CHALLENGE_INVALID); the signature (raw or off-chain envelope) must verify (SIGNATURE_INVALID); the signer
 * must control the scope (WALLET_MISMATCH / NOT_CONTROLLER / CONTROL_UNPROVEN / NOT_FOUND / RPC_ERROR). Then the
 * challenge is consumed and the webhook inserted in one transaction, with the per-account cap (LIMIT_REACHED).
 */
export async function registerWebhook(
  db: Kysely<Database>,
  deps: WebhookServiceDeps,
  caller: WebhookCaller,
  req: WebhookRegisterRequest,
): Promise<WebhookCreated> {
  const started = deps.now?.() ?? Date.now();
  const challenge = await openChallenge(db, caller, req.nonce, started);
  const decoded = decodeSignature(req.signature);
  if (!decoded.ok) throw new ApiError('SIGNATURE_INVALID', `signature: ${decoded.message}`);

  const proven = await proveControl(deps, challenge, decoded.bytes);
  let watchFromSlot: bigint;
  try {
    watchFromSlot = await deps.chain.getSlot('finalized');
  } catch (err) {
    chainFailure(err);
  }

  const now = deps.now?.() ?? Date.now();
  const secret = newWebhookSecret();
  const row = subscriptionRow(caller, challenge, proven, { secret, watchFromSlot, now });
  await commitRegistration(db, caller, req.nonce, row, now);
  return { ...toWebhook(row), secret };
}

const challengeInvalid = () => new ApiError('CHALLENGE_INVALID', 'nonce is unknown, used or expired');

/** The caller's challenge `nonce`, unused and unexpired at `at`, or CHALLENGE_INVALID. */
async function openChallenge(
  db: Kysely<Database>,
  caller: WebhookCaller,
  nonce: string,
  at: number,
): Promise<Selectable<WebhookChallengesTable>> {
  const challenge = await db
    .selectFrom('webhook_challenges')
    .selectAll()
    .where('nonce', '=', nonce)
    .where('key_id', '=', caller.keyId)
    .where('account', '=', caller.account)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (!challenge) throw challengeInvalid();
  return challenge;
}

/** The new webhook's row: what the challenge asked for, what the proof established, active from `watchFromSlot`. */
function subscriptionRow(
  caller: WebhookCaller,
  challenge: Selectable<WebhookChallengesTable>,
  proven: ProvenScope,
  fresh: { secret: string; watchFromSlot: bigint; now: number },
): Selectable<WebhookSubscriptionsTable> {
  return newSubscriptionRow(fresh.now, {
    account: caller.account,
    key_id: caller.keyId,
    scope_type: challenge.scope_type,
    scope_value: challenge.scope_value,
    handle_account: proven.handleAccount,
    authority_wallet: proven.authorityWallet,
    payment_wallet: proven.paymentWallet,
    wallets: JSON.stringify(proven.wallets),
    url: challenge.url,
    event_types: challenge.event_types,
    description: challenge.description,
    secret: fresh.secret,
    watch_from_slot: Number(fresh.watchFromSlot),
  });
}

type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;

/**
 * A new webhook's row, active and with nothing delivered yet: `fields` (who, what, where, the secret) over the
 * starting state every new webhook of any stream has (a pay webhook, no scope wallets, no watch position).
 */
export function newSubscriptionRow(
  now: number,
  fields: Pick<
    SubscriptionRow,
    'account' | 'key_id' | 'scope_type' | 'scope_value' | 'url' | 'event_types' | 'description' | 'secret'
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
    stream: 'pay',
    watch_from_sequence: null,
    previous_secret: null,
    previous_secret_until: null,
    ...fields,
  };
}

/** Consumes the challenge and inserts the webhook in one transaction; over the account's cap, both roll back. */
async function commitRegistration(
  db: Kysely<Database>,
  caller: WebhookCaller,
  nonce: string,
  row: Selectable<WebhookSubscriptionsTable>,
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The consume decides (one statement, row count): a replayed or concurrent registration loses here.
    const consumed = affectedRows(
      await trx
        .updateTable('webhook_challenges')
        .set({ used_at: now })
        .where('nonce', '=', nonce)
        .where('key_id', '=', caller.keyId)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst(),
    );
    if (consumed !== 1) throw challengeInvalid();
    await insertWithinCap(trx, row); // over the cap it throws: rolls back, the nonce included
  });
}

/**
 * Inserts a webhook row inside the caller's transaction, then checks the account's cap for its stream (Postgres:
 * an advisory lock per account serializes concurrent inserts, so the count is exact). Throws LIMIT_REACHED.
 */
export async function insertWithinCap(
  trx: Kysely<Database>,
  row: Selectable<WebhookSubscriptionsTable>,
): Promise<void> {
  if (dialectOf(trx) === 'postgres')
    await sql`select pg_advisory_xact_lock(${WEBHOOKS_LOCK_CLASS}, hashtext(${row.account}))`.execute(trx);
  await trx.insertInto('webhook_subscriptions').values(row).execute();
  if ((await countWebhooks(trx, row.account, row.stream)) > WEBHOOK_LIMITS.perAccount) throw limitReached();
}

// ---------------------------------------------------------------------------------------------------------
// Management

/** The caller's webhook `id` of `stream`, or WEBHOOK_NOT_FOUND (another account's or stream's id looks missing). */
export async function ownRow(
  db: Kysely<Database>,
  caller: WebhookCaller,
  id: string,
  stream: WebhookStream = 'pay',
): Promise<Selectable<WebhookSubscriptionsTable>> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('id', '=', id)
    .where('account', '=', caller.account)
    .where('stream', '=', stream)
    .executeTakeFirst();
  if (!row) throw new ApiError('WEBHOOK_NOT_FOUND', 'no such webhook on this account');
  return row;
}

/** The account's webhooks of `stream`, oldest first. */
export function streamRows(
  db: Kysely<Database>,
  caller: WebhookCaller,
  stream: WebhookStream,
): Promise<Selectable<WebhookSubscriptionsTable>[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('account', '=', caller.account)
    .where('stream', '=', stream)
    .orderBy('id')
    .execute();
}

/** GET /v1/pay/webhooks: the account's webhooks, oldest first. */
export async function listWebhooks(db: Kysely<Database>, caller: WebhookCaller): Promise<{ webhooks: Webhook[] }> {
  return { webhooks: (await streamRows(db, caller, 'pay')).map(toWebhook) };
}

export async function getWebhook(db: Kysely<Database>, caller: WebhookCaller, id: string): Promise<Webhook> {
  return toWebhook(await ownRow(db, caller, id));
}

/** GET /v1/pay/webhooks/{id}/deliveries?limit=1..200 (default 50): newest first. */
export async function listDeliveries(
  db: Kysely<Database>,
  caller: WebhookCaller,
  id: string,
  query: { limit?: unknown } = {},
  stream: WebhookStream = 'pay',
): Promise<{ deliveries: DeliveryRecord[] }> {
  const parsed = DeliveryListQuerySchema.safeParse(query);
  if (!parsed.success)
    throw new ApiError('BAD_REQUEST', `limit: must be an integer from 1 to ${WEBHOOK_LIMITS.deliveriesPageMax}`);
  await ownRow(db, caller, id, stream);
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(parsed.data.limit)
    .execute();
  return { deliveries: rows.map(toDeliveryRecord) };
}

/**
 * POST …/rotate-secret: the new secret signs every attempt from now on, retries of older events included; the
 * replaced one keeps signing beside it for the overlap (IDENTITY_LIMITS.rotationOverlapMs, 24 h), so a receiver
 * can switch secrets at its own pace. A second rotation within the overlap ends the first one's old secret.
 */
export async function rotateWebhookSecret(
  db: Kysely<Database>,
  caller: WebhookCaller,
  id: string,
  now: number = Date.now(),
  stream: WebhookStream = 'pay',
): Promise<{ id: string; secret: string }> {
  const secret = newWebhookSecret();
  const changed = affectedRows(
    await db
      .updateTable('webhook_subscriptions')
      .set((eb) => ({
        previous_secret: eb.ref('secret'),
        previous_secret_until: now + IDENTITY_LIMITS.rotationOverlapMs,
        secret,
        updated_at: now,
      }))
      .where('id', '=', id)
      .where('account', '=', caller.account)
      .where('stream', '=', stream)
      .executeTakeFirst(),
  );
  if (changed !== 1) throw new ApiError('WEBHOOK_NOT_FOUND', 'no such webhook on this account');
  return { id, secret };
}

/**
 * POST …/resume: only an auto-paused webhook resumes (a scope change needs a fresh registration with a new proof);
 * anything else is NOT_RESUMABLE. The dead-letter streak restarts from zero.
 */
export async function resumeWebhook(
  db: Kysely<Database>,
  caller: WebhookCaller,
  id: string,
  now: number = Date.now(),
  stream: WebhookStream = 'pay',
): Promise<Selectable<WebhookSubscriptionsTable>> {
  const changed = affectedRows(
    await db
      .updateTable('webhook_subscriptions')
      .set({ status: 'active', paused_reason: null, consecutive_dead: 0, updated_at: now })
      .where('id', '=', id)
      .where('account', '=', caller.account)
      .where('stream', '=', stream)
      .where('status', '=', 'paused')
      .where('paused_reason', 'like', `${AUTO_PAUSED_PREFIX}%`)
      .executeTakeFirst(),
  );
  const row = await ownRow(db, caller, id, stream); // WEBHOOK_NOT_FOUND for another account's id
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

/** DELETE /v1/pay/webhooks/{id}: removes it and its delivery log. */
export async function deleteWebhook(
  db: Kysely<Database>,
  caller: WebhookCaller,
  id: string,
  stream: WebhookStream = 'pay',
): Promise<void> {
  const removed = affectedRows(
    await db
      .deleteFrom('webhook_subscriptions')
      .where('id', '=', id)
      .where('account', '=', caller.account)
      .where('stream', '=', stream)
      .executeTakeFirst(),
  );
  if (removed !== 1) throw new ApiError('WEBHOOK_NOT_FOUND', 'no such webhook on this account');
}

/**
 * POST …/{id}/deliveries/{deliveryId}/redeliver: puts a delivered or dead delivery back in the queue as a fresh
 * delivery (attempts from zero, due now). A pending one is already queued: answered as is.
 */
export async function redeliver(
  db: Kysely<Database>,
  caller: WebhookCaller,
  id: string,
  deliveryId: string,
  now: number = Date.now(),
  stream: WebhookStream = 'pay',
): Promise<DeliveryRecord> {
  await ownRow(db, caller, id, stream);
  await db
    .updateTable('webhook_deliveries')
    .set(queuedDeliveryState(now))
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', id)
    .where('status', 'in', ['delivered', 'dead'])
    .execute();
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', id)
    .executeTakeFirst();
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
  caller: WebhookCaller,
  id: string,
  window: { since: number; until?: number },
  now: number = Date.now(),
  stream: WebhookStream = 'pay',
): Promise<{ requeued: number; pending: number }> {
  await ownRow(db, caller, id, stream);
  const until = window.until ?? now + 1;
  const inWindow = <Q extends { where: (...args: any[]) => Q }>(q: Q) =>
    q
      .where('webhook_id', '=', id)
      .where('created_at', '>=', window.since)
      .where('created_at', '<', until)
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

/** The signature test events of either stream carry: fixed, obviously fake, a valid shape. */
export const TEST_SIGNATURE = '1'.repeat(64);

/** The chain position a test event of either stream claims: slot 0, finalized, the fake signature. */
export function testEventChain(blockTime: string) {
  return {
    signature: TEST_SIGNATURE,
    ixIndex: 0,
    innerIndex: -1,
    slot: 0,
    blockTime,
    commitment: 'finalized' as const,
    finalized: true as const,
  };
}

/**
 * POST …/{id}/test: queues a signed test event (`test: true`, type payment.received, a sample payment to the
 * webhook's first wallet) through the normal delivery path. Answers the delivery record.
 */
export async function sendTestEvent(
  db: Kysely<Database>,
  caller: WebhookCaller,
  id: string,
  now: number = Date.now(),
): Promise<DeliveryRecord> {
  const row = await ownRow(db, caller, id);
  const wallet = (JSON.parse(row.wallets) as string[])[0]!;
  const eventId = PAY_EVENT_ID_PREFIX + randomBase58(32);
  const payload: PayEvent = {
    schema: PAY_EVENTS_SCHEMA,
    id: eventId,
    type: 'payment.received',
    notice: PAY_EVENT_NOTICE,
    test: true,
    chain: testEventChain(new Date(now).toISOString()),
    payment: {
      kind: 'transfer',
      payer: '11111111111111111111111111111111',
      recipient: wallet,
      recipientTokenAccount: null,
      asset: 'native',
      mint: null,
      amount: '1',
      fee: '0',
      net: '1',
      invoice: null,
      reference: null,
      references: [],
      memo: 'sigil test event',
      binding: { status: 'none', handles: [] },
    },
  };
  const delivery = newDeliveryRow(id, payload, true, now);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('pay_events')
      .values({
        id: eventId,
        type: payload.type,
        signature: TEST_SIGNATURE,
        slot: 0,
        ix_index: 0,
        inner_index: -1,
        wallet,
        binding_status: null,
        binding_checks: 0,
        payload: JSON.stringify(payload),
        test: 1,
        created_at: now,
      })
      .execute();
    await trx.insertInto('webhook_deliveries').values(delivery).execute();
  });
  return toDeliveryRecord(delivery);
}

// ---------------------------------------------------------------------------------------------------------
// The service: the verbs above over one db and one set of registration deps

export interface PayWebhooksServiceDeps extends WebhookServiceDeps {
  db: Kysely<Database>;
  /** Registration vets URLs with the loopback rule the delivery client applies: the composition root decides it. */
  allowLoopback: boolean;
  /** False when the deployment turned pay webhooks off (SIGIL_PAY_WEBHOOKS): every verb answers PAY_WEBHOOKS_DISABLED. */
  enabled: boolean;
  /** Told whenever a verb queued a delivery (test event, redeliver) so the delivery worker wakes. */
  queued: QueueSignal;
}

/** The pay webhook verbs; each delegates to the module function of the same rule above. */
export function createPayWebhooksService(deps: PayWebhooksServiceDeps) {
  const { db, queued } = deps;
  // The management functions default their clock to Date.now when given undefined.
  const now = () => deps.now?.();
  const on =
    <A extends unknown[], R>(verb: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      deps.enabled
        ? verb(...args)
        : Promise.reject(new ApiError('PAY_WEBHOOKS_DISABLED', 'pay webhooks are turned off on this deployment'));
  return {
    enabled: deps.enabled,
    queued,
    issueChallenge: on((caller: WebhookCaller, req: ParsedWebhookChallengeRequest) =>
      issueWebhookChallenge(db, deps, caller, req),
    ),
    register: on((caller: WebhookCaller, req: WebhookRegisterRequest) => registerWebhook(db, deps, caller, req)),
    list: on((caller: WebhookCaller) => listWebhooks(db, caller)),
    get: on((caller: WebhookCaller, id: string) => getWebhook(db, caller, id)),
    deliveries: on((caller: WebhookCaller, id: string, query?: { limit?: unknown }) =>
      listDeliveries(db, caller, id, query),
    ),
    rotateSecret: on((caller: WebhookCaller, id: string) => rotateWebhookSecret(db, caller, id, now())),
    resume: on(async (caller: WebhookCaller, id: string) => toWebhook(await resumeWebhook(db, caller, id, now()))),
    recover: on(async (caller: WebhookCaller, id: string, window: { since: number; until?: number }) => {
      const result = await recoverDeliveries(db, caller, id, window, now());
      if (result.requeued > 0) queued.notify();
      return result;
    }),
    remove: on((caller: WebhookCaller, id: string) => deleteWebhook(db, caller, id)),
    redeliver: on(async (caller: WebhookCaller, id: string, deliveryId: string): Promise<DeliveryRecord> => {
      const record = await redeliver(db, caller, id, deliveryId, now());
      queued.notify();
      return record;
    }),
    sendTest: on(async (caller: WebhookCaller, id: string): Promise<DeliveryRecord> => {
      const record = await sendTestEvent(db, caller, id, now());
      queued.notify();
      return record;
    }),
  };
}

export type PayWebhooksService = ReturnType<typeof createPayWebhooksService>;
