// Ingestion benchmarks: what the block-fed indexer costs the RPC, measured from outside with a counting proxy
// between the service's chain reader and the local chain (400 ms slots, finality 4 slots behind), in one process
// with the production workers (indexer pass every 1 s, delivery kicked by the indexer):
//  1. RPC calls per second while idle, and per delivered event, for 1 / 100 / 1,000 / 10,000 active wallet
//     subscriptions over distinct wallets (registered in bulk in the db: 10,000 challenge-signed registrations
//     through the API would take longer than the whole run). The target is a flat curve.
//  2. finalized → delivered p50 / p99 of native payments at each size (each payment to a different watched wallet).
//  3. The handle search index fed by the identity log: RPC calls and bytes of one pass with no registry change and
//     of one pass applying one change, with 100 and 10,000 handles in the index (the demo scenario's handles plus
//     rows seeded in the db: what a pass costs depends on the changes, not on the index's size).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAddressDecoder, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import type { Kysely } from 'kysely';
import { migrateToLatest, readKv, writeKv, type Database } from '../../server/src/platform/db/index';
import { runIdentityPass } from '../../server/src/features/identity-events/index';
import { HANDLE_INDEX_SEQUENCE_KEY, runHandleIndexPass } from '../../server/src/features/search/index-pass';
import { INDEXED_SLOT_KEY } from '../../server/src/workers/indexer';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { insertSubscriptions, newSubscriptionRow } from '../../server/src/features/webhooks/index';
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
/** Waits until the indexer has completed a pass up to the finalized slot of now. */
async function caughtUp(db: Kysely<Database>, chain: LocalChain): Promise<void> {
  const target = chain.slot('finalized');
  while (BigInt((await readKv(db, INDEXED_SLOT_KEY)) ?? '-1') < target) await sleep(100);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomAddress = () => getAddressDecoder().decode(randomBytes(32)) as Address;

interface SizeResult {
  subscriptions: number;
  idleCallsPerSec: number;
  idleBytesPerSec: number;
  idleCallsPerSlot: number;
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
    const rows = wallets.map((wallet) =>
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
        stream: 'pay',
      }),
    );
    await insertSubscriptions(database.db, rows);
    const reader = createChainReader({ rpcUrl: proxy.url, programId: chain.programId, timeoutMs: 5000 });
    // The identity stream starts at the same slot (from 0 its first passes would read the whole chain's history).
    const workers = startPayWebhookWorkers({
      db: database.db,
      chain: reader,
      client,
      indexer: { identity: { backfillFromSlot: from } },
    });
    await caughtUp(database.db, chain);
    reset(proxy.counter);
    const idleMs = 6000;
    const slotBefore = chain.slot('finalized');
    await sleep(idleMs);
    const idleSlots = Number(chain.slot('finalized') - slotBefore);
    const idleCallsPerSec = proxy.counter.calls / (idleMs / 1000);
    const idleBytesPerSec = proxy.counter.bytes / (idleMs / 1000);
    const idleCallsPerSlot = proxy.counter.calls / Math.max(1, idleSlots);

    const payer = await fundedWallet(chain, 100_000_000_000n);
    await caughtUp(database.db, chain);
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
      idleCallsPerSlot,
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

async function handleIndexPasses(size: number): Promise<{ quiet: [number, number]; oneChange: [number, number] }> {
  const chain = await startLocalChain({ scenario: true, autoAdvance: false });
  const proxy = await countingProxy(chain.url);
  const database = tempDb();
  try {
    await migrateToLatest(database.db);
    await chain.finalizeAll();
    const reader = createChainReader({ rpcUrl: proxy.url, programId: chain.programId, timeoutMs: 5000 });
    await runIdentityPass(database.db, { chain: reader });
    const deps = { chain: reader, fromIdentityEvents: true };
    await runHandleIndexPass(database.db, deps); // the one full build
    const present = (await database.db.selectFrom('handle_index').select('name').execute()).length;
    const filler = Array.from({ length: Math.max(0, size - present) }, (_, i) => ({
      name: `filler${i}`,
      account: randomAddress(),
      owner: randomAddress(),
      handle_type: 0,
      agent: 0,
      registered_slot: 1,
      updated_at: Date.now(),
    }));
    for (let i = 0; i < filler.length; i += 500) {
      await database.db
        .insertInto('handle_index')
        .values(filler.slice(i, i + 500))
        .execute();
    }
    reset(proxy.counter);
    await runHandleIndexPass(database.db, deps);
    const quiet: [number, number] = [proxy.counter.calls, proxy.counter.bytes];
    // One change: the newest identity event applied again (what a pass after one registry change reads).
    const applied = Number(await readKv(database.db, HANDLE_INDEX_SEQUENCE_KEY));
    await writeKv(database.db, HANDLE_INDEX_SEQUENCE_KEY, String(applied - 1));
    reset(proxy.counter);
    await runHandleIndexPass(database.db, deps);
    return { quiet, oneChange: [proxy.counter.calls, proxy.counter.bytes] };
  } finally {
    proxy.server.close();
    await database.drop();
    await chain.close();
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
  const index = [] as [number, Awaited<ReturnType<typeof handleIndexPasses>>][];
  for (const size of [100, 10_000]) index.push([size, await handleIndexPasses(size)]);
  const base = results[0]!;
  const spread = (value: number, first: number) =>
    `${value >= first ? '+' : ''}${Math.round(((value - first) / first) * 100)} %`;
  const payTable = table(
    [
      `block source, local chain (${payments} native payments per size, each to a different watched wallet)`,
      'idle RPC calls/s',
      'idle bytes/s',
      'idle RPC calls per finalized slot',
      'RPC calls per delivered event',
      'finalized → delivered p50',
      'p99',
    ],
    results.map((r) => [
      `${r.subscriptions.toLocaleString('en-US')} wallet subscriptions`,
      `${r.idleCallsPerSec.toFixed(2)} (${spread(r.idleCallsPerSec, base.idleCallsPerSec)})`,
      Math.round(r.idleBytesPerSec),
      `${r.idleCallsPerSlot.toFixed(2)} (${spread(r.idleCallsPerSlot, base.idleCallsPerSlot)})`,
      `${r.callsPerEvent.toFixed(2)} (${spread(r.callsPerEvent, base.callsPerEvent)})`,
      `${Math.round(r.p50)} ms`,
      `${Math.round(r.p99)} ms`,
    ]),
  );
  const indexTable = table(
    ['handle search index, one pass (from the identity log)', 'RPC calls', 'bytes', 'RPC calls, one change', 'bytes'],
    index.map(([size, r]) => [
      `${size.toLocaleString('en-US')} handles`,
      r.quiet[0],
      r.quiet[1],
      r.oneChange[0],
      r.oneChange[1],
    ]),
  );
  return `${payTable}\n\n${indexTable}`;
}

// `node --import tsx test/bench/ingest.ts`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchIngest());
  process.exit(0);
}
