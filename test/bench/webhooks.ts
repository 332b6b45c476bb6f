// Pay webhook benchmarks, in one process (chain, db, workers and the receiver share the 2 cores, as a single
// replica would), on SQLite or Postgres (`--db`; both side by side with `--db both`):
//  1. Throughput: queued events delivered by the delivery worker (claim under lease, 60/min budget check, HMAC
//     signing, outbound client with the destination policy, finish under lease) to a local HTTPS receiver, next to
//     raw undici POSTs of the same bodies to the same receiver with the same concurrency.
//  2. Latency: native payments on the local chain (400 ms slots, finality 4 slots behind), from the moment the
//     transaction is finalized to the moment the signed delivery reaches the receiver, with the production worker
//     settings (indexer pass every 1 s, delivery kicked by the indexer).
//  3. The delivery detail's attempt pages, as the route builds its body, vs the bare SELECT of the same rows.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { getTransferSolInstruction } from '@solana-program/system';
import { WEBHOOK_LIMITS } from '@sigil/contract/webhooks';
import { migrateToLatest, type Dialect } from '../../server/src/platform/db/index';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { selfSignedCert, startHttpsReceiver } from '../support/https-receiver';
import { buildDeliveryRequest } from '../../server/src/features/pay-webhooks/stream';
import { registerWebhook } from '../../server/src/features/pay-webhooks/service';
import {
  fundedWallet,
  issueChallengeFromBody,
  queueEvents,
  samplePayEvent,
  seedWebhook,
  signedTransaction,
  signRaw,
} from '../support/webhooks-world';
import {
  createQueueSignal,
  createWebhookStreamService,
  startDeliveryWorker,
} from '../../server/src/features/webhooks/index';
import { AttemptPageSchema } from '@sigil/contract/owner-webhooks';
import { prefixedId } from '../../server/src/platform/ids';
import { StoredJson } from '../../server/src/platform/stored-json';
import { storedOutput } from '../../server/src/trpc/stored-output';
import { payWebhookStream } from '../../server/src/features/pay-webhooks/index';
import { benchDb, benchDialects, deliveryLatency, percentile, table } from './support';

const CONCURRENCY = 16;

export interface ThroughputResult {
  rawPerSec: number;
  deliveredPerSec: number;
  /** Delivered ÷ raw, the median of the rounds' own ratios. */
  ratio: number;
  /** CPU of this process (client, receiver, worker, SQLite) per event, µs: medians of the measured passes. */
  cpuMicros: { raw: number; delivered: number };
  /** SQL statements the measured delivery pass ran, per delivered event. */
  statementsPerDelivery: number;
}

/** Outcomes counted by kind, for an error message. */
const tally = (outcomes: string[]) =>
  JSON.stringify(Object.fromEntries([...new Set(outcomes)].map((o) => [o, outcomes.filter((x) => x === o).length])));

/** CPU µs (user + system) of this process since `from`. */
const cpuOf = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return used.user + used.system;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Delivered events per second vs raw undici POSTs, on a fresh `dialect` database: after one warm-up pass of each
 * (JIT, TLS sessions, connections, prepared statements: measured cold, raw was ~2x slower and flattered the ratio),
 * `rounds` rounds of one raw pass then one delivered pass, so that a burst of load on the shared machine lands on
 * both sides of a round; the figures are the medians of the rounds (the ratio: the median of the rounds' ratios).
 * `profile`: a file to write the inspector's CPU profile of the first measured delivery pass to (the seeding, thousands
 * of inserts, would dominate a whole-process `--cpu-prof`).
 */
