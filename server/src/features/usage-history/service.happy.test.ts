import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { ApiError } from '@sigil/contract/errors';
import { TIER_LIMITS } from '@sigil/contract/keys';
import { describeEachDialect } from '@sigil/test/support/db';
import type { Database } from '../../platform/db/index';
import { createLogger } from '../../platform/log';
import { REQUEST_LOG_PER_KEY } from '@sigil/contract/usage-history';
import { insertRequests } from './request-log.queries';
import { createUsageHistoryService, deleteExpiredUsage, fillBuckets, outcomeOf } from './service';

const wallet = () => base58.encode(randomBytes(32));
// 2030-01-15 12:30:20.250 UTC
const T = Date.UTC(2030, 0, 15, 12, 30, 20, 250);
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const zero = { served: 0, client_error: 0, rate_limited: 0, server_error: 0, paid: 0 };
const log = createLogger({ logLevel: 'silent' });
/** What the HTTP host passes for a finished request. */
const answered = (requestId: string, route = '/v1/resolve/{name}') => ({
  method: 'GET',
  route,
  requestId,
  latencyMs: 1.25,
});

/** The keys feature's view of one account: two free keys. */
const keysOf = (account: string) => ({
  usage: async (a: string) => ({
    limits: { ...TIER_LIMITS.free },
    keys:
      a === account
        ? [
            { id: 'key_a', tier: 'free' as const, limits: { ...TIER_LIMITS.free } },
            { id: 'key_b', tier: 'partner' as const, limits: { ...TIER_LIMITS.partner } },
          ]
        : [],
  }),
});

it('maps final statuses to outcomes', () => {
  expect([200, 204, 304, 400, 401, 404, 429, 500, 503].map((s) => outcomeOf(s, false))).toStrictEqual([
    'served',
    'served',
    'served',
    'client_error',
    'client_error',
    'client_error',
    'rate_limited',
    'server_error',
    'server_error',
  ]);
  expect(outcomeOf(200, true)).toBe('paid');
});

it('zero-fills every bucket of a range, oldest first, the current bucket last', () => {
  const buckets = fillBuckets('24h', [{ bucket_start: Date.UTC(2030, 0, 15, 11), outcome: 'served', n: 3 }], T);
  expect(buckets).toHaveLength(24);
  expect(buckets[0]).toStrictEqual({ start: Date.UTC(2030, 0, 14, 13), ...zero });
  expect(buckets[22]).toStrictEqual({ start: Date.UTC(2030, 0, 15, 11), ...zero, served: 3 });
  expect(buckets[23]).toStrictEqual({ start: Date.UTC(2030, 0, 15, 12), ...zero });
  // Rows outside the range or with an unknown outcome are ignored.
  const ignored = fillBuckets(
    '1h',
    [
      { bucket_start: T - 2 * HOUR, outcome: 'served', n: 1 },
      { bucket_start: T, outcome: 'teapot', n: 1 },
    ],
    T,
  );
  expect(ignored.every((b) => b.served === 0)).toBe(true);
});

/**
 * A derived handle that calls `seen` before each DELETE of the request log it sends, built or raw SQL alike (`seen`
 * may throw: the statement then fails as a refused one would).
 */
function onRequestLogDelete(db: Kysely<Database>, seen: () => void): Kysely<Database> {
  return db.withPlugin({
    transformQuery: ({ node }) => {
      const raw = node.kind === 'RawNode' && /\bDELETE FROM request_log\b/i.test(node.sqlFragments.join(''));
      if (node.kind === 'DeleteQueryNode' || raw) seen();
      return node;
    },
    transformResult: async ({ result }) => result,
  });
}

