import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { runTogether } from '@sigil/test/support/db-children';
import { acquireLease, currentLease, releaseLease, renewLease } from './index';

const T0 = 1_700_000_000_000;

describeEachDialect('leases', (ctx) => {
  it('goes to the first holder and is refused to others until it expires', async () => {
    expect(await acquireLease(ctx.db, 'basic', 'a', 1_000, T0)).toBe(true);
    expect(await acquireLease(ctx.db, 'basic', 'b', 1_000, T0 + 1)).toBe(false);
    expect(await acquireLease(ctx.db, 'basic', 'b', 1_000, T0 + 999)).toBe(false);
    expect(await currentLease(ctx.db, 'basic', T0 + 999)).toEqual({ holder: 'a', expiresAt: T0 + 1_000 });
    // expires_at is exclusive: at T0+1000 the lease is free.
    expect(await currentLease(ctx.db, 'basic', T0 + 1_000)).toBeUndefined();
    expect(await acquireLease(ctx.db, 'basic', 'b', 1_000, T0 + 1_000)).toBe(true);
    expect(await currentLease(ctx.db, 'basic', T0 + 1_000)).toEqual({ holder: 'b', expiresAt: T0 + 2_000 });
  });

  it('lets the holder re-acquire (extend) its own lease', async () => {
    expect(await acquireLease(ctx.db, 'again', 'a', 1_000, T0)).toBe(true);
    expect(await acquireLease(ctx.db, 'again', 'a', 5_000, T0 + 500)).toBe(true);
    expect(await currentLease(ctx.db, 'again', T0 + 500)).toEqual({ holder: 'a', expiresAt: T0 + 5_500 });
  });

  it('renews only for the holder and only before expiry', async () => {
    expect(await acquireLease(ctx.db, 'renew', 'a', 1_000, T0)).toBe(true);
    expect(await renewLease(ctx.db, 'renew', 'b', 1_000, T0 + 100)).toBe(false);
    expect(await renewLease(ctx.db, 'renew', 'a', 1_000, T0 + 900)).toBe(true);
    expect(await currentLease(ctx.db, 'renew', T0 + 900)).toEqual({ holder: 'a', expiresAt: T0 + 1_900 });
    // Past expiry the lease is lost, even if nobody has taken it yet.
    expect(await renewLease(ctx.db, 'renew', 'a', 1_000, T0 + 1_900)).toBe(false);
    expect(await renewLease(ctx.db, 'never-held', 'a', 1_000, T0)).toBe(false);
  });

  it('releases only for the holder, and frees the lease at once', async () => {
    expect(await acquireLease(ctx.db, 'release', 'a', 60_000, T0)).toBe(true);
    expect(await releaseLease(ctx.db, 'release', 'b')).toBe(false);
    expect(await currentLease(ctx.db, 'release', T0)).toEqual({ holder: 'a', expiresAt: T0 + 60_000 });
    expect(await releaseLease(ctx.db, 'release', 'a')).toBe(true);
    expect(await releaseLease(ctx.db, 'release', 'a')).toBe(false);
    expect(await acquireLease(ctx.db, 'release', 'b', 60_000, T0 + 1)).toBe(true);
  });

  it('keeps different names independent', async () => {
    expect(await acquireLease(ctx.db, 'indep-1', 'a', 1_000, T0)).toBe(true);
    expect(await acquireLease(ctx.db, 'indep-2', 'b', 1_000, T0)).toBe(true);
  });

  it('expires on the real clock when no time is passed', async () => {
    expect(await acquireLease(ctx.db, 'wall', 'a', 100)).toBe(true);
    expect(await acquireLease(ctx.db, 'wall', 'b', 100)).toBe(false);
    await new Promise((r) => setTimeout(r, 150));
    expect(await acquireLease(ctx.db, 'wall', 'b', 100)).toBe(true);
  });

  it('rejects a TTL that is not a positive integer', async () => {
    for (const ttl of [0, -1, 1.5, Number.NaN]) {
      await expect(acquireLease(ctx.db, 'ttl', 'a', ttl)).rejects.toThrow(RangeError);
      await expect(renewLease(ctx.db, 'ttl', 'a', ttl)).rejects.toThrow(RangeError);
    }
    expect(await currentLease(ctx.db, 'ttl')).toBeUndefined();
  });

  it('has exactly one winner among 50 concurrent acquirers in this process', async () => {
    const holders = Array.from({ length: 50 }, (_, i) => `h${i}`);
    const won = await Promise.all(holders.map((h) => acquireLease(ctx.db, 'race', h, 60_000)));
    const winners = holders.filter((_, i) => won[i]);
    expect(winners).toHaveLength(1);
    expect((await currentLease(ctx.db, 'race'))?.holder).toBe(winners[0]);
  });

  it('has exactly one winner among 50 acquirers spread over two processes', async () => {
    const holders = (tag: string) => Array.from({ length: 25 }, (_, i) => `${tag}${i}`);
    const results = await runTogether<string[]>([
      { kind: 'lease', url: ctx.url, name: 'race-procs', holders: holders('p'), ttlMs: 60_000 },
      { kind: 'lease', url: ctx.url, name: 'race-procs', holders: holders('q'), ttlMs: 60_000 },
    ]);
    const winners = results.flat();
    expect(winners).toHaveLength(1);
    expect((await currentLease(ctx.db, 'race-procs'))?.holder).toBe(winners[0]);
  });
});
