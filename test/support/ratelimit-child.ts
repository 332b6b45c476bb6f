/**
 * A separate OS process for the cross-process limiter races (ratelimit.concurrency.test.ts, keys/admit.happy.test.ts),
 * speaking runTogether's protocol (test/support/db-children.ts): open the database, print "ready", wait for "go",
 * fire `attempts` concurrent limit() calls — or, with `keyStep`, as many keyed-request key steps (admitKeyRequest)
 * spread over `waves` event-loop turns — and print one JSON line: how many passed, and the minute's remaining value
 * each admitted request was told.
 */
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import type { KeyTier } from '@sigil/contract/keys';
import { createDatabase } from '../../server/src/platform/db/index';
import { admitKeyRequest } from '../../server/src/features/keys/service';
import { createRateLimiter, type RateLimitResult } from '../../server/src/features/ratelimit/service';

export interface LimitJob {
  url: string;
  keyId: string;
  tier: KeyTier;
  attempts: number;
  cost: number;
  now: number;
  /** The key step of a keyed request with this key's secret (its own id and tier then), the attempts in `waves` turns. */
  keyStep?: { secret: string; waves: number };
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
const attempts: Promise<RateLimitResult | undefined>[] = [];
const { keyStep } = job;
for (let i = 0; i < job.attempts; i++) {
  if (!keyStep) {
    attempts.push(limiter.limit(job.keyId, job.tier, job.cost, job.now));
    continue;
  }
  // A new event-loop turn every attempts/waves requests, so each process sends several batches that overlap.
  if (i > 0 && i % Math.ceil(job.attempts / keyStep.waves) === 0) await new Promise((r) => setImmediate(r));
  attempts.push(admitKeyRequest(handle.db, keyStep.secret, job.cost, job.now).then((admitted) => admitted?.result));
}
const passed = (await Promise.all(attempts)).filter((r) => r?.passed);
process.stdout.write(
  JSON.stringify({ passed: passed.length, remaining: passed.map((r) => r!.minute.remaining) }) + '\n',
);
await handle.close();
