// The key step of a keyed request: on Postgres one statement for the key steps of an event-loop turn (key lookups +
// windows counted or refused + the refusals' usage), on SQLite the lookup then the limiter's upsert in one
// group-committed transaction on the native connection. Same answers on both; exact under concurrency, within a batch
// and between processes; the number of statements counted, not assumed.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { base58 } from '@scure/base';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { runTogether } from '@sigil/test/support/db-children';
import type { LimitJob } from '@sigil/test/support/ratelimit-child';
import { awayFromMinuteEdge, setUsage } from '@sigil/test/support/ratelimit-usage';
import { createDatabase } from '../../platform/db/index';
import { createLogger } from '../../platform/log';
import { readUsage, type RateLimitResult } from '../ratelimit/index';
import { createKeyGate } from './gate';
import { admitKeyRequest, createKey, createKeysService, revokeKey } from './service';

const NOW = Date.UTC(2030, 0, 15, 12, 30, 20, 250);
const MINUTE_RESET = Date.UTC(2030, 0, 15, 12, 31);
const DAY_RESET = Date.UTC(2030, 0, 16);
const account = () => base58.encode(randomBytes(32));
const log = createLogger({ logLevel: 'silent' });
const CHILD = fileURLToPath(import.meta.resolve('@sigil/test/support/ratelimit-child'));

/**
 * One fresh free key's answers (300 a minute, 15,000 a day), checked against a serial order: the admitted requests,
 * by what each was told is left, add up one cost at a time from zero; every refused one was told one of the counts
 * along that way and did not fit in what it was told (nor after all of them); the stored count is their total.
 */
async function expectSerial(
  db: Parameters<typeof readUsage>[0],
  keyId: string,
  answers: { cost: number; result: RateLimitResult | undefined }[],
): Promise<number> {
  const admitted = answers
    .filter((a) => a.result!.passed)
    .sort((a, b) => b.result!.minute.remaining - a.result!.minute.remaining);
  let total = 0;
  const along = [300];
  for (const { cost, result } of admitted) {
    total += cost;
    along.push(300 - total);
    expect(result).toMatchObject({ minute: { remaining: 300 - total }, day: { remaining: 15_000 - total } });
  }
  for (const { cost, result } of answers.filter((a) => !a.result!.passed)) {
    expect(result).toMatchObject({ deniedBy: 'minute' });
    expect(along).toContain(result!.minute.remaining);
    expect(cost).toBeGreaterThan(result!.minute.remaining);
    expect(total + cost).toBeGreaterThan(300);
  }
  expect((await readUsage(db, [keyId], NOW)).get(keyId)).toStrictEqual({ minute: total, day: total });
  return total;
}

