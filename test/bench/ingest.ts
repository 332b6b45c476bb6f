// Ingestion benchmarks: what the block-fed indexer costs the RPC and the db, measured from outside with a counting
// proxy between the service's chain reader and the local chain (400 ms slots, finality 4 slots behind), in one process
// with the production workers (indexer passes that follow the finalized tip, delivery kicked per committed
// transaction), on SQLite or Postgres (`--db`; `--db both` measures each size on both in turn, rows side by side):
//  1. for 0 / 1 / 10 / 100 / 1,000 / 10,000 active wallet subscriptions over distinct wallets (registered in bulk in
//     the db with their watched-wallet rows: 10,000 challenge-signed registrations through the API would take longer
//     than the whole run): RPC calls per second, per finalized slot and per pass while idle, pass time, the db time
//     the pipeline spends per block (consumers + cursor), and RPC calls per delivered event. The target is flat.
//  2. finalized → delivered p50 / p99 of native payments at each size (each payment to a different watched wallet).
//  3. The handle search index fed by the identity log: RPC calls and bytes of one pass with no registry change and
//     of one pass applying one change, with 100 and 10,000 handles in the index (the demo scenario's handles plus
//     rows seeded in the db: what a pass costs depends on the changes, not on the index's size).
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAddressDecoder, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import type { Kysely } from 'kysely';
import { migrateToLatest, readKv, writeKv, type Database, type Dialect } from '../../server/src/platform/db/index';
import { runIdentityPass } from '../../server/src/features/identity-events/index';
import { HANDLE_INDEX_SEQUENCE_KEY, runHandleIndexPass } from '../../server/src/features/search/index-pass';
import { INDEXED_SLOT_KEY } from '../../server/src/workers/indexer';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { insertSubscriptions, newSubscriptionRow } from '../../server/src/features/webhooks/index';
import { startPayWebhookWorkers } from '../../server/src/workers/pay-webhooks';
import { selfSignedCert, startHttpsReceiver } from '../support/https-receiver';
import { fundedWallet, signedTransaction } from '../support/localchain-wallets';
import { createBlockSource } from '../../server/src/platform/chain/source/blocks';
import type { ChainSource } from '../../server/src/platform/chain/source/types';
import { benchDb, benchDialects, percentile, table } from './support';

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

interface PassStats {
  passes: number;
  passMs: number[];
  /** Per block: from its hand-over to the consumers until they asked for the next one (db work, cursor write). */
  blockMs: number[];
}

/** The production block source, timed from outside: passes (one `blocks()` each), their length, each block's work. */
function timedSource(inner: ChainSource, stats: PassStats): ChainSource {
  return {
    kind: inner.kind,
    async *blocks(afterSlot, signal) {
      stats.passes++;
      const started = performance.now();
      try {
        for await (const block of inner.blocks(afterSlot, signal)) {
          const handed = performance.now();
          try {
            yield block;
          } finally {
            stats.blockMs.push(performance.now() - handed);
          }
        }
      } finally {
        stats.passMs.push(performance.now() - started);
      }
    },
  };
}

