/**
 * Per-request overhead of the keyed platform on SQLite or Postgres (a fresh database either way): ops/sec of `RateLimiter.limit()` and of
 * `authenticateKey()` next to a bare `SELECT 1` through the same Kysely handle, in the same run.
 *
 *   node --import tsx test/bench/ratelimit.ts            (standalone)
 *   import { benchRateLimit } from './ratelimit'          (the main bench runner)
 */
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { sql } from 'kysely';
import { migrateToLatest, type Dialect } from '../../server/src/platform/db/index';
import { authenticateKey, createKey } from '../../server/src/features/keys/service';
import { createRateLimiter } from '../../server/src/features/ratelimit/service';
import { benchDb } from './support';

export interface RateLimitBench {
  dialect: Dialect;
  /** Sequential awaited calls per second. */
  selectOnePerSec: number;
  limitPerSec: number;
  authenticatePerSec: number;
  /** limit() cost in bare-SELECT units (how many `SELECT 1` one limit() costs). */
  limitVsSelect: number;
  limitMicros: number;
  authenticateMicros: number;
}

async function opsPerSec(durationMs: number, op: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await op(i); // warm up
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < durationMs) {
    await op(n);
    n++;
  }
  return n / ((performance.now() - start) / 1000);
}

export async function benchRateLimit(
  options: { durationMs?: number; dialect?: Dialect } = {},
): Promise<RateLimitBench> {
  const durationMs = options.durationMs ?? 2000;
  const dialect = options.dialect ?? 'sqlite';
  const handle = await benchDb(dialect);
  try {
    await migrateToLatest(handle.db);
    const limiter = createRateLimiter(handle.db);
    const { secret } = await createKey(handle.db, { account: base58.encode(randomBytes(32)) });
    const run = randomBytes(4).toString('hex');
    const selectOnePerSec = await opsPerSec(durationMs, () => sql`select 1`.execute(handle.db));
    // A fresh key every 900 calls keeps every call on the admitting path (partner: 1,000/minute).
    const limitPerSec = await opsPerSec(durationMs, (i) =>
      limiter.limit(`key_bench${run}${Math.floor(i / 900)}`, 'partner', 1),
    );
    const authenticatePerSec = await opsPerSec(durationMs, () => authenticateKey(handle.db, secret));
    return {
      dialect,
      selectOnePerSec: Math.round(selectOnePerSec),
      limitPerSec: Math.round(limitPerSec),
      authenticatePerSec: Math.round(authenticatePerSec),
      limitVsSelect: Math.round((selectOnePerSec / limitPerSec) * 10) / 10,
      limitMicros: Math.round(1e6 / limitPerSec),
      authenticateMicros: Math.round(1e6 / authenticatePerSec),
    };
  } finally {
    await handle.drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await benchRateLimit());
}
