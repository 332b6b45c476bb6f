// Per-key rate limits: two fixed windows (the UTC minute and the UTC day), counters in the shared database so
// every replica sees the same numbers. docs/rate-limits.md explains the algorithm and why it is exact.
import type { Kysely, Transaction } from 'kysely';
import { TIER_LIMITS, type KeyTier, type WindowCounts } from '@sigil/contract/keys';
import { withoutFsync, type Database } from '../../platform/db/index';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export type WindowUnit = 'minute' | 'day';

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
  /** Counts `cost` units (a batch of 100 names costs 100) against the key's windows, all or nothing. */
  limit(keyId: string, tier: KeyTier, cost?: number, now?: number): Promise<RateLimitResult>;
}

/** The windows containing `now`: starts and ends, epoch ms, UTC-aligned (epoch ms has no leap seconds). */
export function windowsAt(now: number): { minute: number; day: number; minuteReset: number; dayReset: number } {
  const minute = now - (now % MINUTE_MS);
  const day = now - (now % DAY_MS);
  return { minute, day, minuteReset: minute + MINUTE_MS, dayReset: day + DAY_MS };
}

/** Thrown inside the transaction to roll back a window already counted when the other one refuses. */
class Refused extends Error {
  constructor(readonly unit: WindowUnit) {
    super(`refused by the ${unit} window`);
  }
}

/**
 * The database-backed limiter. Per request, ONE transaction:
 *   1. day:    INSERT (key,'day',start,cost) ON CONFLICT DO UPDATE SET count = count + cost WHERE count + cost <= dayLimit RETURNING count
 *   2. minute: the same with the minute window and limit
 * No row back = that window refused: throw, which rolls back (a request refused by the minute window does not
 * consume the day, and refused requests count nowhere). On Postgres the upsert locks the counter row until
 * commit and re-checks its WHERE against the latest committed count, so concurrent requests from any number of
 * processes serialize per key and exactly `limit` pass; rows are always locked day-then-minute, so two
 * requests cannot deadlock. On SQLite the first upsert takes the file's single write lock.
 */
export class DatabaseRateLimiter implements RateLimiter {
  constructor(private readonly db: Kysely<Database>) {}

  async limit(keyId: string, tier: KeyTier, cost = 1, now: number = Date.now()): Promise<RateLimitResult> {
    if (!Number.isSafeInteger(cost) || cost < 1) throw new RangeError(`rate limit cost must be a positive integer, got ${cost}`);
    const limits = TIER_LIMITS[tier];
    if (!limits) throw new RangeError(`unknown tier ${String(tier)}`);
    const windows = windowsAt(now);
    // A cost no window could ever admit needs no transaction (callers should cap batch sizes below the minute limit).
    if (cost > limits.day || cost > limits.minute) {
      return this.refused(keyId, limits, windows, now, cost > limits.day ? 'day' : 'minute');
    }
    try {
      // Counters may be lost on a power cut (the last moment's counts are forgotten), so no fsync per request:
      // on SQLite that fsync was most of a keyed request's cost (docs/data.md "Durability").
      const counts = await withoutFsync(this.db, (db) => db.transaction().execute(async (trx) => {
        const day = await countInto(trx, keyId, 'day', windows.day, cost, limits.day);
        if (day === undefined) throw new Refused('day');
        const minute = await countInto(trx, keyId, 'minute', windows.minute, cost, limits.minute);
        if (minute === undefined) throw new Refused('minute');
        return { day, minute };
      }));
      return {
        passed: true,
        minute: { limit: limits.minute, remaining: limits.minute - counts.minute, reset: windows.minuteReset },
        day: { limit: limits.day, remaining: limits.day - counts.day, reset: windows.dayReset },
      };
    } catch (error) {
      if (error instanceof Refused) return this.refused(keyId, limits, windows, now, error.unit);
      throw error;
    }
  }

