// Connect session rows: a session is valid only while its row exists, unrevoked. Queries only.
import type { Kysely, Selectable } from 'kysely';
import { affectedRows, withoutFsync, type ConnectSessionsTable, type Database } from '../../platform/db/index';

export type SessionRow = Selectable<ConnectSessionsTable>;

/** The row is the session's authority, so losing it on a power cut only refuses the token: no fsync. */
export async function insertSession(db: Kysely<Database>, row: SessionRow): Promise<void> {
  await withoutFsync(db, (conn) => conn.insertInto('connect_sessions').values(row).execute());
}

export function findSession(db: Kysely<Database>, jti: string): Promise<Omit<SessionRow, 'created_at'> | undefined> {
  return db
    .selectFrom('connect_sessions')
    .select(['jti', 'audience', 'address', 'handle', 'source', 'expires_at', 'revoked_at'])
    .where('jti', '=', jti)
    .executeTakeFirst();
}

/** Marks one session revoked at `at`; true when it was active. */
export async function revokeSessionRow(db: Kysely<Database>, jti: string, at: number): Promise<boolean> {
  return (await revokeSessionRowsIn(db, [jti], at)) === 1;
}

/** Marks each of these sessions revoked at `at` (those still active); how many were. */
export async function revokeSessionRowsIn(db: Kysely<Database>, jtis: readonly string[], at: number): Promise<number> {
  if (jtis.length === 0) return 0;
  const result = await db
    .updateTable('connect_sessions')
    .set({ revoked_at: at })
    .where('jti', 'in', jtis)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return affectedRows(result);
}

/** Marks every active session of `address` (only those through `audience`, when given) revoked; how many. */
export async function revokeSessionRowsOf(
  db: Kysely<Database>,
  address: string,
  audience: string | undefined,
  at: number,
): Promise<number> {
  let query = db
    .updateTable('connect_sessions')
    .set({ revoked_at: at })
    .where('address', '=', address)
    .where('revoked_at', 'is', null);
  if (audience !== undefined) query = query.where('audience', '=', audience);
  return affectedRows(await query.executeTakeFirst());
}

export async function deleteSessionsExpiredBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  const result = await db.deleteFrom('connect_sessions').where('expires_at', '<', cutoff).executeTakeFirst();
  return affectedRows(result);
}

/** The active sessions issued through `audience` (only `address`'s, when given), newest first, at most `limit`. */
export function listActiveSessions(
  db: Kysely<Database>,
  audience: string,
  address: string | undefined,
  now: number,
  limit: number,
): Promise<SessionRow[]> {
  let query = db
    .selectFrom('connect_sessions')
    .selectAll()
    .where('audience', '=', audience)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);
  if (address !== undefined) query = query.where('address', '=', address);
  return query.orderBy('created_at', 'desc').limit(limit).execute();
}