describeEachDialect('the keyed request key step', (ctx) => {
  const admit = (secret: string, cost: number, now = NOW) => admitKeyRequest(ctx.db, secret, cost, now);
  /** A second handle on the test database whose statements are recorded (close it when done). */
  const countedDatabase = () => {
    const statements: string[] = [];
    const counted = createDatabase({
      ...(ctx.dialect === 'postgres' ? { url: ctx.url } : { sqliteFile: ctx.database.sqliteFile }),
      onQuery: (event) => void statements.push(event.query.sql),
    });
    return { statements, counted };
  };

  it('counts the request against both windows and answers what is left', async () => {
    const { key, secret } = await createKey(ctx.db, { account: account() });
    const first = await admit(secret, 1);
    expect(first?.key).toEqual(key);
    expect(first?.result).toStrictEqual({
      passed: true,
      minute: { limit: 300, remaining: 299, reset: MINUTE_RESET },
      day: { limit: 15_000, remaining: 14_999, reset: DAY_RESET },
    });
    expect((await admit(secret, 10))?.result.minute.remaining).toBe(289);
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toStrictEqual({ minute: 11, day: 11 });
  });

  it('unknown, malformed and revoked secrets: null, and nothing counted', async () => {
    const owner = account();
    const { key, secret } = await createKey(ctx.db, { account: owner });
    await revokeKey(ctx.db, owner, key.id, NOW);
    expect(await admit(secret, 1)).toBeNull();
    expect(await admit(`${secret.slice(0, -4)}AAAA`, 1)).toBeNull();
    expect(await admit('not a secret', 1)).toBeNull();
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toBeUndefined();
  });

  it('refuses with the usage, the window and Retry-After; a refusal counts nothing', async () => {
    const { key, secret } = await createKey(ctx.db, { account: account() });
    await setUsage(ctx.db, key.id, { minute: 300, day: 300 }, NOW);
    expect((await admit(secret, 1))?.result).toStrictEqual({
      passed: false,
      minute: { limit: 300, remaining: 0, reset: MINUTE_RESET },
      day: { limit: 15_000, remaining: 14_700, reset: DAY_RESET },
      deniedBy: 'minute',
      retryAfterSeconds: 40,
    });
    await setUsage(ctx.db, key.id, { minute: 0, day: 14_999 }, NOW);
    expect((await admit(secret, 2))?.result).toMatchObject({
      passed: false,
      deniedBy: 'day',
      retryAfterSeconds: 41_380,
    });
    // A cost no window could ever admit (free: 300 a minute) is refused by that window.
    expect((await admit(secret, 301))?.result).toMatchObject({ passed: false, deniedBy: 'minute' });
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toStrictEqual({ minute: 0, day: 14_999 });
    // The next minute starts from zero; the day carries on.
    expect((await admit(secret, 1, NOW + 60_000))?.result).toMatchObject({
      passed: true,
      minute: { remaining: 299 },
      day: { remaining: 0 },
    });
  });

  it('admits exactly the minute limit out of 3× as many concurrent requests (free: 300 of 900)', async () => {
    const { key, secret } = await createKey(ctx.db, { account: account() });
    const results = await Promise.all(Array.from({ length: 900 }, () => admit(secret, 1)));
    const passed = results.filter((r) => r?.result.passed);
    expect(passed).toHaveLength(300);
    expect(passed.map((r) => r!.result.minute.remaining).sort((a, b) => a - b)).toStrictEqual(
      Array.from({ length: 300 }, (_, i) => i),
    );
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toStrictEqual({ minute: 300, day: 300 });
  });

  it('statements per keyed request, counted: 1 on Postgres, 2 on SQLite (admitted or refused)', async () => {
    const { statements, counted } = countedDatabase();
    try {
      const { key, secret } = await createKey(ctx.db, { account: account() });
      const keys = createKeysService({ db: counted.db });
      const gate = createKeyGate({ keys });
      // Marked used just now, so the throttled last-used write does not run: the request's own statements only.
      await keys.touch({ id: key.id, last_used_at: null });
      statements.length = 0;
      expect(await gate.admit(secret, 1, log)).toMatchObject({ key: { id: key.id } });
      expect(statements).toHaveLength(ctx.dialect === 'postgres' ? 1 : 2);
      await awayFromMinuteEdge(2_000);
      await setUsage(ctx.db, key.id, { minute: 300, day: 300 }, Date.now());
      statements.length = 0;
      expect(await gate.admit(secret, 1, log)).toMatchObject({ denied: { window: expect.any(String) } });
      // Refused on SQLite: the lookup, the upsert that found no room, the usage read for the headers.
      expect(statements).toHaveLength(ctx.dialect === 'postgres' ? 1 : 3);
    } finally {
      await counted.close();
    }
  });

  it('the key steps of one turn, mixed keys and costs: one statement per window pair on Postgres, each answer exact', async () => {
    const { statements, counted } = countedDatabase();
    try {
      const owner = account();
      const hot = await createKey(ctx.db, { account: owner });
      const calm = await Promise.all(Array.from({ length: 4 }, () => createKey(ctx.db, { account: account() })));
      const nextMinute = await createKey(ctx.db, { account: account() });
      const revoked = await createKey(ctx.db, { account: owner });
      await revokeKey(ctx.db, owner, revoked.key.id, NOW);
      const unknown = `${hot.secret.slice(0, -4)}AAAA`;
      type Ask = { secret: string; cost: number; now?: number };
      const asks: Ask[] = [
        // The hot key: 200 requests costing 1 to 7 (800 in all) and one no window could ever admit.
        ...Array.from({ length: 200 }, (_, i) => ({ secret: hot.secret, cost: (i % 7) + 1 })),
        { secret: hot.secret, cost: 301 },
        // Keys well within their limits: 30 requests costing 1 to 3 (60 in all) each.
        ...calm.flatMap(({ secret }) => Array.from({ length: 30 }, (_, i) => ({ secret, cost: (i % 3) + 1 }))),
        // The next minute: another window pair, so another statement.
        ...Array.from({ length: 10 }, () => ({ secret: nextMinute.secret, cost: 2, now: NOW + 60_000 })),
        ...Array.from({ length: 5 }, () => ({ secret: revoked.secret, cost: 1 })),
        ...Array.from({ length: 5 }, () => ({ secret: unknown, cost: 1 })),
      ];
      statements.length = 0;
      const answers = await Promise.all(
        asks.map(async (ask) => ({
          ...ask,
          admitted: await admitKeyRequest(counted.db, ask.secret, ask.cost, ask.now ?? NOW),
        })),
      );
      if (ctx.dialect === 'postgres') expect(statements).toHaveLength(2);
      const of = (secret: string) =>
        answers.filter((a) => a.secret === secret).map((a) => ({ cost: a.cost, result: a.admitted?.result }));
      expect(await expectSerial(ctx.db, hot.key.id, of(hot.secret))).toBeGreaterThan(300 - 7);
      for (const { key, secret } of calm) expect(await expectSerial(ctx.db, key.id, of(secret))).toBe(60);
      expect(of(hot.secret).find((a) => a.cost === 301)?.result).toMatchObject({ passed: false, deniedBy: 'minute' });
      expect(
        of(nextMinute.secret)
          .map((a) => a.result?.minute.remaining)
          .sort((a, b) => a! - b!),
      ).toStrictEqual(Array.from({ length: 10 }, (_, i) => 280 + 2 * i));
      expect(
        answers.filter((a) => a.secret === revoked.secret || a.secret === unknown).map((a) => a.admitted),
      ).toStrictEqual(Array.from({ length: 10 }, () => null));
      expect((await readUsage(ctx.db, [revoked.key.id], NOW)).has(revoked.key.id)).toBe(false);
    } finally {
      await counted.close();
    }
  });

  it('a refusal is answered from the counts under the lock, not from the statement start', async () => {
    const { key, secret } = await createKey(ctx.db, { account: account() });
    await setUsage(ctx.db, key.id, { minute: 100, day: 100 }, NOW);
    const expected = {
      passed: false,
      minute: { limit: 300, remaining: 0, reset: MINUTE_RESET },
      day: { limit: 15_000, remaining: 14_700, reset: DAY_RESET },
      deniedBy: 'minute',
      retryAfterSeconds: 40,
    };
    if (ctx.dialect === 'sqlite') {
      // One writer at a time: there is no statement to overtake; the refusal reads the counts as they are.
      await setUsage(ctx.db, key.id, { minute: 300, day: 300 }, NOW);
      expect((await admit(secret, 1))?.result).toStrictEqual(expected);
      return;
    }
    // Another replica holds the key's row and commits the minute's last room away while the key step waits for it:
    // the key step's snapshot still shows 100 used, the row it locks shows 300.
    const other = new pg.Client({ connectionString: ctx.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('UPDATE rate_limits SET minute_count = 300, day_count = 300 WHERE key_id = $1', [key.id]);
      const pending = admit(secret, 1);
      for (;;) {
        // Statistics are a snapshot per transaction: cleared, each read sees who waits now.
        await other.query('SELECT pg_stat_clear_snapshot()');
        const waiting = await other.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if ((waiting.rows[0] as { n: number }).n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await other.query('COMMIT');
      expect((await pending)?.result).toStrictEqual(expected);
    } finally {
      await other.end();
    }
  });

  it('admits exactly 300 of 900 key steps on one key from three processes, each sending overlapping batches', async () => {
    const { key, secret } = await createKey(ctx.db, { account: account() });
    const job: LimitJob = {
      url: ctx.url,
      keyId: key.id,
      tier: 'free',
      attempts: 300,
      cost: 1,
      now: NOW,
      keyStep: { secret, waves: 10 },
    };
    const results = await runTogether<{ passed: number; remaining: number[] }, LimitJob>(
      [job, job, job],
      60_000,
      CHILD,
    );
    expect(results.flatMap((r) => r.remaining).sort((a, b) => a - b)).toStrictEqual(
      Array.from({ length: 300 }, (_, i) => i),
    );
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toStrictEqual({ minute: 300, day: 300 });
  });

  it('a turn with more keys than one statement takes (64) is split between statements, each key whole in one', async () => {
    const { statements, counted } = countedDatabase();
    try {
      const keys = await Promise.all(Array.from({ length: 70 }, () => createKey(ctx.db, { account: account() })));
      statements.length = 0;
      const answers = await Promise.all(
        keys.flatMap(({ secret }) => [1, 2].map((cost) => admitKeyRequest(counted.db, secret, cost, NOW))),
      );
      if (ctx.dialect === 'postgres') expect(statements).toHaveLength(2);
      expect(answers.map((a) => a?.result.minute.remaining)).toStrictEqual(keys.flatMap(() => [299, 297]));
    } finally {
      await counted.close();
    }
  });
});
