import type { Generated } from 'kysely';

/**
 * The database's shape as Kysely sees it. One interface per table, named `<Thing>Table`, columns in
 * snake_case exactly as the migrations create them.
 *
 * Portable column habits (see docs/data.md): booleans are 0/1 integers, times are integer epoch
 * milliseconds (bigint columns, read back as JS numbers on both dialects), JSON is text, big amounts are
 * decimal strings. A feature that adds tables declares them here in its own section and adds a migration
 * under ./migrations; the data layer owns the schema, features own their queries.
 */

// ── platform ────────────────────────────────────────────────────────────────────────────────────────

/** A named, expiring exclusive claim (e.g. "indexer"): see lease.ts. */
export interface LeasesTable {
  name: string;
  holder: string;
  /** epoch ms; the lease is free once `expires_at <= now`. */
  expires_at: number;
}

/** Small platform state that needs no table of its own (e.g. an indexer cursor). Value is text (JSON if structured). */
export interface KvTable {
  key: string;
  value: string;
  /** epoch ms */
  updated_at: number;
}

// ── keys ───────────────────────────────────────────────────────────────────────────────────────────

/** API keys (features/keys, docs/keys.md). The secret itself is never stored. */
export interface ApiKeysTable {
  /** `key_…` (time-sortable base58), or the portal domain for the portal's own key. */
  id: string;
  /** The owning wallet address (the portal key: its domain). */
  account: string;
  name: string | null;
  tier: 'free' | 'partner';
  /** hex SHA-256 of the secret; unique. */
  secret_hash: string;
  /** First characters of the secret, for display. */
  secret_prefix: string;
  /** epoch ms */
  created_at: number;
  /** epoch ms; null while active */
  revoked_at: number | null;
  /** epoch ms; written at most every 10 s per key */
  last_used_at: number | null;
}

// ── ratelimit ──────────────────────────────────────────────────────────────────────────────────────

/** Both fixed windows of one key (features/ratelimit, docs/rate-limits.md). PK key_id. */
export interface RateLimitsTable {
  key_id: string;
  /** epoch ms, start of the UTC minute the count belongs to */
  minute_start: number;
  minute_count: number;
  /** epoch ms, start of the UTC day the count belongs to */
  day_start: number;
  day_count: number;
  /**
   * What the keyed request's batched upsert added to both counts when it last wrote the row (default 0); read only by
   * that statement's own RETURNING (features/keys/admit.queries.ts), so other writers leave it as it was.
   */
  last_counted: Generated<number>;
}

// ── pay webhooks ───────────────────────────────────────────────────────────────────────────────────

/** A pay webhook (features/pay-webhooks, docs/webhooks.md). Times epoch ms; JSON columns are text. */
export interface WebhookSubscriptionsTable {
  /** `whsub_…` */
  id: string;
  /** The owning account: the registering API key's account. */
  account: string;
  /** The API key that registered it (named in the signed challenge). */
  key_id: string;
  scope_type: 'wallet' | 'name' | 'registry';
  /** The wallet address, `@name`, or `*` (registry-wide, identity stream only). */
  scope_value: string;
  /** Name scope: the Handle account. */
  handle_account: string | null;
  /** Name scope: the owner / NFT holder proven at registration. */
  authority_wallet: string | null;
  /** Name scope: the live verified payment address at registration, if any. */
  payment_wallet: string | null;
  /** JSON array of the proven wallets whose payments are delivered. */
  wallets: string;
  url: string;
  /** JSON array of concrete event types. */
  event_types: string;
  description: string | null;
  status: 'active' | 'paused';
  paused_reason: string | null;
  /** `whsec_…` — kept in clear: every delivery is signed with it (HMAC). */
  secret: string;
  consecutive_dead: number;
  /** Finalized slot at registration: earlier transactions never produce deliveries for it. */
  watch_from_slot: number;
  /** Per-webhook delivery rate window (epoch ms of the minute) and attempts started in it. */
  rate_window_start: number;
  rate_count: number;
  created_at: number;
  updated_at: number;
  /** Which event stream the webhook receives: the name its stream registers with the webhook engine (pay, identity). */
  stream: Generated<string>;
  /** Identity stream: events from this sequence on are delivered. */
  watch_from_sequence: number | null;
  /** After a rotation: the replaced secret, which still signs beside `secret` until previous_secret_until. */
  previous_secret: string | null;
  /** epoch ms */
  previous_secret_until: number | null;
}

