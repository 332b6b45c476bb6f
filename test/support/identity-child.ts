/**
 * The identity pipeline in its own process, to be killed with SIGKILL mid-stream (crash tests):
 *   node --import tsx test/support/identity-child.ts '{"url":…,"rpcUrl":…,"programId":…,"delayMs":…}'
 * Runs the app's workers (the indexer under its lease, identity stream included, and the delivery worker) on the
 * database at `url` against the local chain at `rpcUrl`, each transaction read `delayMs` late so that a kill lands
 * between commits. Short leases, so that a successor takes over soon after a kill. Prints "ready".
 */
import type { Address } from '@solana/kit';
import { createChainReader } from '../../server/src/platform/chain/reader';
import type { ChainReader } from '../../server/src/platform/chain/types';
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
const handle = createDatabase({ url: job.url });
const reader = createChainReader({ rpcUrl: job.rpcUrl, programId: job.programId as Address, timeoutMs: 5000 });
const chain: ChainReader = {
  ...reader,
  getTransaction: async (signature, commitment) => {
    await new Promise((r) => setTimeout(r, job.delayMs));
    return reader.getTransaction(signature, commitment);
  },
};
startPayWebhookWorkers({
  db: handle.db,
  chain,
  client: createOutboundClient({ allowLoopback: true, ca: job.ca }),
  indexer: { intervalMs: 50, leaseTtlMs: 1000 },
  delivery: { intervalMs: 50, leaseMs: 2000 },
});
process.stdout.write('ready\n');
