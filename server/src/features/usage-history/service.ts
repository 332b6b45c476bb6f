// Usage over time: every keyed request (and every x402-paid one) is counted per account, key, minute and outcome
// in memory, and each replica writes its counts in batches (one upsert statement per resolution every few seconds,
// `count = count + n`, so replicas add up without coordination). The portal's charts read minute rows (last hour)
// and hour rows (last day, week and month, days summed from hours), zero-filled. docs/usage-history.md.
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import type { KeyTier } from '@sigil/contract/keys';
import {
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
import type { Database } from '../../platform/db/index';
import type { Logger } from '../../platform/log';
import { markedAccount, type UsageMark } from '../../trpc/context';
import { createRequestLog, type AnsweredRequest } from './request-log';
import { addRows, deleteUsageBefore, sumUsage, type Row } from './queries';
import { deleteRequestsBefore } from './request-log.queries';

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

/** How a counted request ended, from its final HTTP status. A paid request is `paid` (it only settles on success). */
export function outcomeOf(status: number, paid: boolean): UsageOutcome {
  if (paid) return 'paid';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'client_error';
  return 'served';
}

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

/** Deletes minute rows and hour rows past their retention. Returns rows deleted. Idempotent (housekeeping). */
export async function deleteExpiredUsage(db: Kysely<Database>, now: number = Date.now()): Promise<number> {
  let deleted = 0;
  for (const [resolution, keep] of [
    ['minute', MINUTE_RETENTION_MS],
    ['hour', HOUR_RETENTION_MS],
  ] as const) {
    deleted += await deleteUsageBefore(db, resolution, now - keep);
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

export interface UsageHistoryDeps {
  db: Kysely<Database>;
  keys: UsageKeysView;
  log: Logger;
  now?: () => number;
  flushIntervalMs?: number;
}

export interface UsageHistoryService {
  /** Counts one request for an account's key ('' for a paying wallet), in memory until the next flush. */
  record(account: string, keyId: string, outcome: UsageOutcome, at?: number): void;
  /**
   * The onResponse step: counts a finished request that a key or a payment identified, and logs it; others are
   * neither counted nor logged. In memory only: both are written in batches.
   */
  recordResponse(mark: UsageMark, status: number, answered: AnsweredRequest): void;
  /** Writes the pending counts and requests; how many count cells were written. */
  flush(): Promise<number>;
  /** The account's (or one key's) zero-filled chart of a range. */
  history(account: string, query: UsageHistoryQuery): Promise<UsageHistoryResponse>;
  /** One page of the account's (or one key's) latest requests, newest first (this replica's pending ones included). */
  requestLog(account: string, query: RequestLogQuery): Promise<RequestLogPage>;
  /** Stops the timer and writes what is pending (the lifecycle calls it before the database closes). */
  stop(): Promise<void>;
}

export function createUsageHistoryService(deps: UsageHistoryDeps): UsageHistoryService {
  const { db, log } = deps;
  const now = deps.now ?? (() => Date.now());
  /** `account \0 key \0 minute \0 outcome` → count since the last flush. */
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<number> | undefined;
  const requests = createRequestLog({ db, log });

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
    flushing = writePending().then((cells) => requests.write().then(() => cells));
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
    const rows = await sumUsage(db, {
      account,
      keyId: key?.id,
      resolution: bucketMs === MINUTE_MS ? 'minute' : 'hour',
      from,
    });
    return {
      range: query.range,
      key_id: key?.id ?? null,
      bucket_ms: bucketMs,
      limits: { ...(key ? key.limits : view.limits) },
      buckets: fillBuckets(query.range, rows, at),
    };
  }

  return {
    record,
    recordResponse(mark: UsageMark, status: number, answered: AnsweredRequest): void {
      const who = markedAccount(mark);
      if (!who) return;
      const at = now();
      record(who.account, who.keyId, outcomeOf(status, who.paid), at);
      requests.add(who.account, who.keyId, status, at, answered);
    },
    flush,
    history,
    async requestLog(account: string, query: RequestLogQuery): Promise<RequestLogPage> {
      if (query.key_id !== undefined && !(await deps.keys.usage(account)).keys.some((k) => k.id === query.key_id))
        throw new ApiError('KEY_NOT_FOUND', `no key ${query.key_id} in your account`);
      await flush();
      return requests.page(account, query);
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
