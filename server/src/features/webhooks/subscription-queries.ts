// SQL of webhook subscriptions and registration challenges (tables webhook_subscriptions, webhook_challenges), for
// every stream: each query names the stream it acts on, so one stream's ids look missing to another's routes.
import { sql, type Kysely, type Selectable } from 'kysely';
import {
  affectedRows,
  dialectOf,
  type Database,
  type WebhookChallengesTable,
  type WebhookSubscriptionsTable,
} from '../../platform/db/index';

export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type ChallengeRow = Selectable<WebhookChallengesTable>;

/** One account's webhook `id` of one stream. */
export interface OwnedWebhook {
  account: string;
  id: string;
  stream: string;
}

// Postgres advisory-lock class for "one account's webhooks" (ASCII 'whks'); second int = hashtext(account).
const WEBHOOKS_LOCK_CLASS = 0x77686b73;

/** The account's webhooks of one stream. */
export async function countSubscriptions(db: Kysely<Database>, account: string, stream: string): Promise<number> {
  const { n } = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account', '=', account)
    .where('stream', '=', stream)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Inserts the row inside the caller's transaction and answers the account's count of that stream afterwards.
 * Postgres: an advisory lock per account serializes concurrent inserts, so the count is exact.
 */
export async function insertSubscriptionCounted(trx: Kysely<Database>, row: SubscriptionRow): Promise<number> {
  if (dialectOf(trx) === 'postgres')
    await sql`select pg_advisory_xact_lock(${WEBHOOKS_LOCK_CLASS}, hashtext(${row.account}))`.execute(trx);
  await trx.insertInto('webhook_subscriptions').values(row).execute();
  await insertWatchedWallets(trx, [row]);
  return countSubscriptions(trx, row.account, row.stream);
}

/** The watched-wallet index rows of these subscriptions (one per distinct wallet of each). */
async function insertWatchedWallets(trx: Kysely<Database>, rows: readonly SubscriptionRow[]): Promise<void> {
  const watched = rows.flatMap((row) =>
    [...new Set(JSON.parse(row.wallets) as string[])].map((wallet) => ({
      wallet,
      subscription_id: row.id,
      stream: row.stream,
      watch_from_slot: row.watch_from_slot,
    })),
  );
  for (let i = 0; i < watched.length; i += 500) {
    await trx
      .insertInto('webhook_watched_wallets')
      .values(watched.slice(i, i + 500))
      .execute();
  }
}

/**
 * Many subscriptions at once with their watched wallets, in one transaction and without the per-account cap
 * (fixtures and benchmarks seeding thousands of webhooks; the routes go through insertSubscriptionCounted).
 */
export async function insertSubscriptions(db: Kysely<Database>, rows: readonly SubscriptionRow[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto('webhook_subscriptions')
        .values(rows.slice(i, i + 500))
        .execute();
    }
    await insertWatchedWallets(trx, rows);
  });
}

export function selectOwnedSubscription(
  db: Kysely<Database>,
  owned: OwnedWebhook,
): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('id', '=', owned.id)
    .where('account', '=', owned.account)
    .where('stream', '=', owned.stream)
    .executeTakeFirst();
}

/** The account's webhooks of `stream`, oldest first. */
export function selectStreamSubscriptions(
  db: Kysely<Database>,
  account: string,
  stream: string,
): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('account', '=', account)
    .where('stream', '=', stream)
    .orderBy('id')
    .execute();
}

/** The new secret signs from now on; the replaced one keeps signing beside it until `previousUntil`. */
export async function rotateSubscriptionSecret(
  db: Kysely<Database>,
  owned: OwnedWebhook,
  change: { secret: string; previousUntil: number; now: number },
): Promise<number> {
  return affectedRows(
    await db
      .updateTable('webhook_subscriptions')
      .set((eb) => ({
        previous_secret: eb.ref('secret'),
        previous_secret_until: change.previousUntil,
        secret: change.secret,
        updated_at: change.now,
      }))
      .where('id', '=', owned.id)
      .where('account', '=', owned.account)
      .where('stream', '=', owned.stream)
      .executeTakeFirst(),
  );
}

/** Reactivates the webhook only when it was paused with a reason starting with `pausedPrefix`; rows changed. */
export async function resumePausedSubscription(
  db: Kysely<Database>,
  owned: OwnedWebhook,
  pausedPrefix: string,
  now: number,
): Promise<number> {
  return affectedRows(
    await db
      .updateTable('webhook_subscriptions')
      .set({ status: 'active', paused_reason: null, consecutive_dead: 0, updated_at: now })
      .where('id', '=', owned.id)
      .where('account', '=', owned.account)
      .where('stream', '=', owned.stream)
      .where('status', '=', 'paused')
      .where('paused_reason', 'like', `${pausedPrefix}%`)
      .executeTakeFirst(),
  );
}

