// Per-key rate limits: two fixed windows (the UTC minute and the UTC day), counters in the shared database so
// every replica sees the same numbers. docs/rate-limits.md explains the algorithm and why it is exact.
import type { Kysely } from 'kysely';
import { RATE_LIMIT_HEADERS, RETRY_AFTER_HEADER } from '@sigil/contract/http-headers';
import { TIER_LIMITS, type KeyTier, type WindowCounts } from '@sigil/contract/keys';
import type { Database } from '../../platform/db/index';
import { countInWindows, deleteWindowsBefore, selectWindows } from './queries';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export type WindowUnit = 'minute' | 'day';

/** The two windows' limits. */
export interface WindowLimits {
  minute: number;
  day: number;
}

export interface WindowState {
  limit: number;
  /** What is left in this window after this request (0 when refused for lack of room). */
  remaining: number;
  /** When this window ends: epoch ms (the next UTC minute / the next UTC midnight). */
  reset: number;
}

export interface RateLimitResult {
  passed: boolean;
  minute: WindowState;
  day: WindowState;
  /** Refused only: the window that refused (the day wins when both would). */
  deniedBy?: WindowUnit;
  /** Refused only: whole seconds until that window resets (≥ 1). The 429's `Retry-After`. */
  retryAfterSeconds?: number;
}

/** The small interface procedures depend on (a fake can stand in for it in tests). */
export interface RateLimiter {
  /**
   * Counts `cost` units (a batch of 100 names costs 100) against the key's windows, all or nothing. `tier` names a
   * key tier's limits, or gives the limits of a keyless caller (a client address: `ip:<address>`-style keys).
   */
  limit(keyId: string, tier: KeyTier | WindowLimits, cost?: number, now?: number): Promise<RateLimitResult>;
}

/** The windows containing `now`: starts and ends, epoch ms, UTC-aligned (epoch ms has no leap seconds). */
export function windowsAt(now: number): { minute: number; day: number; minuteReset: number; dayReset: number } {
  const minute = now - (now % MINUTE_MS);
  const day = now - (now % DAY_MS);
  return { minute, day, minuteReset: minute + MINUTE_MS, dayReset: day + DAY_MS };
}

/**
 * The database-backed limiter: per request ONE atomic upsert on the key's row, which holds both windows
 * (queries.ts `countInWindows`; docs/rate-limits.md shows it in full):
 *   INSERT (key, minuteStart, cost, dayStart, cost) ON CONFLICT (key) DO UPDATE SET <each window: same window →
 *   count + cost; a newer window → cost> WHERE <both new counts fit> RETURNING minute_count, day_count
 * No row back = a window refused, and nothing was counted anywhere (refused requests count nowhere; a request
 * refused by the minute does not consume the day). On Postgres the conflict path locks the row and evaluates
 * the WHERE against the latest committed version, so concurrent requests for one key from any number of
 * processes serialize on it and exactly `limit` pass; on SQLite the statement holds the file's single write lock.
 * A stored window NEWER than the request's (a replica whose clock lags) is kept and counted into, never reset.
 */
export function createRateLimiter(db: Kysely<Database>): RateLimiter {
  const used = async (keyId: string, now: number): Promise<WindowCounts> =>
    (await readUsage(db, [keyId], now)).get(keyId) ?? { minute: 0, day: 0 };
  return {
    async limit(keyId, tier, cost = 1, now = Date.now()) {
      if (!Number.isSafeInteger(cost) || cost < 1)
        throw new RangeError(`rate limit cost must be a positive integer, got ${cost}`);
      const limits = typeof tier === 'string' ? TIER_LIMITS[tier] : tier;
      if (!limits) throw new RangeError(`unknown tier ${String(tier)}`);
      // A cost no window could ever admit needs no statement (callers should cap batch sizes below the minute limit).
      if (cost > limits.day || cost > limits.minute) {
        return refusalOf(limits, now, cost, await used(keyId, now), cost > limits.day ? 'day' : 'minute');
      }
      const counts = await countInWindows(db, keyId, windowsAt(now), cost, limits);
      if (!counts) return refusalOf(limits, now, cost, await used(keyId, now));
      return passedWith(limits, now, counts);
    },
  };
}

