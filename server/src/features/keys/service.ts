// API keys: create, list, revoke, authenticate, the portal's own key, and operator tier changes.
// Every function takes the db (or a transaction) first. docs/keys.md explains the choices.
import type { Kysely, Selectable } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import {
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  TIER_LIMITS,
  type ApiKeyView,
  type KeyTier,
  type ListKeysResponse,
  type UsageResponse,
} from '@sigil/contract/keys';
import { isBase58Address } from '@sigil/contract/names';
import type { ApiKeysTable, Database } from '../../platform/db/index';
import { passedWith, readUsage, refusalOf, usageOf, windowsAt, type RateLimitResult } from '../ratelimit/index';
import { admitByHash } from './admit.queries';
import {
  insertKeyCounted,
  markKeyRevoked,
  markKeyUsed,
  selectAccountKeys,
  selectKeyByHash,
  selectOwnKey,
  setKeyName,
  setKeyTierRow,
  upsertPortalKeyRow,
} from './queries';
import { prefixedId } from '../../platform/ids';
import { displayPrefix, generateSecret, hashSecret, looksLikeSecret, sameHash, weakSecretReason } from './secret';

/** A key as the server holds it: the owner's view plus its account. Never the secret, never the hash. */
export interface ApiKey extends ApiKeyView {
  account: string;
}

/** last_used_at is written at most this often per key (it is informational; see touchLastUsed). */
export const LAST_USED_RESOLUTION_MS = 10_000;

function toApiKey(row: Omit<Selectable<ApiKeysTable>, 'secret_hash'>): ApiKey {
  return {
    id: row.id,
    account: row.account,
    name: row.name,
    tier: row.tier,
    prefix: row.secret_prefix,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}

/** The owner's view (what the endpoints return): drops `account`. */
export function toKeyView(key: ApiKey): ApiKeyView {
  const { account: _account, ...view } = key;
  return view;
}

/**
 * Creates a `free` key for `account` (a wallet address) and returns it with its secret — the only time the
 * secret exists outside the caller's hands. Refuses with LIMIT_REACHED (409) once the account holds
 * MAX_ACTIVE_KEYS_PER_ACCOUNT active keys: each key has its own quota, so unlimited keys would mean
 * unlimited quota. The cap is exact under concurrency: insert first, then count, in one transaction (SQLite:
 * the insert takes the file's write lock; Postgres: an advisory lock per account serializes creators).
 */
export async function createKey(
  db: Kysely<Database>,
  input: { account: string; tier?: KeyTier; name?: string | null },
  now: number = Date.now(),
): Promise<{ key: ApiKey; secret: string }> {
  if (!isBase58Address(input.account)) throw new Error('createKey: account must be a wallet address');
  const secret = generateSecret();
  const row = {
    id: prefixedId('key_', now),
    account: input.account,
    name: input.name ?? null,
    tier: input.tier ?? 'free',
    secret_hash: hashSecret(secret),
    secret_prefix: displayPrefix(secret),
    created_at: now,
    revoked_at: null,
    last_used_at: null,
  } satisfies Selectable<ApiKeysTable>;
  await insertKeyCounted(db, row, (activeKeys) => {
    // Throwing rolls the insert back.
    if (activeKeys > MAX_ACTIVE_KEYS_PER_ACCOUNT) {
      throw new ApiError(
        'LIMIT_REACHED',
        `an account may hold at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoke one first`,
      );
    }
  });
  return { key: toApiKey(row), secret };
}

/** The account's keys, revoked ones included, newest first. */
export async function listKeys(db: Kysely<Database>, account: string): Promise<ApiKey[]> {
  const rows = await selectAccountKeys(db, account);
  return rows.map((r) => toApiKey(r));
}

/** One of the account's keys, or undefined (also when the key belongs to someone else). */
export async function getOwnKey(db: Kysely<Database>, account: string, keyId: string): Promise<ApiKey | undefined> {
  const row = await selectOwnKey(db, account, keyId);
  return row && toApiKey(row);
}

/**
 * Revokes one of the account's own keys. Returns the key (with its FIRST revocation time: revoking again is
 * idempotent), or null when there is no such key for this account — another account's key is "not found",
 * so ids cannot be probed. Effective at once everywhere: authenticateKey reads the row on every request.
 */
export async function revokeKey(
  db: Kysely<Database>,
  account: string,
  keyId: string,
  now: number = Date.now(),
): Promise<ApiKey | null> {
  await markKeyRevoked(db, account, keyId, now);
  return (await getOwnKey(db, account, keyId)) ?? null;
}

/** Relabels one of the account's own keys (null clears the label); null when there is no such key for this account. */
export async function renameKey(
  db: Kysely<Database>,
  account: string,
  keyId: string,
  name: string | null,
): Promise<ApiKey | null> {
  await setKeyName(db, account, keyId, name);
  return (await getOwnKey(db, account, keyId)) ?? null;
}

/**
 * The key a secret belongs to, or null (unknown, malformed or revoked — all answer 401 INVALID_KEY).
 * One indexed equality on SHA-256(secret); no cache, so a revocation is seen by the very next request on
 * every replica. The lookup is timing-safe because the attacker's input is hashed before any comparison
 * (docs/keys.md); the digest is compared again in constant time as a belt-and-braces check.
 */
export async function authenticateKey(db: Kysely<Database>, secret: string): Promise<ApiKey | null> {
  if (!looksLikeSecret(secret)) return null;
  const hash = hashSecret(secret);
  const row = await selectKeyByHash(db, hash);
  if (!row || !sameHash(row.secret_hash, hash) || row.revoked_at !== null) return null;
  return toApiKey(row);
}

/**
 * The key step of a keyed request (admit.queries.ts): the key a secret belongs to and this request counted against
 * its windows, in the one statement its turn's key steps share on Postgres (admit-batch.ts) and one group-committed
 * transaction on SQLite; answered as if it ran alone. Null exactly where authenticateKey answers null (nothing is
 * counted then).
 */
export async function admitKeyRequest(
  db: Kysely<Database>,
  secret: string,
  cost: number,
  now: number = Date.now(),
): Promise<{ key: ApiKey; result: RateLimitResult } | null> {
  if (!Number.isSafeInteger(cost) || cost < 1)
    throw new RangeError(`rate limit cost must be a positive integer, got ${cost}`);
  if (!looksLikeSecret(secret)) return null;
  const hash = hashSecret(secret);
  const row = await admitByHash(db, hash, cost, now);
  if (!row || !sameHash(row.key.secret_hash, hash) || row.key.revoked_at !== null) return null;
  const key = toApiKey(row.key);
  const limits = TIER_LIMITS[key.tier];
  if (!limits) throw new RangeError(`unknown tier ${String(key.tier)}`);
  if (row.counted_minute !== null && row.counted_day !== null) {
    return { key, result: passedWith(limits, now, { minute_count: row.counted_minute, day_count: row.counted_day }) };
  }
  const used = usageOf(
    row.used_minute_start === null
      ? undefined
      : {
          minute_start: row.used_minute_start,
          minute_count: row.used_minute_count!,
          day_start: row.used_day_start!,
          day_count: row.used_day_count!,
        },
    now,
  );
  // A cost no window could admit names its window, as the limiter does; otherwise the usage decides.
  const known = cost > limits.day ? 'day' : cost > limits.minute ? 'minute' : undefined;
  return { key, result: refusalOf(limits, now, cost, used, known) };
}

/**
 * Records use, cheaply: skips the write when the key (as just read by authenticateKey) was marked used less
 * than 10 s ago, and the UPDATE's own condition keeps concurrent requests and replicas from writing more than
 * once per window. Returns whether it wrote. Safe to call without awaiting the caller's response on it.
 */
export async function touchLastUsed(
  db: Kysely<Database>,
  key: Pick<ApiKey, 'id' | 'last_used_at'>,
  now: number = Date.now(),
): Promise<boolean> {
  const threshold = now - LAST_USED_RESOLUTION_MS;
  if (key.last_used_at !== null && key.last_used_at > threshold) return false;
  return markKeyUsed(db, key.id, threshold, now);
}

/** Operator action (docs/keys.md: `npm run key:partner -- <keyId>`). Returns false for an unknown id. */
export async function setKeyTier(db: Kysely<Database>, keyId: string, tier: KeyTier): Promise<boolean> {
  return setKeyTierRow(db, keyId, tier);
}

// ---------------------------------------------------------------------------------------------------------
// The portal's own key

const DOMAIN_PATTERN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::\d{1,5})?$/;

