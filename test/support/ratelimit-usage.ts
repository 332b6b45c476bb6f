// Tests only: sets a key's counts in the current windows directly in the limiter's table (e.g. "the day is
// used up"), so a test can reach a limit without sending thousands of requests.
import type { Kysely } from 'kysely';
import type { Database } from '../../server/src/platform/db/index';
import { windowsAt } from '../../server/src/features/ratelimit/service';

export async function setUsage(
  db: Kysely<Database>,
  keyId: string,
  counts: { minute?: number; day?: number },
  now: number = Date.now(),
): Promise<void> {
  const windows = windowsAt(now);
  const row = {
    minute_start: windows.minute,
    minute_count: counts.minute ?? 0,
    day_start: windows.day,
    day_count: counts.day ?? 0,
  };
  await db
    .insertInto('rate_limits')
    .values({ key_id: keyId, ...row })
    .onConflict((oc) => oc.column('key_id').doUpdateSet(row))
    .execute();
}

/**
 * Waits out the last `marginMs` of a UTC minute, so a test that reads the minute window over several requests (or
 * sets a count with `setUsage`, then sends one) does not see the window turn over between them: the minute windows
 * are fixed, and a test that straddles two sees a fresh count halfway.
 */
export async function awayFromMinuteEdge(marginMs = 15_000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - marginMs) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
}
