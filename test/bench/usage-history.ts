/**
 * What usage history adds to a keyed request (docs/usage-history.md): the same cheap keyed refusal over HTTP
 * (400 INVALID_NAME, no chain read) on two apps over one database (SQLite, or Postgres with `--db`), one recording usage and one whose recorder is
 * replaced by a no-op (the baseline, measured in the same run, rounds alternated); plus the recorder alone (µs per
 * recordResponse) and one flush of a large batch.
 *
 *   node --import tsx test/bench/usage-history.ts       (standalone)
 *   import { benchUsageHistory } from './usage-history'  (the main bench runner: `npm run bench -- usage`)
 */
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { FastifyInstance } from 'fastify';
import { migrateToLatest, type Dialect } from '../../server/src/platform/db/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { testConfig } from '../../server/src/platform/config';
import { createLogger } from '../../server/src/platform/log';
import { createKey } from '../../server/src/features/keys/service';
import { createUsageHistoryService } from '../../server/src/features/usage-history/service';
import { composeTestApp } from '../support/compose-app';
import { benchDb, table } from './support';

export interface UsageHistoryBench {
  baselineMicros: number;
  recordingMicros: number;
  overheadMicros: number;
  recordMicros: number;
  flushCells: number;
  flushMs: number;
}

const ROUNDS = 4;
const REQUESTS = 1500;

export async function benchUsageHistory(
  dialect: Dialect = 'sqlite',
): Promise<UsageHistoryBench & { markdown: string }> {
  const handle = await benchDb(dialect);
  const apps: FastifyInstance[] = [];
  try {
    await migrateToLatest(handle.db);
    const config = testConfig();
    // The refusal never reads the chain: the reader's URL is never called.
    const chain = createChainReader({ rpcUrl: config.rpcUrl, programId: config.programId, timeoutMs: 1000 });
    const start = async (record: boolean) => {
      const app = await composeTestApp({ config, chain, db: handle.db });
      if (!record) app.services.usageHistory.recordResponse = () => {};
      await app.listen({ port: 0, host: '127.0.0.1' });
      apps.push(app);
      return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    };
    const baseline = await start(false);
    const recording = await start(true);
    // Partner keys (1,000/minute), round-robin: every request stays on the admitting path.
    const keys = await Promise.all(
      Array.from({ length: 16 }, () =>
        createKey(handle.db, { account: base58.encode(randomBytes(32)), tier: 'partner' }),
      ),
    );
    let next = 0;
    const micros = async (base: string) => {
      const t0 = performance.now();
      for (let i = 0; i < REQUESTS; i++) {
        const res = await fetch(`${base}/v1/resolve/a..b`, {
          headers: { 'x-api-key': keys[next++ % keys.length]!.secret },
        });
        if (res.status !== 400) throw new Error(`expected 400, got ${res.status}`);
        await res.arrayBuffer();
      }
      return ((performance.now() - t0) * 1000) / REQUESTS;
    };
    await micros(baseline);
    await micros(recording);
    const base: number[] = [];
    const rec: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      base.push(await micros(baseline));
      rec.push(await micros(recording));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

    // The recorder alone, and one flush of many distinct cells (keys × outcomes) into minute and hour rows.
    const recorder = createUsageHistoryService({
      db: handle.db,
      keys: { usage: async () => ({ limits: { minute: 0, day: 0 }, keys: [] }) },
      log: createLogger({ logLevel: 'silent' }),
    });
    const n = 200_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++)
      recorder.recordResponse({ keyId: `key_${i % 1000}`, account: 'acct' }, i % 7 ? 200 : 404, {
        method: 'GET',
        route: '/v1/resolve/{name}',
        requestId: `req_${i}`,
        latencyMs: 0.4,
      });
    const recordMicros = ((performance.now() - t0) * 1000) / n;
    const t1 = performance.now();
    const flushCells = await recorder.flush();
    const flushMs = performance.now() - t1;
    await recorder.stop();

    const result: UsageHistoryBench = {
      baselineMicros: Math.round(median(base)),
      recordingMicros: Math.round(median(rec)),
      overheadMicros: Math.round(median(rec) - median(base)),
      recordMicros: Number(recordMicros.toFixed(2)),
      flushCells,
      flushMs: Math.round(flushMs),
    };
    const markdown = table(
      [`keyed refusal over HTTP (400 INVALID_NAME), sequential, ${dialect}`, 'µs/request (median of 4 rounds)'],
      [
        ['usage history off (recorder replaced by a no-op; baseline)', result.baselineMicros],
        ['usage history and request log on', result.recordingMicros],
        ['overhead per keyed request', result.overheadMicros],
        ['`recordResponse` alone (count + request-log row, in memory), µs', result.recordMicros],
        [
          `one flush of ${flushCells} cells (minute + hour rows) and the pending request-log rows (at most 50,000), ms`,
          result.flushMs,
        ],
      ],
    );
    return { ...result, markdown };
  } finally {
    for (const app of apps) await app.close();
    await handle.drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { markdown, ...numbers } = await benchUsageHistory();
  console.log(JSON.stringify(numbers, null, 2));
  console.log(markdown);
  process.exit(0);
}