/** A registration challenge: single use (used_at), 10 minutes. */
export interface WebhookChallengesTable {
  nonce: string;
  account: string;
  key_id: string;
  scope_type: 'wallet' | 'name';
  scope_value: string;
  wallet: string | null;
  url: string;
  event_types: string;
  description: string | null;
  message: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
  /** Set on a challenge for a new URL of this existing webhook (session routes); null on a registration's. */
  webhook_id: string | null;
}

/** One attempt to send a delivery (ids `whatt_…` sort by time). */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  /** 1-based since the delivery was last (re)queued. */
  attempt: number;
  /** epoch ms */
  attempted_at: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** JSON object of the request headers sent. */
  headers: string;
}

/** An indexed `sigil.pay-events/v1` payload; `id` (pev_) is the dedupe key. */
export interface PayEventsTable {
  id: string;
  type: string;
  signature: string;
  slot: number;
  ix_index: number;
  inner_index: number;
  /** The recipient of a payment / the payee of an invoice event. */
  wallet: string;
  binding_status: string | null;
  binding_checks: number;
  payload: string;
  test: number;
  created_at: number;
}

/** One event for one webhook; claimed by a delivery worker with a lease. */
export interface WebhookDeliveriesTable {
  /** `whdel_…` */
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'dead';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  response_ms: number | null;
  next_attempt_at: number | null;
  lease_holder: string | null;
  lease_expires_at: number | null;
  test: number;
  created_at: number;
  delivered_at: number | null;
}

/** Indexer progress per watched address (a wallet, or a token account owned by one). */
export interface IndexerCursorsTable {
  address: string;
  kind: 'wallet' | 'token';
  owner_wallet: string;
  /** Transactions before this slot are not indexed for this address. */
  start_slot: number;
  /** Newest signature processed (getSignaturesForAddress `until`). */
  last_signature: string | null;
  last_slot: number | null;
  updated_at: number;
}

/** What the indexer knows of an invoice (a closed invoice's account is gone: invoice.closed reads this). */
export interface PayInvoicesTable {
  address: string;
  payee: string;
  mint: string | null;
  amount: string;
  fee: string | null;
  /** Unix seconds as a decimal string. */
  expires_at: string;
  bound: number;
  handle_account: string | null;
  /** 0 open, 1 paid, 2 cancelled. */
  status: number;
  create_indexed: number;
  updated_at: number;
}

// ── connect ────────────────────────────────────────────────────────────────────────────────────────

/** A Connect challenge (features/connect, docs/connect.md). Single use: consumed by one conditional UPDATE. */
export interface ConnectChallengesTable {
  nonce: string;
  /** The presenting key's id (the portal key: the portal domain). */
  audience: string;
  kind: 'handle' | 'wallet';
  /** Canonical handle: the proved handle (kind handle) or the wallet's primary at issue time (reported only). */
  handle: string | null;
  /** kind handle: the handle's registration epoch, decimal. */
  epoch: string | null;
  /** The challenged wallet (kind wallet), null for a `{handle}` challenge. */
  wallet: string | null;
  mode: 'tx' | 'signin' | null;
  /** The exact string issued to sign (or the memo with mode tx, or '' for signin). */
  message: string;
  /** epoch ms */
  created_at: number;
  /** epoch ms */
  expires_at: number;
  used_at: number | null;
}

/** An issued Connect session (the JWT's jti): revocable before it expires. */
export interface ConnectSessionsTable {
  jti: string;
  audience: string;
  address: string;
  handle: string | null;
  source: 'owner' | 'nft-holder' | 'wallet';
  created_at: number;
  /** epoch ms */
  expires_at: number;
  revoked_at: number | null;
}

// ── x402 ───────────────────────────────────────────────────────────────────────────────────────────

/** A reference issued by an x402 challenge (features/x402, docs/x402.md). Never updated. */
export interface X402ReferencesTable {
  /** base58, 32 bytes */
  reference: string;
  /** hex SHA-256 of the canonical request */
  request_hash: string;
  /** the bound payer wallet */
  payer: string;
  /** server-side secret of the challenge; never sent */
  nonce: string;
  /** price class of the metered procedure (`resolve`, `reverse`, …) */
  route: string;
  /** quoted price, smallest units, decimal string */
  amount: string;
  /** epoch ms */
  issued_at: number;
  /** epoch ms (issued_at + 600 s) */
  expires_at: number;
}

