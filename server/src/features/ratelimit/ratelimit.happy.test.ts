import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { createRateLimiter, deleteExpiredWindows, rateLimitHeaders, readUsage } from './service';

// 2030-01-15T12:30:20.250Z: mid-minute, so a test's calls never straddle a window by accident.
const NOW = Date.UTC(2030, 0, 15, 12, 30, 20, 250);
const MIDNIGHT = Date.UTC(2030, 0, 16);
const keyId = () => `key_test${randomBytes(6).toString('hex')}`;

describeEachDialect('rate limiter', (ctx) => {
  it('counts a first request and reports literal headers', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    const result = await limiter.limit(key, 'free', 1, NOW);
    expect(result).toStrictEqual({
      passed: true,
      minute: { limit: 300, remaining: 299, reset: Date.UTC(2030, 0, 15, 12, 31) },
      day: { limit: 15000, remaining: 14999, reset: MIDNIGHT },
    });
    expect(rateLimitHeaders(result)).toStrictEqual({
      'X-RateLimit-Limit': '300',
      'X-RateLimit-Remaining': '299',
      'X-RateLimit-Daily-Limit': '15000',
      'X-RateLimit-Daily-Remaining': '14999',
    });
    const partner = await limiter.limit(keyId(), 'partner', 1, NOW);
    expect(rateLimitHeaders(partner)).toStrictEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '999',
      'X-RateLimit-Daily-Limit': '100000',
      'X-RateLimit-Daily-Remaining': '99999',
    });
  });

  it('refuses the 301st request of a minute with Retry-After to the next minute, and does not count it', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    for (let i = 0; i < 3; i++) expect((await limiter.limit(key, 'free', 100, NOW)).passed).toBe(true);
    const refused = await limiter.limit(key, 'free', 1, NOW);
    expect(refused).toStrictEqual({
      passed: false,
      minute: { limit: 300, remaining: 0, reset: Date.UTC(2030, 0, 15, 12, 31) },
      day: { limit: 15000, remaining: 14700, reset: MIDNIGHT },
      deniedBy: 'minute',
      retryAfterSeconds: 40, // 12:30:20.250 → 12:31:00 is 39.75 s, rounded up
    });
    expect(rateLimitHeaders(refused)).toStrictEqual({
      'X-RateLimit-Limit': '300',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Daily-Limit': '15000',
      'X-RateLimit-Daily-Remaining': '14700',
      'Retry-After': '40',
    });
    // Refused requests count nowhere: neither window moved.
    expect((await readUsage(ctx.db, [key], NOW)).get(key)).toStrictEqual({ minute: 300, day: 300 });
  });

  it('charges a batch all-or-nothing: a cost that does not fit is refused, a smaller one still passes', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    expect((await limiter.limit(key, 'free', 250, NOW)).minute.remaining).toBe(50);
    const tooBig = await limiter.limit(key, 'free', 100, NOW);
    expect(tooBig.passed).toBe(false);
    expect(tooBig.minute.remaining).toBe(50);
    const fits = await limiter.limit(key, 'free', 50, NOW);
    expect(fits.passed).toBe(true);
    expect(fits.minute.remaining).toBe(0);
    expect(fits.day.remaining).toBe(14700);
    // A cost no window can ever admit is refused without touching the counters.
    const impossible = await limiter.limit(keyId(), 'free', 301, NOW);
    expect(impossible).toMatchObject({
      passed: false,
      deniedBy: 'minute',
      minute: { remaining: 300 },
      day: { remaining: 15000 },
    });
  });

  it('resets the minute window on the next UTC minute while the day keeps counting', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    expect((await limiter.limit(key, 'free', 300, NOW)).passed).toBe(true);
    expect((await limiter.limit(key, 'free', 1, Date.UTC(2030, 0, 15, 12, 30, 59, 999))).passed).toBe(false);
    const next = await limiter.limit(key, 'free', 1, Date.UTC(2030, 0, 15, 12, 31));
    expect(next).toMatchObject({ passed: true, minute: { remaining: 299 }, day: { remaining: 14699 } });
  });

  it('enforces the day limit independently, and a request the day refuses does not consume the minute', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    // 50 different minutes × 300 = 15,000: the whole day, without ever exceeding a minute window.
    for (let m = 0; m < 50; m++) {
      const at = Date.UTC(2030, 0, 15, 10, m, 5);
      expect((await limiter.limit(key, 'free', 300, at)).passed, `minute ${m}`).toBe(true);
    }
    const refused = await limiter.limit(key, 'free', 1, NOW);
    expect(refused).toStrictEqual({
      passed: false,
      minute: { limit: 300, remaining: 300, reset: Date.UTC(2030, 0, 15, 12, 31) },
      day: { limit: 15000, remaining: 0, reset: MIDNIGHT },
      deniedBy: 'day',
      retryAfterSeconds: 41380, // 12:30:20.250 → midnight = 41,379.75 s
    });
    expect((await readUsage(ctx.db, [key], NOW)).get(key)).toStrictEqual({ minute: 0, day: 15000 });
    // The next UTC day starts from zero.
    expect((await limiter.limit(key, 'free', 1, MIDNIGHT)).day.remaining).toBe(14999);
  });

  it('keeps keys separate', async () => {
    const limiter = createRateLimiter(ctx.db);
    const [a, b] = [keyId(), keyId()];
    await limiter.limit(a, 'free', 300, NOW);
    expect((await limiter.limit(a, 'free', 1, NOW)).passed).toBe(false);
    expect((await limiter.limit(b, 'free', 1, NOW)).passed).toBe(true);
  });

  it('rejects a non-positive or fractional cost loudly', async () => {
    const limiter = createRateLimiter(ctx.db);
    await expect(limiter.limit(keyId(), 'free', 0, NOW)).rejects.toThrow(RangeError);
    await expect(limiter.limit(keyId(), 'free', 1.5, NOW)).rejects.toThrow(RangeError);
    await expect(limiter.limit(keyId(), 'free', -3, NOW)).rejects.toThrow(RangeError);
  });

  it('reads usage for the current windows only, and housekeeping deletes keys idle since before yesterday', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    const yesterday = Date.UTC(2030, 0, 14, 23, 59, 30);
    await limiter.limit(key, 'free', 7, yesterday);
    await limiter.limit(key, 'free', 2, Date.UTC(2030, 0, 15, 12, 28, 1)); // two minutes before NOW's minute
    await limiter.limit(key, 'free', 3, Date.UTC(2030, 0, 15, 12, 29, 1)); // the previous minute
    await limiter.limit(key, 'free', 4, NOW);
    expect((await readUsage(ctx.db, [key, 'key_never_used'], NOW)).get(key)).toStrictEqual({ minute: 4, day: 9 });
    expect((await readUsage(ctx.db, [key, 'key_never_used'], NOW)).has('key_never_used')).toBe(false);
    // A minute later nothing was counted in the new minute; the day still holds.
    expect((await readUsage(ctx.db, [key], NOW + 60_000)).get(key)).toStrictEqual({ minute: 0, day: 9 });

    const mine = () => ctx.db.selectFrom('rate_limits').selectAll().where('key_id', '=', key).execute();
    expect(await mine()).toStrictEqual([
      {
        key_id: key,
        minute_start: Date.UTC(2030, 0, 15, 12, 30),
        minute_count: 4,
        day_start: Date.UTC(2030, 0, 15),
        day_count: 9,
        // Written by the keyed request's batched upsert only (keys/admit.queries.ts); the limiter leaves it.
        last_counted: 0,
      },
    ]);
    await deleteExpiredWindows(ctx.db, NOW);
    await deleteExpiredWindows(ctx.db, Date.UTC(2030, 0, 16, 0, 5)); // the next day: yesterday's row is kept
    expect(await mine()).toHaveLength(1);
    // Two days later the idle key's row is gone, and a missing row is zero usage.
    expect(await deleteExpiredWindows(ctx.db, Date.UTC(2030, 0, 17, 0, 5))).toBeGreaterThanOrEqual(1);
    expect(await mine()).toStrictEqual([]);
    expect((await readUsage(ctx.db, [key], Date.UTC(2030, 0, 17, 0, 5))).has(key)).toBe(false);
  });

  it('a replica whose clock lags counts into the newer stored window instead of resetting it', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    await limiter.limit(key, 'free', 299, NOW + 60_000); // a replica already in the next minute
    const lagging = await limiter.limit(key, 'free', 1, NOW); // this one still in NOW's minute
    expect(lagging.passed).toBe(true);
    expect(lagging.minute.remaining).toBe(0); // 300 counted in the newer minute, not 1 in a reset one
    const refused = await limiter.limit(key, 'free', 1, NOW);
    expect(refused).toMatchObject({ passed: false, deniedBy: 'minute', minute: { remaining: 0 } });
    expect((await readUsage(ctx.db, [key], NOW + 60_000)).get(key)).toStrictEqual({ minute: 300, day: 300 });
  });
});