export async function throughput(
  dialect: Dialect,
  events: number,
  { profile, rounds = 3 }: { profile?: string; rounds?: number } = {},
): Promise<ThroughputResult> {
  const receiver = await startHttpsReceiver((_req, res) => res.writeHead(200).end());
  const url = `https://127.0.0.1:${receiver.port}/hook`;
  const ca = selfSignedCert().cert;
  let statements = 0;
  const database = await benchDb(dialect, { onQuery: () => void statements++ });
  const agent = new Agent({ connect: { ca }, connections: CONCURRENCY });
  const cpuMicros = { raw: [] as number[], delivered: [] as number[] };
  const client = createOutboundClient({ allowLoopback: true, ca });
  try {
    await migrateToLatest(database.db);
    // Bodies like the real ones (a signed sample payment, ~1 KB).
    const sample = buildDeliveryRequest(
      samplePayEvent('bench'),
      { deliveryId: 'whdel_bench', webhookId: 'whsub_bench' },
      'whsec_bench',
      Date.now(),
    );

    // Raw: undici with keep-alive, CONCURRENCY requests in flight, nothing else.
    const rawPass = async () => {
      let next = 0;
      const cpu = process.cpuUsage();
      const start = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < events) {
            const res = await request(url, {
              method: 'POST',
              body: sample.body,
              headers: sample.headers,
              dispatcher: agent,
            });
            await res.body.dump();
            if (res.statusCode !== 200) throw new Error(`raw POST answered ${res.statusCode}`);
          }
        }),
      );
      const perSec = events / ((performance.now() - start) / 1000);
      cpuMicros.raw.push(cpuOf(cpu) / events);
      receiver.requests.length = 0;
      return perSec;
    };

    // Delivered: queued rows spread over enough webhooks that the 60/min budget never defers one (the budget is a
    // per-webhook limit, not what this measures).
    const perHook = WEBHOOK_LIMITS.deliveriesPerMinute - 10;
    const worker = startDeliveryWorker(
      { db: database.db, client, streams: [payWebhookStream], concurrency: CONCURRENCY },
      { loop: false },
    );
    const deliveredPass = async (profileTo?: string) => {
      for (let queued = 0; queued < events; queued += perHook) {
        const hook = await seedWebhook(database.db, url);
        await queueEvents(database.db, hook.id, Math.min(perHook, events - queued), Date.now() - 1000, 'bench');
      }
      statements = 0;
      const cpu = process.cpuUsage();
      const start = performance.now();
      const outcomes = profileTo ? await profiled(profileTo, () => worker.runOnce()) : await worker.runOnce();
      const perSec = events / ((performance.now() - start) / 1000);
      cpuMicros.delivered.push(cpuOf(cpu) / events);
      if (outcomes.length !== events || outcomes.some((o) => o !== 'delivered'))
        throw new Error(`expected ${events} delivered, got ${tally(outcomes)}`);
      receiver.requests.length = 0;
      return perSec;
    };

    await rawPass();
    await deliveredPass();
    const raw: number[] = [];
    const delivered: number[] = [];
    let statementsPerDelivery = 0;
    for (let round = 0; round < rounds; round++) {
      raw.push(await rawPass());
      delivered.push(await deliveredPass(round === 0 ? profile : undefined));
      statementsPerDelivery = statements / events;
    }
    await worker.stop();
    return {
      rawPerSec: median(raw),
      deliveredPerSec: median(delivered),
      ratio: median(raw.map((r, i) => delivered[i]! / r)),
      cpuMicros: { raw: median(cpuMicros.raw.slice(1)), delivered: median(cpuMicros.delivered.slice(1)) },
      statementsPerDelivery,
    };
  } finally {
    await agent.close();
    await client.close();
    await receiver.close();
    await database.drop();
  }
}

/** Runs `work` under the inspector's CPU profiler (this process only) and writes the profile to `file`. */
async function profiled<T>(file: string, work: () => Promise<T>): Promise<T> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

const LOG_ROUNDS = 5;

/**
 * The delivery detail's attempt pages (session route GET …/deliveries/{id}/attempts): pages of 50 of a delivery's
 * 200 attempts, built as the route builds its body (the service's answer through the procedure's output parser, then
 * its bytes), next to the bare SELECT of the same rows and to the former body (each attempt's stored headers parsed,
 * the page validated and serialized). Rounds alternate the variants; each figure is its median round, pages/s.
 */