/** A payment that bought a success. Unique by signature and by reference: inserting it is the consumption. */
export interface X402PaymentsTable {
  signature: string;
  reference: string;
  payer: string;
  amount: string;
  request_hash: string;
  /** epoch ms */
  consumed_at: number;
}

/** A facilitator-rail payment from its settlement on (migration 0009). */
export interface X402SettlementsTable {
  /** hex SHA-256 of the payment transaction's message */
  payment_key: string;
  request_hash: string;
  payer: string;
  amount: string;
  /** CAIP-2 */
  network: string;
  /** epoch ms */
  started_at: number;
  /** the settled transaction's signature, once known */
  transaction: string | null;
  /** epoch ms; set once, by the request the payment bought */
  served_at: number | null;
}

// ── search ─────────────────────────────────────────────────────────────────────────────────────────

/** The registry's live handles as the handle index worker last saw them (features/search, docs/search.md). */
export interface HandleIndexTable {
  /** Normalized handle name; byte-wise order on both dialects (the cursor and prefix ranges rely on it). */
  name: string;
  /** The Handle PDA. */
  account: string;
  /** The account's owner field. */
  owner: string;
  handle_type: number;
  /** 0/1: handle type 3, or a live `agent.manifest` text record. */
  agent: number;
  registered_slot: number;
  /** epoch ms of the row's last change */
  updated_at: number;
}

// ── gate ─────────────────────────────────────────────────────────────────────────────────────────────

/** A Gate policy (features/gate, docs/gate.md): its current version and that version's hash (the ETag). */
export interface GatePoliciesTable {
  /** `gpol_…` */
  id: string;
  /** The owning key's account. */
  account: string;
  name: string | null;
  version: number;
  /** hex SHA-256 of the canonical JSON of the current version. */
  hash: string;
  /** epoch ms */
  created_at: number;
  /** epoch ms: when the current version was written */
  updated_at: number;
}

/** Every version of a policy, kept: a check may name a past version. PK (policy_id, version). */
export interface GatePolicyVersionsTable {
  policy_id: string;
  version: number;
  hash: string;
  /** The canonical JSON (RFC 8785). */
  body: string;
  /** epoch ms */
  created_at: number;
}

// ── identity events ──────────────────────────────────────────────────────────────────────────────────

/** One identity-change event: `sequence` is deployment-wide, strictly increasing, allocated without gaps. */
export interface IdentityEventsTable {
  sequence: number;
  /** `iev_…`, derived from the chain position: the same change always gets the same id. */
  id: string;
  type: string;
  signature: string;
  slot: number;
  handle_name: string | null;
  /** The exact JSON body (deliveries send it, the log serves it). */
  payload: string;
  test: number;
  created_at: number;
}

/**
 * One wallet a webhook subscription watches (its `wallets`), kept with the subscription: inserted with it, rewritten
 * with a new proof of its scope (a new URL), removed with it (ON DELETE CASCADE). Matching a block is a lookup of its
 * addresses here, whatever the number of webhooks.
 */
export interface WebhookWatchedWalletsTable {
  wallet: string;
  subscription_id: string;
  stream: string;
  /** The subscription's watch_from_slot. */
  watch_from_slot: number;
}

export interface IdentityEventWalletsTable {
  wallet: string;
  sequence: number;
}

/** The identity indexer's one row: its cursor and the next sequence, moved together with the events they cover. */
export interface IdentityStreamTable {
  id: string;
  next_sequence: number;
  start_slot: number;
  last_signature: string | null;
  last_slot: number | null;
  updated_at: number;
}

export interface IdentityHandlesTable {
  account: string;
  name: string;
  /** null: released. */
  owner: string | null;
  tokenized: number;
  mint: string | null;
}

export interface IdentityRecordsTable {
  account: string;
  handle: string;
  kind: string;
  key: string;
  /** null: deleted. */
  value: string | null;
  verified: number;
}

export interface IdentityAttestationsTable {
  account: string;
  handle: string;
  issuer: string;
  platform: string;
  subject: string;
  expires_at: number;
  revoked: number;
}

