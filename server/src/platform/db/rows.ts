import type { DeleteResult, InsertResult, UpdateResult } from 'kysely';

/**
 * How many rows a write changed, as a number (Kysely reports bigint, and insert counts are optional).
 * This is what decides "consume once": the one caller whose
 *   UPDATE t SET used_at = :now WHERE id = :id AND used_at IS NULL
 * changed 1 row won; every other caller changed 0. Never read-then-write (see docs/data.md).
 */
export function affectedRows(result: UpdateResult | DeleteResult | InsertResult | undefined): number {
  if (result === undefined) return 0;
  if ('numUpdatedRows' in result) return Number(result.numUpdatedRows);
  if ('numDeletedRows' in result) return Number(result.numDeletedRows);
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}