async function attemptLog(dialect: Dialect, pages = 400): Promise<{ bare: number; route: number; former: number }> {
  const database = await benchDb(dialect);
  try {
    await migrateToLatest(database.db);
    const hook = await seedWebhook(database.db, 'https://receiver.example.com/hook');
    const [deliveryId] = await queueEvents(database.db, hook.id, 1);
    const { headers } = buildDeliveryRequest(
      samplePayEvent('bench'),
      { deliveryId: deliveryId!, webhookId: hook.id },
      'whsec_bench',
      Date.now(),
    );
    const attempts = Array.from({ length: 200 }, (_, i) => ({
      id: prefixedId('whatt_', Date.now() + i),
      delivery_id: deliveryId!,
      attempt: (i % 6) + 1,
      attempted_at: Date.now() + i,
      status: i % 6 === 5 ? 200 : 500,
      error: i % 6 === 5 ? null : 'http_status',
      duration_ms: 12,
      headers: JSON.stringify({ 'user-agent': 'sigil-outbound/1', ...headers }),
    }));
    await database.db.insertInto('webhook_attempts').values(attempts).execute();
    const hooks = createWebhookStreamService({
      db: database.db,
      stream: payWebhookStream,
      enabled: true,
      queued: createQueueSignal(),
    });
    const caller = { keyId: 'key_seed', account: 'acct_seed' };
    const output = storedOutput(AttemptPageSchema);
    const cursors = [undefined, ...attempts.filter((_, i) => i % 50 === 0 && i > 0).map((a) => a.id)].reverse();
    const variants = {
      bare: (cursor?: string) =>
        database.db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where('delivery_id', '=', deliveryId!)
          .$if(cursor !== undefined, (q) => q.where('id', '<', cursor!))
          .orderBy('id', 'desc')
          .limit(51)
          .execute(),
      route: async (cursor?: string) => {
        const answer = output.parse(await hooks.attempts(caller, hook.id, deliveryId!, { limit: 50, cursor }));
        return answer instanceof StoredJson ? answer.bytes() : Buffer.from(JSON.stringify(answer));
      },
      former: async (cursor?: string) => {
        const page = (await hooks.attempts(caller, hook.id, deliveryId!, { limit: 50, cursor })).toJSON();
        return Buffer.from(JSON.stringify(AttemptPageSchema.parse(page)));
      },
    };
    const samples = { bare: [] as number[], route: [] as number[], former: [] as number[] };
    for (let round = -1; round < LOG_ROUNDS; round++) {
      for (const [name, read] of Object.entries(variants) as [
        keyof typeof variants,
        (c?: string) => Promise<unknown>,
      ][]) {
        const start = performance.now();
        for (let i = 0; i < pages / LOG_ROUNDS; i++) await read(cursors[i % cursors.length]);
        if (round >= 0) samples[name].push(pages / LOG_ROUNDS / ((performance.now() - start) / 1000)); // -1: warm-up
      }
    }
    return { bare: median(samples.bare), route: median(samples.route), former: median(samples.former) };
  } finally {
    await database.drop();
  }
}

function latency(dialect: Dialect, payments: number): Promise<number[]> {
  return deliveryLatency(
    'payment.received',
    payments,
    async ({ chain, db, reader, receiverUrl }) => {
      const merchant = await fundedWallet(chain);
      const payer = await fundedWallet(chain);
      // A fresh local chain reports slot 0 as finalized while it is still open (finality clamps at genesis): move
      // past it, so that every payment lands after the webhook's watch-from slot as it would on a real chain.
      await chain.finalizeAll();
      const deps = { chain: reader, allowLoopback: true };
      const caller = { keyId: 'key_bench', account: 'acct_bench' };
      const c = await issueChallengeFromBody(db, deps, caller, { scope: merchant.address, url: `${receiverUrl}/pay` });
      await registerWebhook(db, deps, caller, { nonce: c.nonce, signature: await signRaw(merchant, c.message) });
      return (i) =>
        signedTransaction(chain, payer, [
          getTransferSolInstruction({ source: payer, destination: merchant.address, amount: BigInt(1000 + i) }),
        ]);
    },
    dialect,
  );
}

interface DialectResult extends ThroughputResult {
  latencyP50Ms: number;
  latencyP99Ms: number;
  log: Awaited<ReturnType<typeof attemptLog>>;
}

export interface WebhookBenchResult {
  events: number;
  payments: number;
  results: Partial<Record<Dialect, DialectResult>>;
  markdown: string;
}

