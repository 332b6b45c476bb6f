// Usage over time: every keyed request (and every x402-paid one) is counted per account, key, minute and outcome
// in memory, and each replica writes its counts in batches (one upsert statement per resolution every few seconds,
// `count = count + n`, so replicas add up without coordination). The portal's charts read minute rows (last hour)
// and hour rows (last day, week and month, days summed from hours), zero-filled. docs/usage-history.md.
import { sql, type Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import type { KeyTier } from '@sigil/contract/keys';
import {
  REQUEST_LOG_PER_KEY,
  REQUEST_LOG_RETENTION_MS,
  USAGE_OUTCOMES,
  USAGE_RANGES,
  type RequestLogPage,
  type RequestLogQuery,
  type UsageBucket,
  type UsageHistoryQuery,
  type UsageHistoryResponse,
  type UsageOutcome,
} from '@sigil/contract/usage-history';
import type { Database, RequestLogTable, UsageHistoryTable } from '../../platform/db/index';
import type { Logger } from '../../platform/log';
import type { UsageMark } from '../../trpc/context';
import { deleteRequestsBefore, insertRequests, readRequests, trimKey } from './request-log.queries';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Minute rows are kept this long (the 1 h chart reads them; the margin covers a late flush and clock skew). */
export const MINUTE_RETENTION_MS = 48 * HOUR_MS;
/** Hour rows are kept this long (the 30 d chart reads them: 30 UTC days plus margin). */
export const HOUR_RETENTION_MS = 35 * 24 * HOUR_MS;
/** How often a replica writes its pending counts. */
export const FLUSH_INTERVAL_MS = 5_000;
/** Pending (account, key, minute, outcome) cells held at most between flushes while the store fails; more are dropped. */
export const MAX_PENDING_CELLS = 50_000;
/** Request-log rows held at most between flushes (all keys); more are dropped until the next flush. */
export const MAX_PENDING_REQUESTS = 50_000;
/**
 * A key's stored log is trimmed back to REQUEST_LOG_PER_KEY once this replica has written this many of its rows since
 * the last trim: trims follow traffic (one per hundred requests at most), not the number of keys.
 */
const TRIM_EVERY = 100;
/** Rows per INSERT statement (far below both dialects' bind-parameter limits: 6 parameters a row). */
const ROWS_PER_STATEMENT = 500;

/** How a counted request ended, from its final HTTP status. A paid request is `paid` (it only settles on success). */
export function outcomeOf(status: number, paid: boolean): UsageOutcome {
  if (paid) return 'paid';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'client_error';
  return 'served';
}

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

type Row = Omit<UsageHistoryTable, 'resolution'> & { resolution: 'minute' | 'hour' };

/** Upserts rows adding their counts to what is stored (both dialects: ON CONFLICT … DO UPDATE). */
async function addRows(db: Kysely<Database>, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('usage_history')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc
          .columns(['account', 'key_id', 'resolution', 'bucket_start', 'outcome'])
          .doUpdateSet({ count: sql<number>`usage_history.count + excluded.count` }),
      )
      .execute();
  }
}

