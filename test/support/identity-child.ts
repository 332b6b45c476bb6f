/**
 * The identity pipeline in its own process, to be killed with SIGKILL mid-stream (crash tests):
 *   node --import tsx test/support/identity-child.ts '{"url":…,"rpcUrl":…,"programId":…,"delayMs":…}'
 * Runs the app's workers (the indexer under its lease, identity stream included, and the delivery worker) on the
 * database at `url` against the local chain at `rpcUrl`, each write of an identity event held `delayMs` before its
 * transaction commits (the process stands still, as a slow disk would make it), so that a kill lands between two
 * commits of one block. Short leases, so that a successor takes over soon after a kill. Prints "ready".
 */
import type { Address } from '@solana/kit';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { createDatabase } from '../../server/src/platform/db/index';
import { startPayWebhookWorkers } from '../../server/src/workers/pay-webhooks';
import { createOutboundClient } from '../../server/src/platform/outbound/client';

export interface IdentityChildJob {
  url: string;
  rpcUrl: string;
  programId: string;
  delayMs: number;
  /** The PEM certificate of the parent's HTTPS receiver (self-signed per process). */
  ca: string;
}

const job = JSON.parse(process.argv[2] ?? '{}') as IdentityChildJob;
/** Blocks this process's thread for `ms` (a slow write, not a timer: nothing else runs meanwhile). */
const standStill = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const handle = createDatabase({
  url: job.url,
  onQuery: (event) => {
    if (/^insert into "identity_events"/i.test(event.query.sql)) standStill(job.delayMs);
  },
});
const chain = createChainReader({ rpcUrl: job.rpcUrl, programId: job.programId as Address, timeoutMs: 5000 });
startPayWebhookWorkers({
  db: handle.db,
  chain,
  client: createOutboundClient({ allowLoopback: true, ca: job.ca }),
  indexer: { intervalMs: 50, leaseTtlMs: 1000 },
  delivery: { intervalMs: 50, leaseMs: 2000 },
});
process.stdout.write('ready\n');