/** Removes the webhook (its deliveries go with it: ON DELETE CASCADE); rows removed. */
export async function deleteSubscription(db: Kysely<Database>, owned: OwnedWebhook): Promise<number> {
  return affectedRows(
    await db
      .deleteFrom('webhook_subscriptions')
      .where('id', '=', owned.id)
      .where('account', '=', owned.account)
      .where('stream', '=', owned.stream)
      .executeTakeFirst(),
  );
}

export async function insertChallenge(db: Kysely<Database>, row: ChallengeRow): Promise<void> {
  await db.insertInto('webhook_challenges').values(row).execute();
}

/**
 * The key's challenge `nonce` if it is unused and unexpired at `at`, and issued for `webhookId` (a new URL of that
 * webhook) or, when null, for a registration.
 */
export function selectOpenChallenge(
  db: Kysely<Database>,
  owner: { keyId: string; account: string },
  nonce: string,
  at: number,
  webhookId: string | null = null,
): Promise<ChallengeRow | undefined> {
  return db
    .selectFrom('webhook_challenges')
    .selectAll()
    .where('nonce', '=', nonce)
    .where('webhook_id', webhookId === null ? 'is' : '=', webhookId)
    .where('key_id', '=', owner.keyId)
    .where('account', '=', owner.account)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
}

/** Marks the challenge used, if it still is open (one statement: a replayed or concurrent use changes 0 rows). */
export async function consumeChallenge(
  trx: Kysely<Database>,
  keyId: string,
  nonce: string,
  now: number,
): Promise<number> {
  return affectedRows(
    await trx
      .updateTable('webhook_challenges')
      .set({ used_at: now })
      .where('nonce', '=', nonce)
      .where('key_id', '=', keyId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst(),
  );
}

/** The fields an owner may change on a webhook without a new proof of its scope. */
export type SubscriptionChange = Partial<Pick<SubscriptionRow, 'url' | 'event_types' | 'description'>>;

/** What a proof of the scope establishes: the wallets it watches and who controls it. */
export type ProvenScope = Pick<SubscriptionRow, 'wallets' | 'handle_account' | 'authority_wallet' | 'payment_wallet'>;

/** Writes `change` on the webhook; rows changed. */
export async function updateSubscription(
  db: Kysely<Database>,
  owned: OwnedWebhook,
  change: SubscriptionChange,
  now: number,
): Promise<number> {
  return setSubscription(db, owned, change, now);
}

/**
 * Writes a freshly proven scope (and the url it was proven for) on the webhook inside the caller's transaction, and
 * makes its watched-wallet rows the new wallets in the same transaction: the indexer finds a webhook's payments only
 * through those rows, so a wallet proven here but missing there would lose its payments. Rows changed.
 */
export async function updateProvenSubscription(
  trx: Kysely<Database>,
  owned: OwnedWebhook,
  change: ProvenScope & { url: string },
  now: number,
): Promise<number> {
  // The row's update comes first: on Postgres it locks the row, so concurrent re-proofs rewrite the index in turn.
  if ((await setSubscription(trx, owned, change, now)) !== 1) return 0;
  await trx.deleteFrom('webhook_watched_wallets').where('subscription_id', '=', owned.id).execute();
  const row = await selectOwnedSubscription(trx, owned);
  if (row) await insertWatchedWallets(trx, [row]);
  return 1;
}

async function setSubscription(
  db: Kysely<Database>,
  owned: OwnedWebhook,
  change: SubscriptionChange & Partial<ProvenScope>,
  now: number,
): Promise<number> {
  return affectedRows(
    await db
      .updateTable('webhook_subscriptions')
      .set({ ...change, updated_at: now })
      .where('id', '=', owned.id)
      .where('account', '=', owned.account)
      .where('stream', '=', owned.stream)
      .executeTakeFirst(),
  );
}

/**
 * Pauses the webhook with `reason` when it is active or paused for a reason starting with one of `over` (the
 * owner's disable overrides an auto-pause, never a scope change); rows changed.
 */
export async function pauseSubscriptionFor(
  db: Kysely<Database>,
  owned: OwnedWebhook,
  pause: { reason: string; over: readonly string[]; now: number },
): Promise<number> {
  return affectedRows(
    await db
      .updateTable('webhook_subscriptions')
      .set({ status: 'paused', paused_reason: pause.reason, updated_at: pause.now })
      .where('id', '=', owned.id)
      .where('account', '=', owned.account)
      .where('stream', '=', owned.stream)
      .where((eb) =>
        eb.or([eb('status', '=', 'active'), ...pause.over.map((prefix) => eb('paused_reason', 'like', `${prefix}%`))]),
      )
      .executeTakeFirst(),
  );
}