/** Each of `dialects` measured in turn (throughput, then latency), printed side by side, one column pair each. */
export async function benchWebhooks({
  events = 2000,
  payments = 40,
  dialects = ['sqlite'] as Dialect[],
} = {}): Promise<WebhookBenchResult> {
  const results: WebhookBenchResult['results'] = {};
  for (const dialect of dialects) {
    const rates = await throughput(dialect, events);
    const latencies = await latency(dialect, payments);
    results[dialect] = {
      ...rates,
      log: await attemptLog(dialect),
      latencyP50Ms: percentile(latencies, 50),
      latencyP99Ms: percentile(latencies, 99),
    };
    console.error(`webhooks: ${dialect} done (load average ${loadavg()[0]!.toFixed(1)})`);
  }
  const each = (cell: (r: DialectResult) => (string | number)[]) => dialects.flatMap((d) => cell(results[d]!));
  const markdown = [
    table(
      [
        `to a local HTTPS receiver (${events} events, ${CONCURRENCY} in flight)`,
        ...dialects.flatMap((d) => [`${d} /s`, 'vs raw']),
      ],
      [
        [
          'raw undici POSTs, same bodies (baseline, measured beside each)',
          ...each((r) => [Math.round(r.rawPerSec), '1.00']),
        ],
        [
          'delivered events (claim, budget, sign, POST, finish) — target ≥ 0.8 of raw',
          ...each((r) => [Math.round(r.deliveredPerSec), r.ratio.toFixed(2)]),
        ],
        [
          'CPU of this process per event, µs: raw / delivered (Postgres: its server not counted)',
          ...each((r) => [`${Math.round(r.cpuMicros.raw)} / ${Math.round(r.cpuMicros.delivered)}`, '']),
        ],
        ['SQL statements per delivered event', ...each((r) => [r.statementsPerDelivery.toFixed(2), ''])],
      ],
    ),
    '',
    table(
      [
        `finalized → delivered, local chain (${payments} native payments, 400 ms slots; target p50 < 3 s)`,
        ...dialects.flatMap((d) => [`${d} p50`, 'p99']),
      ],
      [
        [
          'payment.received at the receiver',
          ...each((r) => [`${Math.round(r.latencyP50Ms)} ms`, `${Math.round(r.latencyP99Ms)} ms`]),
        ],
      ],
    ),
    '',
    table(
      [
        `attempt pages of 50 (a delivery's 200 attempts; median of ${LOG_ROUNDS} alternated rounds)`,
        ...dialects.flatMap((d) => [`${d} pages/s`, 'vs bare SELECT']),
      ],
      [
        ['bare SELECT of the page (baseline)', ...each((r) => [Math.round(r.log.bare), '1.00'])],
        [
          "the route's body, stored headers as stored",
          ...each((r) => [Math.round(r.log.route), (r.log.route / r.log.bare).toFixed(2)]),
        ],
        [
          "the former body: each attempt's headers parsed, the page validated and serialized",
          ...each((r) => [Math.round(r.log.former), (r.log.former / r.log.bare).toFixed(2)]),
        ],
      ],
    ),
  ].join('\n');
  return { events, payments, results, markdown };
}

// `node --import tsx test/bench/webhooks.ts [--db sqlite|postgres|both] [--profile file.cpuprofile]`: this section
// alone; with --profile, only the throughput part, its measured delivery pass profiled (one dialect).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { dialects, rest } = benchDialects(process.argv.slice(2));
  const at = rest.indexOf('--profile');
  if (at >= 0) {
    const r = await throughput(dialects[0]!, 2000, { profile: rest[at + 1] ?? 'delivery.cpuprofile', rounds: 1 });
    console.log(
      `raw ${Math.round(r.rawPerSec)}/s, delivered ${Math.round(r.deliveredPerSec)}/s, ratio ${r.ratio.toFixed(2)}, cpu µs raw ${r.cpuMicros.raw.toFixed(0)} delivered ${r.cpuMicros.delivered.toFixed(0)} (${(r.cpuMicros.raw / r.cpuMicros.delivered).toFixed(2)}), ${r.statementsPerDelivery.toFixed(2)} statements per delivery`,
    );
  } else console.log((await benchWebhooks({ dialects })).markdown);
  process.exit(0);
}