const clear = (stats: PassStats) => {
  stats.passes = 0;
  stats.passMs.length = 0;
  stats.blockMs.length = 0;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

interface SizeResult {
  dialect: Dialect;
  subscriptions: number;
  idleCallsPerSec: number;
  idleCallsPerSlot: number;
  idleCallsPerPass: number;
  passMs: number;
  blockP50: number;
  blockP99: number;
  callsPerEvent: number | null;
  p50: number | null;
  p99: number | null;
}

/** Seeds `count` wallet subscriptions over distinct random wallets, watching from `from`. */
async function seedSubscriptions(db: Kysely<Database>, count: number, url: string, from: number): Promise<Address[]> {
  const wallets = Array.from({ length: count }, randomAddress);
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
  await insertSubscriptions(db, rows);
  return wallets;
}

/** Sends `payments` native payments to watched wallets; finalized → delivered of each, ascending. */
async function payAndWait(
  chain: LocalChain,
  wallets: Address[],
  payments: number,
  arrivals: Map<string, number>,
): Promise<number[]> {
  const payer = await fundedWallet(chain, 100_000_000_000n);
  const finalizedAt = new Map<string, number>();
  const pending: Promise<void>[] = [];
  const step = Math.max(1, Math.floor(wallets.length / payments));
  for (let i = 0; i < payments; i++) {
    const destination = wallets[(i * step) % wallets.length]!;
    const tx = await signedTransaction(chain, payer, [
      getTransferSolInstruction({ source: payer, destination, amount: 1_000_000n + BigInt(i) }),
    ]);
    pending.push(
      chain.sendAndConfirm(tx, { commitment: 'finalized' }).then((sig) => void finalizedAt.set(sig, performance.now())),
    );
    await sleep(150);
  }
  await Promise.all(pending);
  const deadline = Date.now() + 30_000;
  while ([...finalizedAt.keys()].some((sig) => !arrivals.has(sig)) && Date.now() < deadline) await sleep(50);
  const missing = [...finalizedAt.keys()].filter((sig) => !arrivals.has(sig));
  if (missing.length > 0) throw new Error(`${missing.length} of ${payments} payments not delivered`);
  return sorted([...finalizedAt].map(([sig, at]) => arrivals.get(sig)! - at));
}

async function measureSize(
  chain: LocalChain,
  dialect: Dialect,
  subscriptions: number,
  payments: number,
): Promise<SizeResult> {
  const arrivals = new Map<string, number>();
  const receiver = await startHttpsReceiver((req, res, body) => {
    if (req.headers['sigil-event-type'] === 'payment.received') {
      const signature = (JSON.parse(body.toString('utf8')) as { chain: { signature: string } }).chain.signature;
      arrivals.set(signature, performance.now());
    }
    res.writeHead(200).end();
  });
  const proxy = await countingProxy(chain.url);
  const database = await benchDb(dialect);
  const client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert });
  const stats: PassStats = { passes: 0, passMs: [], blockMs: [] };
  try {
    await migrateToLatest(database.db);
    const from = Number(chain.slot('finalized'));
    const wallets = await seedSubscriptions(database.db, subscriptions, `https://127.0.0.1:${receiver.port}/pay`, from);
    const reader = createChainReader({ rpcUrl: proxy.url, programId: chain.programId, timeoutMs: 5000 });
    // The identity stream starts at the same slot (from 0 its first passes would read the whole chain's history).
    const workers = startPayWebhookWorkers({
      db: database.db,
      chain: reader,
      client,
      indexer: { identity: { backfillFromSlot: from }, source: timedSource(createBlockSource(reader), stats) },
    });
    try {
      await caughtUp(database.db, chain);
      // Subscriptions count as new (their look-back) for a few seconds after creation: measure past that.
      await sleep(6000);
      reset(proxy.counter);
      clear(stats);
      const idleMs = 15_000;
      const slotBefore = chain.slot('finalized');
      await sleep(idleMs);
      const idleSlots = Number(chain.slot('finalized') - slotBefore);
      const idle = {
        calls: proxy.counter.calls,
        passes: stats.passes,
        passMs: mean(stats.passMs),
        blocks: sorted(stats.blockMs),
      };
      let latencies: number[] = [];
      let callsPerEvent: number | null = null;
      if (subscriptions > 0) {
        reset(proxy.counter);
        latencies = await payAndWait(chain, wallets, payments, arrivals);
        callsPerEvent = proxy.counter.calls / payments;
      }
      return {
        dialect,
        subscriptions,
        idleCallsPerSec: idle.calls / (idleMs / 1000),
        idleCallsPerSlot: idle.calls / Math.max(1, idleSlots),
        idleCallsPerPass: idle.calls / Math.max(1, idle.passes),
        passMs: idle.passMs,
        blockP50: percentile(idle.blocks, 50),
        blockP99: percentile(idle.blocks, 99),
        callsPerEvent,
        p50: latencies.length ? percentile(latencies, 50) : null,
        p99: latencies.length ? percentile(latencies, 99) : null,
      };
    } finally {
      await workers.stop();
    }
  } finally {
    await client.close();
    await receiver.close();
    proxy.server.close();
    await database.drop();
  }
}

async function handleIndexPasses(
  dialect: Dialect,
  size: number,
): Promise<{ quiet: [number, number]; oneChange: [number, number] }> {
  const chain = await startLocalChain({ scenario: true, autoAdvance: false });
  const proxy = await countingProxy(chain.url);
  const database = await benchDb(dialect);
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

export async function benchIngest({
  sizes = [0, 1, 10, 100, 1000, 10_000],
  payments = 20,
  dialects = ['sqlite'] as Dialect[],
} = {}): Promise<string> {
  const chain = await startLocalChain({ scenario: false });
  const results: SizeResult[] = [];
  try {
    for (const size of sizes) {
      for (const dialect of dialects) {
        results.push(await measureSize(chain, dialect, size, payments));
        console.error(`ingest: ${dialect} ${size} done (load average ${loadavg()[0]!.toFixed(1)})`);
      }
    }
  } finally {
    await chain.close();
  }
  const index = [] as [string, Awaited<ReturnType<typeof handleIndexPasses>>][];
  for (const size of [100, 10_000])
    for (const dialect of dialects)
      index.push([`${dialect}, ${size.toLocaleString('en-US')} handles`, await handleIndexPasses(dialect, size)]);
  const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value)} ms`);
  const payTable = table(
    [
      `block source, local chain (${payments} native payments per size, each to a different watched wallet)`,
      'idle RPC calls/s',
      'idle RPC calls per finalized slot',
      'idle RPC calls per pass',
      'pass time (mean)',
      'db time per block p50 / p99',
      'RPC calls per delivered event',
      'finalized → delivered p50',
      'p99',
    ],
    results.map((r) => [
      `${r.dialect}, ${r.subscriptions.toLocaleString('en-US')} wallet subscriptions`,
      r.idleCallsPerSec.toFixed(2),
      r.idleCallsPerSlot.toFixed(2),
      r.idleCallsPerPass.toFixed(1),
      ms(r.passMs),
      `${r.blockP50.toFixed(1)} / ${r.blockP99.toFixed(1)} ms`,
      r.callsPerEvent === null ? '—' : r.callsPerEvent.toFixed(2),
      ms(r.p50),
      ms(r.p99),
    ]),
  );
  const indexTable = table(
    ['handle search index, one pass (from the identity log)', 'RPC calls', 'bytes', 'RPC calls, one change', 'bytes'],
    index.map(([label, r]) => [label, r.quiet[0], r.quiet[1], r.oneChange[0], r.oneChange[1]]),
  );
  return `${payTable}\n\n${indexTable}`;
}

// `node --import tsx test/bench/ingest.ts [--db sqlite|postgres|both]`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchIngest({ dialects: benchDialects(process.argv.slice(2)).dialects }));
  process.exit(0);
}