  private async refused(
    keyId: string,
    limits: { minute: number; day: number },
    windows: ReturnType<typeof windowsAt>,
    now: number,
    deniedBy: WindowUnit,
  ): Promise<RateLimitResult> {
    const used = (await readUsage(this.db, [keyId], now)).get(keyId) ?? { minute: 0, day: 0 };
    const reset = deniedBy === 'day' ? windows.dayReset : windows.minuteReset;
    return {
      passed: false,
      minute: { limit: limits.minute, remaining: Math.max(0, limits.minute - used.minute), reset: windows.minuteReset },
      day: { limit: limits.day, remaining: Math.max(0, limits.day - used.day), reset: windows.dayReset },
      deniedBy,
      retryAfterSeconds: Math.max(1, Math.ceil((reset - now) / 1000)),
    };
  }
}

/** Adds `cost` to one window if it still fits under `limit`; the new count, or undefined when it does not fit. */
async function countInto(
  trx: Transaction<Database>,
  keyId: string,
  unit: WindowUnit,
  windowStart: number,
  cost: number,
  limit: number,
): Promise<number | undefined> {
  const row = await trx
    .insertInto('rate_counters')
    .values({ key_id: keyId, unit, window_start: windowStart, count: cost })
    .onConflict((oc) =>
      oc
        .columns(['key_id', 'unit', 'window_start'])
        .doUpdateSet((eb) => ({ count: eb('rate_counters.count', '+', cost) }))
        .where((eb) => eb(eb('rate_counters.count', '+', cost), '<=', limit)),
    )
    .returning('count')
    .executeTakeFirst();
  return row?.count;
}

export function createRateLimiter(db: Kysely<Database>): RateLimiter {
  return new DatabaseRateLimiter(db);
}

/**
 * The response headers every keyed response carries (integers, as strings), plus `Retry-After` on a refusal.
 * Minute window → X-RateLimit-Limit/-Remaining; UTC day → X-RateLimit-Daily-Limit/-Daily-Remaining.
 */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(result.minute.limit),
    'X-RateLimit-Remaining': String(result.minute.remaining),
    'X-RateLimit-Daily-Limit': String(result.day.limit),
    'X-RateLimit-Daily-Remaining': String(result.day.remaining),
  };
  if (!result.passed && result.retryAfterSeconds !== undefined) headers['Retry-After'] = String(result.retryAfterSeconds);
  return headers;
}

/** Counts in the windows containing `now`, per key (keys without traffic are absent: treat as zero). */
export async function readUsage(db: Kysely<Database>, keyIds: readonly string[], now: number = Date.now()): Promise<Map<string, WindowCounts>> {
  const usage = new Map<string, WindowCounts>();
  if (keyIds.length === 0) return usage;
  const windows = windowsAt(now);
  const rows = await db
    .selectFrom('rate_counters')
    .select(['key_id', 'unit', 'count'])
    .where('key_id', 'in', [...keyIds])
    .where((eb) =>
      eb.or([
        eb.and([eb('unit', '=', 'minute'), eb('window_start', '=', windows.minute)]),
        eb.and([eb('unit', '=', 'day'), eb('window_start', '=', windows.day)]),
      ]),
    )
    .execute();
  for (const row of rows) {
    const counts = usage.get(row.key_id) ?? { minute: 0, day: 0 };
    counts[row.unit] = row.count;
    usage.set(row.key_id, counts);
  }
  return usage;
}

/**
 * Housekeeping (the cron worker calls it, e.g. every few minutes): deletes minute windows older than the
 * previous minute and day windows older than yesterday. The previous window is kept so a replica whose clock
 * lags a little never recreates a row that was just deleted. Returns how many rows went.
 */
export async function deleteExpiredWindows(db: Kysely<Database>, now: number = Date.now()): Promise<number> {
  const windows = windowsAt(now);
  const result = await db
    .deleteFrom('rate_counters')
    .where((eb) =>
      eb.or([
        eb.and([eb('unit', '=', 'minute'), eb('window_start', '<', windows.minute - MINUTE_MS)]),
        eb.and([eb('unit', '=', 'day'), eb('window_start', '<', windows.day - DAY_MS)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
