// The request log (docs/usage-history.md): one row per counted request, buffered in memory and written with the
// usage flush, trimmed per key by traffic and by age by housekeeping; read newest first with filters and a cursor.
import type { Kysely } from 'kysely';
import { REQUEST_LOG_PER_KEY, type RequestLogPage, type RequestLogQuery } from '@sigil/contract/usage-history';
import type { Database, RequestLogTable } from '../../platform/db/index';
import type { Logger } from '../../platform/log';
import { insertRequests, readRequests, trimKeys } from './request-log.queries';

/** Request-log rows held at most between flushes (all keys); more are dropped until the next flush. */
export const MAX_PENDING_REQUESTS = 50_000;
/**
 * A key's stored log is trimmed back to REQUEST_LOG_PER_KEY once this replica has written this many of its rows since
 * the last trim: trims follow traffic (one per hundred requests at most), not the number of keys.
 */
const TRIM_EVERY = 100;

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
 * The pending rows: per (account, key), the newest REQUEST_LOG_PER_KEY of them (older ones could only be trimmed
 * away once written), at most MAX_PENDING_REQUESTS in all.
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

/** `<at>:<request id>` (the query schema checked the shape) → the read's cursor. */
function cursorOf(before: string | undefined) {
  if (before === undefined) return undefined;
  const colon = before.indexOf(':');
  return { at: Number(before.slice(0, colon)), requestId: before.slice(colon + 1) };
}

export function createRequestLog({ db, log }: { db: Kysely<Database>; log: Logger }) {
  const pending = createRequestBuffer();
  /** `account \0 key` → rows this replica wrote since it last trimmed that key. */
  const untrimmed = new Map<string, number>();

  /** Trims the keys of a written batch that have grown by TRIM_EVERY rows since their last trim, all at once. */
  async function trimGrown(batches: RequestLogTable[][]): Promise<void> {
    const grown: { account: string; key_id: string }[] = [];
    for (const rows of batches) {
      const { account, key_id } = rows[0]!;
      const cell = `${account}\0${key_id}`;
      const written = (untrimmed.get(cell) ?? 0) + rows.length;
      if (written < TRIM_EVERY) {
        untrimmed.set(cell, written);
        continue;
      }
      untrimmed.delete(cell);
      grown.push({ account, key_id });
    }
    await trimKeys(db, grown, REQUEST_LOG_PER_KEY).catch((err: unknown) => {
      // Due again: each of these keys is trimmed with the next flush that writes a row of it.
      for (const { account, key_id } of grown) untrimmed.set(`${account}\0${key_id}`, TRIM_EVERY);
      log.warn({ err, keys: grown.length }, 'could not trim the request log; the next flush tries again');
    });
  }

  return {
    add(account: string, keyId: string, status: number, at: number, answered: AnsweredRequest): void {
      pending.add({
        account,
        key_id: keyId,
        at,
        request_id: answered.requestId,
        method: answered.method,
        route: answered.route,
        status,
        latency_us: Math.round(answered.latencyMs * 1000),
      });
    },

    /** Writes the pending rows (a failed write keeps them for the next flush), then trims what grew. */
    async write(): Promise<void> {
      const batches = pending.take();
      if (batches.length === 0) return;
      try {
        await insertRequests(db, batches.flat());
      } catch (err) {
        for (const rows of batches) for (const row of rows) pending.add(row);
        log.warn({ err }, 'could not write the request log; kept for the next flush');
        return;
      }
      await trimGrown(batches);
    },

    /** One page of the account's (or one key's) stored requests, newest first. */
    async page(account: string, query: RequestLogQuery): Promise<RequestLogPage> {
      const rows = await readRequests(db, {
        account,
        keyId: query.key_id,
        status: query.status,
        requestId: query.request_id,
        before: cursorOf(query.before),
        take: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        requests: page.map(entryOf),
        next_before: rows.length > query.limit && last ? `${Number(last.at)}:${last.request_id}` : null,
      };
    },
  };
}
