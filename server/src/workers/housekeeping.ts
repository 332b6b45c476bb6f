// Housekeeping (node-cron): every few minutes, drop what can no longer matter — rate-limit windows older than the
// previous one, Connect challenges past their retention, sessions expired over a day ago, unpaid x402 references
// expired over a day ago (the grace keeps a late redeemer's answer REFERENCE_EXPIRED), facilitator settlements
// started over a day ago, usage history (minute rows after 48 h, hour rows after 35 days) and identity events past
// their retention, and the OpenID Connect provider's codes, tokens, sessions, grants and logins expired over a day
// ago. Each job is one DELETE by age, idempotent, so several replicas running it at once is harmless.
// Registered on the lifecycle.
import cron from 'node-cron';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/index';
import type { Lifecycle } from '../platform/lifecycle';
import type { Logger } from '../platform/log';
import type { ConnectService, SessionService } from '../features/connect/index';
import { deleteExpiredWindows } from '../features/ratelimit/index';
import { deleteExpiredUsage } from '../features/usage-history/index';
import { deleteExpiredReferences, deleteOldSettlements } from '../features/x402/index';
import { pruneIdentityLog } from '../features/identity-events/index';
import { deleteExpiredOidc } from '../features/oidc/index';

/** Unpaid x402 references are kept this long past their expiry, so a late redemption still reads as expired. */
export const X402_REFERENCE_GRACE_MS = 86_400_000;

/**
 * Facilitator-rail settlements are kept this long after they started (`deleteOldSettlements` in
 * features/x402/queries.ts says why it is safe).
 */
export const X402_SETTLEMENT_RETENTION_MS = 86_400_000;

/** Every 5 minutes, at second 17 (off the minute boundary, where rate windows turn over). */
export const HOUSEKEEPING_SCHEDULE = '17 */5 * * * *';

export interface HousekeepingDeps {
  db: Kysely<Database>;
  connect: Pick<ConnectService, 'deleteExpiredChallenges'>;
  sessions: Pick<SessionService, 'deleteExpired'>;
  log: Logger;
  /** When set, identity events older than this many days leave the log (docs/identity-events.md). */
  identityRetentionDays?: number;
}

/** One pass of every job; returns rows deleted per job. A failing job is logged and does not stop the others. */
export async function runHousekeeping(
  deps: HousekeepingDeps,
  now: number = Date.now(),
): Promise<Record<string, number>> {
  const jobs: Record<string, () => Promise<number>> = {
    rateWindows: () => deleteExpiredWindows(deps.db, now),
    connectChallenges: () => deps.connect.deleteExpiredChallenges(now),
    connectSessions: () => deps.sessions.deleteExpired(now),
    x402References: () => deleteExpiredReferences(deps.db, now - X402_REFERENCE_GRACE_MS),
    x402Settlements: () => deleteOldSettlements(deps.db, now - X402_SETTLEMENT_RETENTION_MS),
    ...(deps.identityRetentionDays === undefined
      ? {}
      : { identityEvents: () => pruneIdentityLog(deps.db, deps.identityRetentionDays!, now) }),
    usageHistory: () => deleteExpiredUsage(deps.db, now),
    oidcArtifacts: () => deleteExpiredOidc(deps.db, now),
  };
  const deleted: Record<string, number> = {};
  for (const [name, job] of Object.entries(jobs)) {
    try {
      deleted[name] = await job();
    } catch (err) {
      deps.log.error({ err, job: name }, 'housekeeping job failed');
    }
  }
  return deleted;
}

/** Schedules runHousekeeping and registers its stop on the lifecycle. */
export function startHousekeeping(deps: HousekeepingDeps & { lifecycle: Lifecycle; schedule?: string }): {
  stop(): Promise<void>;
} {
  const task = cron.schedule(
    deps.schedule ?? HOUSEKEEPING_SCHEDULE,
    async () => {
      const deleted = await runHousekeeping(deps);
      deps.log.debug({ deleted }, 'housekeeping');
    },
    { name: 'housekeeping', noOverlap: true },
  );
  const stop = async () => {
    await task.stop();
  };
  deps.lifecycle.onStop('housekeeping', stop);
  return { stop };
}
