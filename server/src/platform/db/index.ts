// The data layer's public face. Features import from '@sigil/server/platform/db' (or this folder).
export { createDatabase, dialectOf, resolveDatabaseTarget, parseInt8, DEFAULT_SQLITE_FILE, SQLITE_BUSY_TIMEOUT_MS } from './connect';
export type { Dialect, DatabaseHandle, DatabaseOptions, DatabaseTarget } from './connect';
export { migrateToLatest } from './migrate';
export type { MigrateOptions } from './migrate';
export { acquireLease, renewLease, releaseLease, currentLease } from './lease';
export { affectedRows } from './rows';
export type * from './schema';
