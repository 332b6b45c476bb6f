// Exactness under real concurrency: in one process (the Postgres pool runs 10 transactions at once; on SQLite
// Kysely interleaves callers between statements), and between OS processes sharing the database.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { runTogether } from '@sigil/test/support/db-children';
import { createRateLimiter, readUsage, windowsAt } from './service';
import type { LimitJob } from '@sigil/test/support/ratelimit-child';
import { setUsage } from '@sigil/test/support/ratelimit-usage';

const NOW = Date.UTC(2030, 0, 15, 12, 30, 20, 250);
const CHILD = fileURLToPath(import.meta.resolve('@sigil/test/support/ratelimit-child'));
const keyId = () => `key_race${randomBytes(6).toString('hex')}`;

describeEachDialect('rate limiter under concurrency', (ctx) => {
  it('admits exactly the minute limit out of 3× as many concurrent requests (free: 300 of 900)', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    const results = await Promise.all(Array.from({ length: 900 }, () => limiter.limit(key, 'free', 1, NOW)));
    expect(results.filter((r) => r.passed)).toHaveLength(300);
    expect((await readUsage(ctx.db, [key], NOW)).get(key)).toStrictEqual({ minute: 300, day: 300 });
    // Every admitted request saw a distinct remaining value: 299 … 0.
    const remaining = results
      .filter((r) => r.passed)
      .map((r) => r.minute.remaining)
      .sort((a, b) => a - b);
    expect(remaining).toStrictEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it('control: the same race catches a read-then-write limiter (it admits more than the limit)', async () => {
    const key = keyId();
    const { minute, day } = windowsAt(NOW);
    // The bug the real limiter avoids: check the count, then add to it, in two statements.
    const naive = async (): Promise<boolean> => {
      const row = await ctx.db
        .selectFrom('rate_limits')
        .select('minute_count')
        .where('key_id', '=', key)
        .executeTakeFirst();
      if ((row?.minute_count ?? 0) + 1 > 300) return false;
      await ctx.db
        .insertInto('rate_limits')
        .values({ key_id: key, minute_start: minute, minute_count: 1, day_start: day, day_count: 1 })
        .onConflict((oc) =>
          oc.column('key_id').doUpdateSet((eb) => ({ minute_count: eb('rate_limits.minute_count', '+', 1) })),
        )
        .execute();
      return true;
    };
    const admitted = (await Promise.all(Array.from({ length: 900 }, naive))).filter(Boolean).length;
    expect(admitted).toBeGreaterThan(300);
  });

  it('admits exactly what is left of the day when the day runs out mid-race, without consuming the minute', async () => {
    const limiter = createRateLimiter(ctx.db);
    const key = keyId();
    await setUsage(ctx.db, key, { day: 14_900 }, NOW);
    const results = await Promise.all(Array.from({ length: 300 }, () => limiter.limit(key, 'free', 1, NOW)));
    expect(results.filter((r) => r.passed)).toHaveLength(100);
    expect(results.filter((r) => !r.passed).every((r) => r.deniedBy === 'day')).toBe(true);
    expect((await readUsage(ctx.db, [key], NOW)).get(key)).toStrictEqual({ minute: 100, day: 15_000 });
  });

  it('admits exactly the limit across two OS processes sharing the database (partner, cost 10: 100 of 300 batches)', async () => {
    const key = keyId();
    const job: LimitJob = { url: ctx.url, keyId: key, tier: 'partner', attempts: 150, cost: 10, now: NOW };
    const results = await runTogether<{ passed: number }, LimitJob>([job, job], 60_000, CHILD);
    expect(results[0].passed + results[1].passed).toBe(100);
    expect((await readUsage(ctx.db, [key], NOW)).get(key)).toStrictEqual({ minute: 1000, day: 1000 });
  });

  it('admits exactly 300 of 900 free requests split over three processes', async () => {
    const key = keyId();
    const job: LimitJob = { url: ctx.url, keyId: key, tier: 'free', attempts: 300, cost: 1, now: NOW };
    const results = await runTogether<{ passed: number }, LimitJob>([job, job, job], 60_000, CHILD);
    expect(results.reduce((sum, r) => sum + r.passed, 0)).toBe(300);
    expect((await readUsage(ctx.db, [key], NOW)).get(key)).toStrictEqual({ minute: 300, day: 300 });
  });
});
