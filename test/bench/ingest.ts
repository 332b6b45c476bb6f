// Ingestion benchmarks: what the block-fed indexer costs the RPC, measured from outside with a counting proxy
// between the service's chain reader and the local chain (400 ms slots, finality 4 slots behind), in one process
// with the production workers (indexer pass every 1 s, delivery kicked by the indexer):
//  1. RPC calls per second while idle, and per delivered event, for 1 / 100 / 1,000 / 10,000 active wallet
//     subscriptions over distinct wallets (registered in bulk in the db: 10,000 challenge-signed registrations
//     through the API would take longer than the whole run). The target is a flat curve.
//  2. finalized → delivered p50 / p99 of native payments at each size (each payment to a different watched wallet).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAddressDecoder, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { migrateToLatest } from '../../server/src/platform/db/index';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { newSubscriptionRow } from '../../server/src/features/pay-webhooks/service';
import { startPayWebhookWorkers } from '../../server/src/workers/pay-webhooks';
import { selfSignedCert, startHttpsReceiver } from '../support/https-receiver';
import { fundedWallet, signedTransaction } from '../support/localchain-wallets';
import { percentile, table, tempDb } from './support';

interface Counter {
  calls: number;
  bytes: number;
  byMethod: Map<string, number>;
}

/** A JSON-RPC proxy in front of the chain that counts calls (each entry of a batch), by method, and answer bytes. */
async function countingProxy(target: string): Promise<{ url: string; counter: Counter; server: Server }> {
  const counter: Counter = { calls: 0, bytes: 0, byMethod: new Map() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const parsed = JSON.parse(body.toString('utf8')) as { method: string } | { method: string }[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        counter.calls++;
        counter.byMethod.set(call.method, (counter.byMethod.get(call.method) ?? 0) + 1);
      }
      const upstream = await fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      const answer = Buffer.from(await upstream.arrayBuffer());
      counter.bytes += answer.length;
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counter, server };
}

const reset = (c: Counter) => {
  c.calls = 0;
  c.bytes = 0;
  c.byMethod.clear();
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomAddress = () => getAddressDecoder().decode(randomBytes(32)) as Address;

interface SizeResult {
  subscriptions: number;
  idleCallsPerSec: number;
  idleBytesPerSec: number;
  callsPerEvent: number;
  p50: number;
  p99: number;
}

async function measureSize(chain: LocalChain, subscriptions: number, payments: number): Promise<SizeResult> {
  const arrivals = new Map<string, number>();
  const receiver = await startHttpsReceiver((req, res, body) => {
    if (req.headers['sigil-event-type'] === 'payment.received') {
      const signature = (JSON.parse(body.toString('utf8')) as { chain: { signature: string } }).chain.signature;
      arrivals.set(signature, performance.now());
    }
    res.writeHead(200).end();
  });
  const proxy = await countingProxy(chain.url);
  const database = tempDb();
  const client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert });
  try {
    await migrateToLatest(database.db);
    const wallets = Array.from({ length: subscriptions }, randomAddress);
    const from = Number(chain.slot('finalized'));
    const url = `https://127.0.0.1:${receiver.port}/pay`;
    for (let i = 0; i < wallets.length; i += 500) {
      const rows = wallets.slice(i, i + 500).map((wallet) =>
        newSubscriptionRow(Date.now(), {
          account: 'acct_bench',
          key_id: 'key_bench',
          scope_type: 'wallet',
          scope_value: wallet,
          wallets: JSON.stringify([wallet]),
          url,
          event_types: JSON.stringify(['payment.received']),
          description: null,
          secret: `whsec_${randomBytes(24).toString('base64')}`,
          watch_from_slot: from,
        }),
      );
      await database.db.insertInto('webhook_subscriptions').values(rows).execute();
    }
    const reader = createChainReader({ rpcUrl: proxy.url, programId: chain.programId, timeoutMs: 5000 });
    const workers = startPayWebhookWorkers({ db: database.db, chain: reader, client });
    await sleep(3000); // first passes: the identity stream's backfill, the cursor's first position
    reset(proxy.counter);
    const idleMs = 6000;
    await sleep(idleMs);
    const idleCallsPerSec = proxy.counter.calls / (idleMs / 1000);
    const idleBytesPerSec = proxy.counter.bytes / (idleMs / 1000);

    const payer = await fundedWallet(chain, 100_000_000_000n);
    await sleep(2000);
    reset(proxy.counter);
    const finalizedAt = new Map<string, number>();
    const pending: Promise<void>[] = [];
    const step = Math.max(1, Math.floor(subscriptions / payments));
    for (let i = 0; i < payments; i++) {
      const destination = wallets[(i * step) % wallets.length]!;
      const tx = await signedTransaction(chain, payer, [
        getTransferSolInstruction({ source: payer, destination, amount: 1_000_000n + BigInt(i) }),
      ]);
      pending.push(
        chain
          .sendAndConfirm(tx, { commitment: 'finalized' })
          .then((sig) => void finalizedAt.set(sig, performance.now())),
      );
      await sleep(150);
    }
    await Promise.all(pending);
    const deadline = Date.now() + 30_000;
    while (arrivals.size < payments && Date.now() < deadline) await sleep(50);
    const windowCalls = proxy.counter.calls;
    await workers.stop();
    if (arrivals.size < payments) throw new Error(`only ${arrivals.size} of ${payments} payments delivered`);
    const latencies = [...finalizedAt].map(([sig, at]) => arrivals.get(sig)! - at).sort((a, b) => a - b);
    return {
      subscriptions,
      idleCallsPerSec,
      idleBytesPerSec,
      callsPerEvent: windowCalls / arrivals.size,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    await client.close();
    await receiver.close();
    proxy.server.close();
    await database.drop();
  }
}

export async function benchIngest({ sizes = [1, 100, 1000, 10_000], payments = 20 } = {}): Promise<string> {
  const chain = await startLocalChain({ scenario: false });
  const results: SizeResult[] = [];
  try {
    for (const size of sizes) results.push(await measureSize(chain, size, payments));
  } finally {
    await chain.close();
  }
  const base = results[0]!;
  const spread = (value: number, first: number) =>
    `${value >= first ? '+' : ''}${Math.round(((value - first) / first) * 100)} %`;
  return table(
    [
      `block source, local chain (${payments} native payments per size, each to a different watched wallet)`,
      'idle RPC calls/s',
      'idle bytes/s',
      'RPC calls per delivered event',
      'finalized → delivered p50',
      'p99',
    ],
    results.map((r) => [
      `${r.subscriptions.toLocaleString('en-US')} wallet subscriptions`,
      `${r.idleCallsPerSec.toFixed(2)} (${spread(r.idleCallsPerSec, base.idleCallsPerSec)})`,
      Math.round(r.idleBytesPerSec),
      `${r.callsPerEvent.toFixed(2)} (${spread(r.callsPerEvent, base.callsPerEvent)})`,
      `${Math.round(r.p50)} ms`,
      `${Math.round(r.p99)} ms`,
    ]),
  );
}

// `node --import tsx test/bench/ingest.ts`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchIngest());
  process.exit(0);
}
