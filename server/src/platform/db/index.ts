// The data layer's public face: import from here ('…/platform/db/index'), not from the files behind it.
export {
  createDatabase,
  dialectOf,
  pingDatabase,
  resolveDatabaseTarget,
  parseInt8,
  DEFAULT_SQLITE_FILE,
} from './connect';
export type { Dialect, DatabaseHandle, DatabaseOptions } from './connect';
export { migrateToLatest } from './migrate';
export { acquireLease, renewLease, releaseLease, currentLease } from './lease';
export { affectedRows } from './rows';
export { prepared, type Slots } from './prepared';
export { executeServerPrepared } from './server-prepared';
export { createDurabilityBarrier, withoutFsync, withoutFsyncTogether } from './durability';
export { durableNative, nativeStatement, withoutFsyncNative, type NativeQuery } from './native';
export { ensureKv, readKv, writeKv } from './kv';
export type * from './schema';
export { perTurn, turnBatch, type TurnBatch } from './turn-batch';