export interface PortalKey {
  key: ApiKey;
  /** The secret when it was generated by this call (print it once); null when it came from the environment or already existed. */
  generatedSecret: string | null;
}

/**
 * Makes sure the portal's own key exists. Its id (= Connect audience) and account are the portal domain
 * (never a wallet address, so no wallet can list or revoke it); its tier is always `partner`.
 * - `secret` given (SIGIL_PORTAL_KEY): the environment is the truth. The row is created or updated to that
 *   secret and un-revoked; changing the variable rotates the key (the old secret stops working as soon as one
 *   replica has started with the new one).
 * - no secret (local mode): the first start generates one and returns it in `generatedSecret` so main can
 *   print it once; later starts keep the stored key and return `generatedSecret: null`. `rotate: true`
 *   replaces it with a fresh generated secret (the `portal-rotate` operator command).
 * Safe when several replicas start at once (one upsert / one insert-if-absent).
 */
export async function ensurePortalKey(
  db: Kysely<Database>,
  options: { domain: string; secret?: string | null; rotate?: boolean },
  now: number = Date.now(),
): Promise<PortalKey> {
  const domain = options.domain.trim().toLowerCase();
  if (!DOMAIN_PATTERN.test(domain))
    throw new Error(
      `SIGIL_PORTAL_DOMAIN must be a host name (e.g. portal.sigil.local), got ${JSON.stringify(options.domain)}`,
    );
  const supplied = options.secret ? options.secret.trim() : '';
  if (supplied) {
    const weak = weakSecretReason(supplied);
    if (weak) throw new Error(`SIGIL_PORTAL_KEY ${weak}`);
  }
  const secret = supplied || generateSecret();
  const row = {
    id: domain,
    account: domain,
    name: 'portal',
    tier: 'partner' as const,
    secret_hash: hashSecret(secret),
    secret_prefix: displayPrefix(secret),
    created_at: now,
    revoked_at: null,
    last_used_at: null,
  };
  const overwrite = supplied !== '' || options.rotate === true;
  const { wrote, stored } = await upsertPortalKeyRow(db, row, overwrite);
  return { key: toApiKey(stored), generatedSecret: wrote && !supplied ? secret : null };
}