/** Deletes minute rows and hour rows past their retention. Returns rows deleted. Idempotent (housekeeping). */
export async function deleteExpiredUsage(db: Kysely<Database>, now: number = Date.now()): Promise<number> {
  let deleted = 0;
  for (const [resolution, keep] of [
    ['minute', MINUTE_RETENTION_MS],
    ['hour', HOUR_RETENTION_MS],
  ] as const) {
    const result = await db
      .deleteFrom('usage_history')
      .where('resolution', '=', resolution)
      .where('bucket_start', '<', now - keep)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted + (await deleteRequestsBefore(db, now - REQUEST_LOG_RETENTION_MS));
}

/** What the history read needs from the keys feature: the account's tier, limits and keys. */
export interface UsageKeysView {
  usage(account: string): Promise<{
    limits: { minute: number; day: number };
    keys: { id: string; tier: KeyTier; limits: { minute: number; day: number } }[];
  }>;
}

/** The zero-filled buckets of a range ending with the bucket holding `now`, from stored (bucket, outcome, n) sums. */
export function fillBuckets(
  range: UsageHistoryQuery['range'],
  rows: { bucket_start: number; outcome: string; n: number }[],
  now: number,
): UsageBucket[] {
  const { bucketMs, buckets } = USAGE_RANGES[range];
  const last = floorTo(now, bucketMs);
  const first = last - (buckets - 1) * bucketMs;
  const out: UsageBucket[] = [];
  for (let i = 0; i < buckets; i++)
    out.push({ start: first + i * bucketMs, served: 0, client_error: 0, rate_limited: 0, server_error: 0, paid: 0 });
  for (const row of rows) {
    const index = Math.floor((floorTo(Number(row.bucket_start), bucketMs) - first) / bucketMs);
    const bucket = out[index];
    if (!bucket || !(USAGE_OUTCOMES as readonly string[]).includes(row.outcome)) continue;
    bucket[row.outcome as UsageOutcome] += Number(row.n);
  }
  return out;
}

/** What the HTTP host knows of a finished request, for the request log. */
export interface AnsweredRequest {
  method: string;
  route: string;
  requestId: string;
  latencyMs: number;
}

const entryOf = (row: RequestLogTable) => ({
  at: Number(row.at),
  method: row.method,
  route: row.route,
  status: Number(row.status),
  latency_ms: Number(row.latency_us) / 1000,
  request_id: row.request_id,
  key_id: row.key_id === '' ? null : row.key_id,
  kind: row.key_id === '' ? ('x402' as const) : ('keyed' as const),
});

/**
 * The request log's pending rows: per (account, key), the newest REQUEST_LOG_PER_KEY of them (older ones could only
 * be trimmed away once written), at most MAX_PENDING_REQUESTS in all.
 */
function createRequestBuffer() {
  let byKey = new Map<string, RequestLogTable[]>();
  let size = 0;
  return {
    add(row: RequestLogTable): void {
      const cell = `${row.account}\0${row.key_id}`;
      let rows = byKey.get(cell);
      if (!rows) byKey.set(cell, (rows = []));
      else if (rows.length >= 2 * REQUEST_LOG_PER_KEY) size -= rows.splice(0, rows.length - REQUEST_LOG_PER_KEY).length;
      if (size >= MAX_PENDING_REQUESTS) return;
      rows.push(row);
      size++;
    },
    /** Takes everything pending: the newest REQUEST_LOG_PER_KEY rows of each key. */
    take(): RequestLogTable[][] {
      const taken = [...byKey.values()].map((rows) => rows.slice(-REQUEST_LOG_PER_KEY));
      byKey = new Map();
      size = 0;
      return taken;
    },
  };
}

export interface UsageHistoryDeps {
  db: Kysely<Database>;
  keys: UsageKeysView;
  log: Logger;
  now?: () => number;
  flushIntervalMs?: number;
}

export function createUsageHistoryService(deps: UsageHistoryDeps) {
  const { db, log } = deps;
  const now = deps.now ?? (() => Date.now());
  /** `account \0 key \0 minute \0 outcome` → count since the last flush. */
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<number> | undefined;
  const requests = createRequestBuffer();
  /** `account \0 key` → request-log rows this replica wrote since it last trimmed that key. */
  const untrimmed = new Map<string, number>();

  function add(cell: string, n: number): void {
    const had = pending.get(cell);
    if (had === undefined && pending.size >= MAX_PENDING_CELLS) return;
    pending.set(cell, (had ?? 0) + n);
  }

  function record(account: string, keyId: string, outcome: UsageOutcome, at: number = now()): void {
    add(`${account}\0${keyId}\0${floorTo(at, MINUTE_MS)}\0${outcome}`, 1);
    // Started by the first count, so a process that serves no keyed request keeps no timer; unref'd: never holds
    // the process open (the lifecycle's stop flushes the rest).
    timer ??= setInterval(() => void flush(), deps.flushIntervalMs ?? FLUSH_INTERVAL_MS).unref();
  }

  function logRequest(account: string, keyId: string, status: number, at: number, answered: AnsweredRequest): void {
    requests.add({
      account,
      key_id: keyId,
      at,
      request_id: answered.requestId,
      method: answered.method,
      route: answered.route,
      status,
      latency_us: Math.round(answered.latencyMs * 1000),
    });
  }

  /** Writes the pending request-log rows, then trims the keys that have grown by TRIM_EVERY rows since their last trim. */
  async function writeRequests(): Promise<void> {
    const batches = requests.take();
    if (batches.length === 0) return;
    try {
      await insertRequests(db, batches.flat());
    } catch (err) {
      for (const rows of batches) for (const row of rows) requests.add(row);
      log.warn({ err }, 'could not write the request log; kept for the next flush');
      return;
    }
    for (const rows of batches) {
      const { account, key_id } = rows[0]!;
      const cell = `${account}\0${key_id}`;
      const written = (untrimmed.get(cell) ?? 0) + rows.length;
      if (written < TRIM_EVERY) {
        untrimmed.set(cell, written);
        continue;
      }
      untrimmed.delete(cell);
      await trimKey(db, account, key_id, REQUEST_LOG_PER_KEY).catch((err: unknown) =>
        log.warn({ err }, 'could not trim the request log; the next flush tries again'),
      );
    }
  }

  /** Writes the pending counts (minute and hour rows). A failed write puts them back for the next flush. */
  async function writePending(): Promise<number> {
    if (pending.size === 0) return 0;
    const batch = pending;
    pending = new Map();
    const minutes: Row[] = [];
    const hours = new Map<string, Row>();
    for (const [cell, count] of batch) {
      const [account, key_id, minute, outcome] = cell.split('\0') as [string, string, string, UsageOutcome];
      const bucket_start = Number(minute);
      minutes.push({ account, key_id, resolution: 'minute', bucket_start, outcome, count });
      const hour = floorTo(bucket_start, HOUR_MS);
      const hourCell = `${account}\0${key_id}\0${hour}\0${outcome}`;
      const row = hours.get(hourCell);
      if (row) row.count += count;
      else hours.set(hourCell, { account, key_id, resolution: 'hour', bucket_start: hour, outcome, count });
    }
    try {
      // One transaction: a failure leaves neither resolution half-written, so putting the batch back is exact.
      await db.transaction().execute(async (trx) => {
        await addRows(trx, minutes);
        await addRows(trx, [...hours.values()]);
      });
      return batch.size;
    } catch (err) {
      for (const [cell, count] of batch) add(cell, count);
      log.warn({ err, cells: batch.size }, 'could not write usage history; kept for the next flush');
      return 0;
    }
  }

  /** Flushes once at a time: a flush asked for while one runs waits for it, then writes what came in meanwhile. */
  async function flush(): Promise<number> {
    while (flushing) await flushing;
    flushing = writePending().then(async (cells) => {
      await writeRequests();
      return cells;
    });
    try {
      return await flushing;
    } finally {
      flushing = undefined;
    }
  }

  async function history(account: string, query: UsageHistoryQuery): Promise<UsageHistoryResponse> {
    const view = await deps.keys.usage(account);
    const key = query.key_id === undefined ? undefined : view.keys.find((k) => k.id === query.key_id);
    if (query.key_id !== undefined && !key)
      throw new ApiError('KEY_NOT_FOUND', `no key ${query.key_id} in your account`);
    // This replica's own pending counts first, so a chart read right after calls shows them.
    await flush();
    const { bucketMs, buckets } = USAGE_RANGES[query.range];
    const at = now();
    const from = floorTo(at, bucketMs) - (buckets - 1) * bucketMs;
    let q = db
      .selectFrom('usage_history')
      .select(['bucket_start', 'outcome', (eb) => eb.fn.sum<number>('count').as('n')])
      .where('account', '=', account)
      .where('resolution', '=', bucketMs === MINUTE_MS ? 'minute' : 'hour')
      .where('bucket_start', '>=', from)
      .groupBy(['bucket_start', 'outcome']);
    if (key) q = q.where('key_id', '=', key.id);
    const rows = await q.execute();
    return {
      range: query.range,
      key_id: key?.id ?? null,
      bucket_ms: bucketMs,
      limits: { ...(key ? key.limits : view.limits) },
      buckets: fillBuckets(query.range, rows, at),
    };
  }

  /** One page of the account's (or one key's) latest requests, newest first. */
  async function requestLog(account: string, query: RequestLogQuery): Promise<RequestLogPage> {
    if (query.key_id !== undefined && !(await deps.keys.usage(account)).keys.some((k) => k.id === query.key_id))
      throw new ApiError('KEY_NOT_FOUND', `no key ${query.key_id} in your account`);
    await flush();
    const colon = query.before?.indexOf(':') ?? -1;
    const rows = await readRequests(db, {
      account,
      keyId: query.key_id,
      status: query.status,
      requestId: query.request_id,
      before:
        query.before === undefined
          ? undefined
          : { at: Number(query.before.slice(0, colon)), requestId: query.before.slice(colon + 1) },
      take: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      requests: page.map(entryOf),
      next_before: rows.length > query.limit && last ? `${Number(last.at)}:${last.request_id}` : null,
    };
  }

  return {
    record,
    /**
     * The onResponse step: counts a finished request that a key or a payment identified, and logs it; others are
     * neither counted nor logged. In memory only: both are written in batches.
     */
    recordResponse(mark: UsageMark, status: number, answered: AnsweredRequest): void {
      const paid = Boolean(mark.paidBy);
      const account = paid ? mark.paidBy : mark.keyId ? mark.account : undefined;
      if (!account) return;
      const keyId = paid ? '' : mark.keyId!;
      const at = now();
      record(account, keyId, outcomeOf(status, paid), at);
      logRequest(account, keyId, status, at, answered);
    },
    flush,
    history,
    requestLog,
    /** Stops the timer and writes what is pending (the lifecycle calls it before the database closes). */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}

export type UsageHistoryService = ReturnType<typeof createUsageHistoryService>;