describeEachDialect('usage history', (ctx) => {
  it('batches counts, writes minute and hour rows, and reads them back per key and per account', async () => {
    const account = wallet();
    let now = T;
    const history = createUsageHistoryService({ db: ctx.db, keys: keysOf(account), log, now: () => now });
    history.recordResponse({ keyId: 'key_a', account }, 200, answered('req_1'));
    history.recordResponse({ keyId: 'key_a', account }, 200, answered('req_2'));
    history.recordResponse({ keyId: 'key_a', account }, 404, answered('req_3'));
    history.recordResponse({ keyId: 'key_a', account }, 429, answered('req_4'));
    history.recordResponse({ keyId: 'key_b', account }, 500, answered('req_5'));
    history.recordResponse({ paidBy: account }, 200, answered('req_6'));
    history.recordResponse({}, 200, answered('req_7')); // neither a key nor a payment: not counted
    history.record(account, 'key_a', 'served', T - 2 * MIN);

    // Nothing is written until a flush; one flush writes one row per (key, minute, outcome) and per hour.
    expect(await ctx.db.selectFrom('usage_history').selectAll().where('account', '=', account).execute()).toEqual([]);
    expect(await history.flush()).toBe(6);
    const rows = await ctx.db
      .selectFrom('usage_history')
      .select(['key_id', 'resolution', 'bucket_start', 'outcome', 'count'])
      .where('account', '=', account)
      .orderBy('resolution')
      .orderBy('key_id')
      .orderBy('bucket_start')
      .orderBy('outcome')
      .execute();
    const minute = Date.UTC(2030, 0, 15, 12, 30);
    const hour = Date.UTC(2030, 0, 15, 12);
    expect(rows.map((r) => ({ ...r, bucket_start: Number(r.bucket_start), count: Number(r.count) }))).toStrictEqual([
      { key_id: '', resolution: 'hour', bucket_start: hour, outcome: 'paid', count: 1 },
      { key_id: 'key_a', resolution: 'hour', bucket_start: hour, outcome: 'client_error', count: 1 },
      { key_id: 'key_a', resolution: 'hour', bucket_start: hour, outcome: 'rate_limited', count: 1 },
      { key_id: 'key_a', resolution: 'hour', bucket_start: hour, outcome: 'served', count: 3 },
      { key_id: 'key_b', resolution: 'hour', bucket_start: hour, outcome: 'server_error', count: 1 },
      { key_id: '', resolution: 'minute', bucket_start: minute, outcome: 'paid', count: 1 },
      { key_id: 'key_a', resolution: 'minute', bucket_start: minute - 2 * MIN, outcome: 'served', count: 1 },
      { key_id: 'key_a', resolution: 'minute', bucket_start: minute, outcome: 'client_error', count: 1 },
      { key_id: 'key_a', resolution: 'minute', bucket_start: minute, outcome: 'rate_limited', count: 1 },
      { key_id: 'key_a', resolution: 'minute', bucket_start: minute, outcome: 'served', count: 2 },
      { key_id: 'key_b', resolution: 'minute', bucket_start: minute, outcome: 'server_error', count: 1 },
    ]);

    // A later batch adds to the stored counts (count = count + n), as another replica's batch would.
    history.recordResponse({ keyId: 'key_a', account }, 200, answered('req_8'));
    const hourly = await history.history(account, { range: '24h', key_id: 'key_a' });
    expect(hourly.range).toBe('24h');
    expect(hourly.key_id).toBe('key_a');
    expect(hourly.bucket_ms).toBe(HOUR);
    expect(hourly.limits).toStrictEqual({ minute: 300, day: 15_000 });
    expect(hourly.buckets).toHaveLength(24);
    expect(hourly.buckets[23]).toStrictEqual({ start: hour, ...zero, served: 4, client_error: 1, rate_limited: 1 });
    expect(hourly.buckets.slice(0, 23).every((b) => b.served + b.client_error + b.rate_limited === 0)).toBe(true);

    const perMinute = await history.history(account, { range: '1h' });
    expect(perMinute.key_id).toBeNull();
    expect(perMinute.bucket_ms).toBe(MIN);
    expect(perMinute.buckets).toHaveLength(60);
    expect(perMinute.buckets[57]).toStrictEqual({ start: minute - 2 * MIN, ...zero, served: 1 });
    expect(perMinute.buckets[59]).toStrictEqual({
      start: minute,
      served: 3,
      client_error: 1,
      rate_limited: 1,
      server_error: 1,
      paid: 1,
    });

    const partner = await history.history(account, { range: '1h', key_id: 'key_b' });
    expect(partner.limits).toStrictEqual({ minute: 1000, day: 100_000 });
    expect(partner.buckets[59]).toStrictEqual({ start: minute, ...zero, server_error: 1 });

    // 30 d: UTC days summed from hour rows; yesterday's calls land in the day before the last.
    history.record(account, 'key_a', 'served', T - DAY);
    now = T + 1;
    const monthly = await history.history(account, { range: '30d' });
    expect(monthly.bucket_ms).toBe(DAY);
    expect(monthly.buckets).toHaveLength(30);
    expect(monthly.buckets[0]!.start).toBe(Date.UTC(2029, 11, 17));
    expect(monthly.buckets[28]).toStrictEqual({ start: Date.UTC(2030, 0, 14), ...zero, served: 1 });
    expect(monthly.buckets[29]).toStrictEqual({
      start: Date.UTC(2030, 0, 15),
      served: 4,
      client_error: 1,
      rate_limited: 1,
      server_error: 1,
      paid: 1,
    });
    await history.stop();
  });

  it("refuses another account's key as KEY_NOT_FOUND, and an account's history holds only its own counts", async () => {
    const account = wallet();
    const stranger = wallet();
    const history = createUsageHistoryService({ db: ctx.db, keys: keysOf(account), log, now: () => T });
    history.record(account, 'key_a', 'served');
    history.record(stranger, 'key_x', 'served');
    const refused = await history.history(stranger, { range: '24h', key_id: 'key_a' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('KEY_NOT_FOUND');
    const own = await history.history(account, { range: '24h' });
    expect(own.buckets[23]!.served).toBe(1);
    await history.stop();
  });

  it('stop writes what is pending; housekeeping deletes minute rows after 48 h and hour rows after 35 days', async () => {
    const account = wallet();
    const history = createUsageHistoryService({ db: ctx.db, keys: keysOf(account), log, now: () => T });
    history.record(account, 'key_a', 'served', T - 49 * HOUR);
    history.record(account, 'key_a', 'served', T - 47 * HOUR);
    history.record(account, 'key_a', 'served', T - 36 * DAY);
    await history.stop();
    const count = async (resolution: 'minute' | 'hour') =>
      (
        await ctx.db
          .selectFrom('usage_history')
          .select('bucket_start')
          .where('account', '=', account)
          .where('resolution', '=', resolution)
          .execute()
      ).length;
    expect([await count('minute'), await count('hour')]).toStrictEqual([3, 3]);
    expect(await deleteExpiredUsage(ctx.db, T)).toBeGreaterThanOrEqual(3);
    expect([await count('minute'), await count('hour')]).toStrictEqual([1, 2]);
  });

  it('logs keyed and paid requests, newest first, filtered by key, status class and request id, paged', async () => {
    const account = wallet();
    const stranger = wallet();
    let now = T;
    const history = createUsageHistoryService({ db: ctx.db, keys: keysOf(account), log, now: () => now++ });
    history.recordResponse({ keyId: 'key_a', account }, 200, answered('req_a1'));
    history.recordResponse({ keyId: 'key_a', account }, 404, answered('req_a2', 'unmatched'));
    history.recordResponse({ keyId: 'key_b', account }, 429, answered('req_b1'));
    history.recordResponse({ paidBy: account }, 200, answered('req_p1', '/v1/agents/{handle}'));
    history.recordResponse({}, 200, answered('req_none')); // neither a key nor a payment: not logged
    history.recordResponse({ keyId: 'key_x', account: stranger }, 500, answered('req_x1'));

    const all = await history.requestLog(account, { limit: 50 });
    expect(all.next_before).toBeNull();
    expect(all.requests).toStrictEqual([
      {
        at: T + 3,
        method: 'GET',
        route: '/v1/agents/{handle}',
        status: 200,
        latency_ms: 1.25,
        request_id: 'req_p1',
        key_id: null,
        kind: 'x402',
      },
      {
        at: T + 2,
        method: 'GET',
        route: '/v1/resolve/{name}',
        status: 429,
        latency_ms: 1.25,
        request_id: 'req_b1',
        key_id: 'key_b',
        kind: 'keyed',
      },
      {
        at: T + 1,
        method: 'GET',
        route: 'unmatched',
        status: 404,
        latency_ms: 1.25,
        request_id: 'req_a2',
        key_id: 'key_a',
        kind: 'keyed',
      },
      {
        at: T,
        method: 'GET',
        route: '/v1/resolve/{name}',
        status: 200,
        latency_ms: 1.25,
        request_id: 'req_a1',
        key_id: 'key_a',
        kind: 'keyed',
      },
    ]);
    const ids = (page: { requests: { request_id: string }[] }) => page.requests.map((r) => r.request_id);
    expect(ids(await history.requestLog(account, { key_id: 'key_a', limit: 50 }))).toStrictEqual(['req_a2', 'req_a1']);
    expect(ids(await history.requestLog(account, { status: '4xx', limit: 50 }))).toStrictEqual(['req_b1', 'req_a2']);
    expect(ids(await history.requestLog(account, { status: '429', limit: 50 }))).toStrictEqual(['req_b1']);
    expect(ids(await history.requestLog(account, { status: '2xx', limit: 50 }))).toStrictEqual(['req_p1', 'req_a1']);
    expect(ids(await history.requestLog(account, { request_id: 'req_a2', limit: 50 }))).toStrictEqual(['req_a2']);
    // Another account's request is not found by its id, and its key is refused.
    expect(ids(await history.requestLog(account, { request_id: 'req_x1', limit: 50 }))).toStrictEqual([]);
    const refused = await history.requestLog(account, { key_id: 'key_x', limit: 50 }).catch((e: unknown) => e);
    expect((refused as ApiError).code).toBe('KEY_NOT_FOUND');
    expect(ids(await history.requestLog(stranger, { limit: 50 }))).toStrictEqual(['req_x1']);

    // Pages of two: the cursor continues exactly after the last row shown.
    const first = await history.requestLog(account, { limit: 2 });
    expect(ids(first)).toStrictEqual(['req_p1', 'req_b1']);
    expect(first.next_before).toBe(`${T + 2}:req_b1`);
    const second = await history.requestLog(account, { limit: 2, before: first.next_before! });
    expect(ids(second)).toStrictEqual(['req_a2', 'req_a1']);
    expect(second.next_before).toBeNull();
    await history.stop();
  });

  it("keeps each key's newest requests only, and housekeeping deletes requests older than 7 days", async () => {
    const account = wallet();
    let now = T;
    const history = createUsageHistoryService({ db: ctx.db, keys: keysOf(account), log, now: () => now++ });
    const stored = async (keyId: string) =>
      (
        await ctx.db
          .selectFrom('request_log')
          .select('request_id')
          .where('account', '=', account)
          .where('key_id', '=', keyId)
          .orderBy('at')
          .execute()
      ).map((r) => r.request_id);
    for (let i = 0; i < REQUEST_LOG_PER_KEY + 150; i++)
      history.recordResponse({ keyId: 'key_a', account }, 200, answered(`req_${i}`));
    history.recordResponse({ keyId: 'key_b', account }, 200, answered('req_b'));
    await history.flush();
    let kept = await stored('key_a');
    expect(kept).toHaveLength(REQUEST_LOG_PER_KEY);
    expect(kept[0]).toBe('req_150');
    for (let i = 0; i < 150; i++) history.recordResponse({ keyId: 'key_a', account }, 200, answered(`req_more_${i}`));
    await history.flush();
    kept = await stored('key_a');
    expect(kept).toHaveLength(REQUEST_LOG_PER_KEY);
    expect(kept.at(-1)).toBe('req_more_149');
    expect(kept[0]).toBe('req_300');
    expect(await stored('key_b')).toStrictEqual(['req_b']);

    // Written at T … T + 1300: a cutoff at T + 1150 leaves the second batch of key_a and key_b's one request.
    await deleteExpiredUsage(ctx.db, T + 1150 + 7 * DAY);
    expect(await stored('key_a')).toStrictEqual(Array.from({ length: 150 }, (_, i) => `req_more_${i}`));
    expect(await stored('key_b')).toStrictEqual(['req_b']);
    await history.stop();
  });

  it('trims every key that grew in one flush with one statement on Postgres (one transaction on SQLite)', async () => {
    const account = wallet();
    let deletes = 0;
    const counting = onRequestLogDelete(ctx.db, () => deletes++);
    let now = T;
    const history = createUsageHistoryService({ db: counting, keys: keysOf(account), log, now: () => now++ });
    const keys = ['key_a', 'key_b', 'key_c'];
    for (let i = 0; i < REQUEST_LOG_PER_KEY + 50; i++)
      for (const key of keys) history.recordResponse({ keyId: key, account }, 200, answered(`${key}_${i}`));
    history.recordResponse({ keyId: 'key_d', account }, 200, answered('key_d_0'));
    await history.flush();
    const stored = await ctx.db
      .selectFrom('request_log')
      .select(['key_id', (eb) => eb.fn.countAll<string>().as('n')])
      .where('account', '=', account)
      .groupBy('key_id')
      .orderBy('key_id')
      .execute();
    expect(stored.map((r) => [r.key_id, Number(r.n)])).toStrictEqual([
      ['key_a', REQUEST_LOG_PER_KEY],
      ['key_b', REQUEST_LOG_PER_KEY],
      ['key_c', REQUEST_LOG_PER_KEY],
      ['key_d', 1],
    ]);
    // The newest are kept: the first 50 of each grown key are gone.
    const oldest = await ctx.db
      .selectFrom('request_log')
      .select('request_id')
      .where('account', '=', account)
      .where('key_id', '=', 'key_a')
      .orderBy('at')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(oldest.request_id).toBe('key_a_50');
    expect(deletes).toBe(ctx.dialect === 'postgres' ? 1 : keys.length);
    await history.stop();
  });

  it('a failed trim is logged and the keys are trimmed with their next written row', async () => {
    const account = wallet();
    let failDeletes = false;
    const failing = onRequestLogDelete(ctx.db, () => {
      if (failDeletes) throw new Error('trim refused');
    });
    const lines: { msg: string; keys?: number }[] = [];
    const warnings = createLogger({ logLevel: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    let now = T;
    const history = createUsageHistoryService({ db: failing, keys: keysOf(account), log: warnings, now: () => now++ });
    const count = async () =>
      Number(
        (
          await ctx.db
            .selectFrom('request_log')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('account', '=', account)
            .executeTakeFirstOrThrow()
        ).n,
      );
    for (let i = 0; i < REQUEST_LOG_PER_KEY; i++)
      history.recordResponse({ keyId: 'key_a', account }, 200, answered(`a_${i}`));
    await history.flush();
    // 120 more rows make the key due, and its trim fails.
    failDeletes = true;
    for (let i = 0; i < 120; i++) history.recordResponse({ keyId: 'key_a', account }, 200, answered(`b_${i}`));
    await history.flush();
    expect(await count()).toBe(REQUEST_LOG_PER_KEY + 120);
    expect(lines).toMatchObject([{ msg: 'could not trim the request log; the next flush tries again', keys: 1 }]);
    // One more row of that key (far fewer than the hundred that make a key due) and the store works again.
    failDeletes = false;
    history.recordResponse({ keyId: 'key_a', account }, 200, answered('a_last'));
    await history.flush();
    expect(await count()).toBe(REQUEST_LOG_PER_KEY);
    await history.stop();
  });

  it('stores every text byte for byte (Postgres takes them as arrays) and skips rows a replayed flush wrote', async () => {
    const account = wallet();
    const row = (request_id: string, at: number) => ({
      account,
      key_id: 'key_a',
      at,
      request_id,
      method: 'GET',
      route: '/v1/resolve/{name}',
      status: 200,
      latency_us: 1250,
    });
    const awkward = ['a"b', 'back\\slash', 'x,y', '{braces}', 'NULL', '', ' spaced ', 'ünï\u00a0código'];
    const rows = awkward.map((id, i) => row(id, T + i));
    await insertRequests(ctx.db, rows);
    // The same rows again, as a flush retried after its commit failed would send them, and one new row.
    await insertRequests(ctx.db, [...rows, row('new', T + 100)]);
    const stored = await ctx.db
      .selectFrom('request_log')
      .selectAll()
      .where('account', '=', account)
      .orderBy('at')
      .execute();
    expect(stored.map((r) => ({ ...r, at: Number(r.at) }))).toStrictEqual([...rows, row('new', T + 100)]);
  });
});