// ---------------------------------------------------------------------------------------------------------
// Views for the portal endpoints (keys + the limiter's counters)

/** `GET /v1/keys`: the account's keys with their counts for the current minute and UTC day. */
export async function listKeysWithUsage(
  db: Kysely<Database>,
  account: string,
  now: number = Date.now(),
): Promise<ListKeysResponse> {
  const keys = await listKeys(db, account);
  const usage = await readUsage(
    db,
    keys.map((k) => k.id),
    now,
  );
  return { keys: keys.map((k) => ({ ...toKeyView(k), usage: usage.get(k.id) ?? { minute: 0, day: 0 } })) };
}

/**
 * `GET /v1/usage`: per-key counts and limits, their sum, and the account's tier (partner if any active key is
 * partner). Limits apply to each key separately; the top-level `limits` are those of the account's tier.
 */
export async function accountUsage(
  db: Kysely<Database>,
  account: string,
  now: number = Date.now(),
): Promise<UsageResponse> {
  const keys = await listKeys(db, account);
  const usage = await readUsage(
    db,
    keys.map((k) => k.id),
    now,
  );
  const tier: KeyTier = keys.some((k) => k.revoked_at === null && k.tier === 'partner') ? 'partner' : 'free';
  const perKey = keys.map((k) => ({
    id: k.id,
    name: k.name,
    tier: k.tier,
    revoked_at: k.revoked_at,
    limits: { ...TIER_LIMITS[k.tier] },
    usage: usage.get(k.id) ?? { minute: 0, day: 0 },
  }));
  const windows = windowsAt(now);
  return {
    tier,
    limits: { ...TIER_LIMITS[tier] },
    usage: {
      minute: perKey.reduce((sum, k) => sum + k.usage.minute, 0),
      day: perKey.reduce((sum, k) => sum + k.usage.day, 0),
    },
    reset: { minute: windows.minuteReset, day: windows.dayReset },
    keys: perKey,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The service: the verbs above over one db

/** The keys verbs over one db; each delegates to the module function of the same rule above. */
export interface KeysService {
  create(
    input: { account: string; tier?: KeyTier; name?: string | null },
    now?: number,
  ): Promise<{ key: ApiKey; secret: string }>;
  listWithUsage(account: string, now?: number): Promise<ListKeysResponse>;
  own(account: string, keyId: string): Promise<ApiKey | undefined>;
  usage(account: string, now?: number): Promise<UsageResponse>;
  revoke(account: string, keyId: string, now?: number): Promise<ApiKey | null>;
  rename(account: string, keyId: string, name: string | null): Promise<ApiKey | null>;
  authenticate(secret: string): Promise<ApiKey | null>;
  /** The key step of a keyed request: the secret's key and this request counted (admitKeyRequest). */
  admit(secret: string, cost: number, now?: number): Promise<{ key: ApiKey; result: RateLimitResult } | null>;
  touch(key: Pick<ApiKey, 'id' | 'last_used_at'>, now?: number): Promise<boolean>;
  ensurePortalKey(
    options: { domain: string; secret?: string | null; rotate?: boolean },
    now?: number,
  ): Promise<PortalKey>;
}

export function createKeysService(deps: {
  db: Kysely<Database>;
  /**
   * After a key was revoked: what other features end with it (its OpenID Connect client's sign-ins). Runs after the
   * revocation, which no failure of it undoes: the route then answers 500, and revoking again runs it again.
   */
  onRevoked?: (keyId: string) => Promise<void>;
}): KeysService {
  const { db } = deps;
  return {
    create: (input, now) => createKey(db, input, now),
    listWithUsage: (account, now) => listKeysWithUsage(db, account, now),
    own: (account, keyId) => getOwnKey(db, account, keyId),
    usage: (account, now) => accountUsage(db, account, now),
    revoke: async (account, keyId, now) => {
      const key = await revokeKey(db, account, keyId, now);
      if (key) await deps.onRevoked?.(keyId);
      return key;
    },
    rename: (account, keyId, name) => renameKey(db, account, keyId, name),
    authenticate: (secret) => authenticateKey(db, secret),
    admit: (secret, cost, now) => admitKeyRequest(db, secret, cost, now),
    touch: (key, now) => touchLastUsed(db, key, now),
    ensurePortalKey: (options, now) => ensurePortalKey(db, options, now),
  };
}
