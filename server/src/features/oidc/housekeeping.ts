// Housekeeping of the provider's storage: codes, tokens, browser sessions, grants, interactions and the logins
// behind them are ignored once expired (adapter.ts), so deleting them is only about space; a day's grace keeps
// a just-expired row readable for a late log or support question, like Connect's sessions.
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/index';
import { deleteExpiredPayloads } from './queries';

/** Expired OIDC rows are kept this long past their expiry. */
export const OIDC_RETENTION_MS = 86_400_000;

/** Deletes the library's payload rows and the logins expired more than OIDC_RETENTION_MS before `now`. */
export function deleteExpiredOidc(db: Kysely<Database>, now: number = Date.now()): Promise<number> {
  return deleteExpiredPayloads(db, now - OIDC_RETENTION_MS);
}
