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
