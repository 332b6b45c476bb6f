/**
 * A separate OS process for the cross-process limiter race (ratelimit.concurrency.test.ts), speaking
 * runTogether's protocol (test/support/db-children.ts): open the database, print "ready", wait for "go",
 * fire `attempts` concurrent limit() calls, print one JSON line: how many passed.
 */
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import type { KeyTier } from '@sigil/contract/keys';
import { createDatabase } from '../../server/src/platform/db/index';
import { createRateLimiter } from '../../server/src/features/ratelimit/service';

export interface LimitJob {
  url: string;
  keyId: string;
  tier: KeyTier;
  attempts: number;
  cost: number;
  now: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as LimitJob;
const handle = createDatabase({ url: job.url, poolSize: 10 });
await sql`select 1`.execute(handle.db);

const lines = createInterface({ input: process.stdin });
const go = new Promise<void>((resolve) => lines.on('line', (line) => line.trim() === 'go' && resolve()));
process.stdout.write('ready\n');
await go;
lines.close();

const limiter = createRateLimiter(handle.db);
const results = await Promise.all(
  Array.from({ length: job.attempts }, () => limiter.limit(job.keyId, job.tier, job.cost, job.now)),
);
process.stdout.write(JSON.stringify({ passed: results.filter((r) => r.passed).length }) + '\n');
await handle.close();
