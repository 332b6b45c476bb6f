// Connect challenge rows: insert, find, consume once, forget. Queries only; the verbs decide what they mean.
import type { Kysely } from 'kysely';
import { affectedRows, withoutFsync, type Database } from '../../platform/db/index';
import type { ChallengeRow } from './deps';

/** Lost on a power cut, a challenge row only refuses (CHALLENGE_NOT_FOUND): no fsync. The consume stays FULL. */
export async function insertChallenge(db: Kysely<Database>, row: ChallengeRow): Promise<void> {
  await withoutFsync(db, (conn) => conn.insertInto('connect_challenges').values(row).execute());
}

export function findChallenge(db: Kysely<Database>, nonce: string): Promise<ChallengeRow | undefined> {
  return db.selectFrom('connect_challenges').selectAll().where('nonce', '=', nonce).executeTakeFirst();
}

/**
 * Marks the challenge used if it is still unused and unexpired at `at`: ONE conditional UPDATE, true for the one
 * caller whose update changed the row. It commits without its own fsync: the caller waits for the durability
 * barrier before acting on the win.
 */
export async function consumeChallenge(db: Kysely<Database>, nonce: string, at: number): Promise<boolean> {
  const result = await withoutFsync(db, (conn) =>
    conn
      .updateTable('connect_challenges')
      .set({ used_at: at })
      .where('nonce', '=', nonce)
      .where('used_at', 'is', null)
      .where('expires_at', '>', at)
      .executeTakeFirst(),
  );
  return affectedRows(result) === 1;
}

/** Deletes challenges that expired before `cutoff`; returns how many went. */
export async function deleteChallengesExpiredBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  const result = await db.deleteFrom('connect_challenges').where('expires_at', '<', cutoff).executeTakeFirst();
  return affectedRows(result);
}
