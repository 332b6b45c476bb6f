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

export interface Database {
  leases: LeasesTable;
  kv: KvTable;
}
