// Connect housekeeping: challenges are kept a while after expiry, then forgotten.
import { deleteChallengesExpiredBefore } from './challenge.queries';
import type { ConnectDeps } from './deps';

/** Consumed and expired challenges are kept this long after expiry (for support), then deleted by housekeeping. */
export const CHALLENGE_RETENTION_MS = 60 * 60 * 1000;

/** Deletes challenges expired more than CHALLENGE_RETENTION_MS before `at`; returns how many went. */
export function deleteExpiredChallenges(deps: ConnectDeps, at: number): Promise<number> {
  return deleteChallengesExpiredBefore(deps.db, at - CHALLENGE_RETENTION_MS);
}