export interface IdentityPrimariesTable {
  wallet: string;
  handle: string;
}

// ── usage history ──────────────────────────────────────────────────────────────────────────────────

/** Request counts per account, key, bucket and outcome (features/usage-history, docs/usage-history.md). */
export interface UsageHistoryTable {
  /** The key's account, or the paying wallet of an x402-paid call. */
  account: string;
  /** The key id; '' for a keyless (x402-paid) call. */
  key_id: string;
  resolution: 'minute' | 'hour';
  /** epoch ms, UTC-aligned to the resolution */
  bucket_start: number;
  outcome: 'served' | 'client_error' | 'rate_limited' | 'server_error' | 'paid';
  count: number;
}

export interface RequestLogTable {
  /** The key's account, or the paying wallet of an x402-paid call. */
  account: string;
  /** The key id; '' for a keyless (x402-paid) call. */
  key_id: string;
  /** epoch ms: when the answer was sent */
  at: number;
  request_id: string;
  method: string;
  /** the route template (`unmatched` for a 404) */
  route: string;
  status: number;
  latency_us: number;
}

// ── oidc ───────────────────────────────────────────────────────────────────────────────────────────

/** One stored model of the OpenID Connect library (features/oidc, docs/oidc.md). PK (model, id). */
export interface OidcPayloadsTable {
  model: string;
  id: string;
  /** The library's payload, JSON. */
  payload: string;
  grant_id: string | null;
  /** the client (key id) the model belongs to, when it names one; null for rows older than the column */
  client_id: string | null;
  uid: string | null;
  user_code: string | null;
  /** epoch ms; null: no expiry */
  expires_at: number | null;
  /** epoch ms; set once (codes, refresh tokens) */
  consumed_at: number | null;
}

/** An API key's OpenID Connect client registration (client_id = key id). PK key_id. */
export interface OidcClientsTable {
  key_id: string;
  client_type: 'confidential' | 'public';
  /** hex SHA-256 of the client secret; null for a public client */
  secret_hash: string | null;
  /** JSON array of URLs */
  redirect_uris: string;
  /** JSON array of URLs */
  post_logout_redirect_uris: string;
  /** space-separated scopes the client may ask for */
  scopes: string;
  backchannel_logout_uri: string | null;
  /** epoch ms */
  created_at: number;
  updated_at: number;
}

/** The Connect session a grant was signed in with. PK grant_id. */
export interface OidcLoginsTable {
  grant_id: string;
  session_jti: string;
  client_id: string;
  /** the signed-in wallet (`sub`) */
  address: string;
  /** the proof path (`amr` value) */
  amr: string;
  /** the browser session's `sid` for this client (back-channel logout); null until the library saves it */
  sid: string | null;
  /** epoch ms */
  expires_at: number;
  /** JSON `{handle, source, verified}` as the sign-in proved them; null for logins older than the column */
  claims: string | null;
}

export interface Database {
  leases: LeasesTable;
  kv: KvTable;
  api_keys: ApiKeysTable;
  rate_limits: RateLimitsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_challenges: WebhookChallengesTable;
  pay_events: PayEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_watched_wallets: WebhookWatchedWalletsTable;
  indexer_cursors: IndexerCursorsTable;
  pay_invoices: PayInvoicesTable;
  connect_challenges: ConnectChallengesTable;
  connect_sessions: ConnectSessionsTable;
  x402_references: X402ReferencesTable;
  x402_payments: X402PaymentsTable;
  x402_settlements: X402SettlementsTable;
  handle_index: HandleIndexTable;
  gate_policies: GatePoliciesTable;
  gate_policy_versions: GatePolicyVersionsTable;
  identity_events: IdentityEventsTable;
  identity_event_wallets: IdentityEventWalletsTable;
  identity_stream: IdentityStreamTable;
  identity_handles: IdentityHandlesTable;
  identity_records: IdentityRecordsTable;
  identity_attestations: IdentityAttestationsTable;
  identity_primaries: IdentityPrimariesTable;
  usage_history: UsageHistoryTable;
  oidc_payloads: OidcPayloadsTable;
  oidc_clients: OidcClientsTable;
  oidc_logins: OidcLoginsTable;
  request_log: RequestLogTable;
}