/** A counted request: what is left in each window after it. */
export function passedWith(
  limits: { minute: number; day: number },
  now: number,
  counts: { minute_count: number; day_count: number },
): RateLimitResult {
  const windows = windowsAt(now);
  return {
    passed: true,
    minute: {
      limit: limits.minute,
      remaining: limits.minute - Number(counts.minute_count),
      reset: windows.minuteReset,
    },
    day: { limit: limits.day, remaining: limits.day - Number(counts.day_count), reset: windows.dayReset },
  };
}

/** The refusal: current usage for the headers, and which window refused (the day wins when both would). */
export function refusalOf(
  limits: { minute: number; day: number },
  now: number,
  cost: number,
  used: WindowCounts,
  known?: WindowUnit,
): RateLimitResult {
  const windows = windowsAt(now);
  const deniedBy = known ?? (used.day + cost > limits.day ? 'day' : 'minute');
  const reset = deniedBy === 'day' ? windows.dayReset : windows.minuteReset;
  return {
    passed: false,
    minute: { limit: limits.minute, remaining: Math.max(0, limits.minute - used.minute), reset: windows.minuteReset },
    day: { limit: limits.day, remaining: Math.max(0, limits.day - used.day), reset: windows.dayReset },
    deniedBy,
    retryAfterSeconds: Math.max(1, Math.ceil((reset - now) / 1000)),
  };
}

/** A stored row's counts as of `now` (a window that has ended counts 0; a newer one counts, see readUsage). */
export function usageOf(
  row: { minute_start: number; minute_count: number; day_start: number; day_count: number } | undefined,
  now: number,
): WindowCounts {
  if (!row) return { minute: 0, day: 0 };
  const windows = windowsAt(now);
  return {
    minute: Number(row.minute_start) >= windows.minute ? Number(row.minute_count) : 0,
    day: Number(row.day_start) >= windows.day ? Number(row.day_count) : 0,
  };
}

/**
 * The response headers every keyed response carries (integers, as strings), plus `Retry-After` on a refusal.
 * Minute window → X-RateLimit-Limit/-Remaining; UTC day → X-RateLimit-Daily-Limit/-Daily-Remaining.
 */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    [RATE_LIMIT_HEADERS.limit]: String(result.minute.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(result.minute.remaining),
    [RATE_LIMIT_HEADERS.dailyLimit]: String(result.day.limit),
    [RATE_LIMIT_HEADERS.dailyRemaining]: String(result.day.remaining),
  };
  if (!result.passed && result.retryAfterSeconds !== undefined)
    headers[RETRY_AFTER_HEADER] = String(result.retryAfterSeconds);
  return headers;
}

/**
 * Counts in the windows containing `now`, per key (keys without traffic are absent: treat as zero). A stored
 * window newer than `now`'s (another replica's clock runs ahead) counts as current, as the limiter treats it.
 */
export async function readUsage(
  db: Kysely<Database>,
  keyIds: readonly string[],
  now: number = Date.now(),
): Promise<Map<string, WindowCounts>> {
  const usage = new Map<string, WindowCounts>();
  if (keyIds.length === 0) return usage;
  const rows = await selectWindows(db, keyIds);
  for (const row of rows) {
    const counts = usageOf(row, now);
    if (counts.minute > 0 || counts.day > 0) usage.set(row.key_id, counts);
  }
  return usage;
}

/**
 * Housekeeping (the cron worker calls it, e.g. every few minutes): deletes the rows of keys with no traffic since
 * before yesterday (their counts can no longer matter; a missing row is zero usage). Yesterday's rows are kept
 * so a replica whose clock lags a little never recreates a row that was just deleted. Returns how many went.
 */
export async function deleteExpiredWindows(db: Kysely<Database>, now: number = Date.now()): Promise<number> {
  return deleteWindowsBefore(db, windowsAt(now).day - DAY_MS);
}
