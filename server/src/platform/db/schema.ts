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

/** Fixed-window counters (features/ratelimit, docs/rate-limits.md). PK (key_id, unit, window_start). */
export interface RateCountersTable {
  key_id: string;
  unit: 'minute' | 'day';
  /** epoch ms, start of the UTC minute / UTC day */
  window_start: number;
  count: number;
}

export interface Database {
  leases: LeasesTable;
  kv: KvTable;
  api_keys: ApiKeysTable;
  rate_counters: RateCountersTable;
}
