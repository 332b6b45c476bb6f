// Shared pieces of the benchmarks: child processes for the chain and the service (so the load generator does not
// share their event loop), a bare node:http baseline, and an autocannon run summarized as one table row.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Transaction } from '@solana/kit';
import type { LogEvent } from 'kysely';
import pg from 'pg';
import { createDatabase, migrateToLatest, type DatabaseHandle, type Dialect } from '../../server/src/platform/db/index';
import { POSTGRES_ADMIN_URL } from '../support/postgres';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { createChainReader } from '../../server/src/platform/chain/reader';
import type { ChainReader } from '../../server/src/platform/chain/types';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { startPayWebhookWorkers } from '../../server/src/workers/pay-webhooks';
import { selfSignedCert, startHttpsReceiver } from '../support/https-receiver';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface LoadRow {
  name: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** With `load`'s `cpuOf`: each of those processes' CPU ms per request over the measured run. */
  cpuMsPerRequest?: number[];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

function spawnTs(script: string, args: string[], env: Record<string, string>, nodeArgs: string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** The local chain with its demo scenario, in its own process (`nodeArgs`: e.g. `--cpu-prof`). */
export async function startChainProcess(
  nodeArgs: string[] = [],
): Promise<{ url: string; programId: string; scenario: any; child: ChildProcess }> {
  const port = await freePort();
  // The Geyser endpoint and the agent host on ports of the system's choosing (as in-process chains do), so that
  // two runs on one machine do not collide on main.ts's fixed defaults.
  const child = spawnTs(
    'server/src/localchain/main.ts',
    ['--port', String(port), '--geyser-port', '0', '--agent-host-port', '0'],
    {},
    nodeArgs,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`);
  // The RPC answers while the scenario is still being seeded; wait for the seeded one.
  let scenario: any;
  for (let i = 0; i < 600 && !scenario?.wallets; i++) {
    scenario = await (await fetch(`${url}/scenario`)).json();
    if (!scenario?.wallets) await new Promise((r) => setTimeout(r, 100));
  }
  return { url, programId: scenario.programId, scenario, child };
}

/**
 * The service (server/src/main.ts) on a fresh SQLite file (unless env sets DATABASE_URL), in its own process.
 * `nodeArgs` go before the script (e.g. `--cpu-prof`, which NODE_OPTIONS does not accept on Node 20).
 */
export async function startServiceProcess(
  chain: { url: string; programId: string },
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<{ base: string; child: ChildProcess }> {
  // env.PORT: a port chosen beforehand, for a service that must know its own URL (SIGIL_PUBLIC_URL).
  const port = env.PORT ? Number(env.PORT) : await freePort();
  // Without env.DATABASE_URL, a SQLite file of its own in a temporary directory, removed when the process exits.
  const dir = env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'sigil-bench-'));
  const child = spawnTs(
    'server/src/main.ts',
    [],
    {
      PORT: String(port),
      SIGIL_RPC_URL: chain.url,
      SIGIL_PROGRAM_ID: chain.programId,
      ...(dir ? { DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}` } : {}),
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
      ...env,
    },
    nodeArgs,
  );
  if (dir) child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/health`);
  return { base, child };
}

/** The MCP tool server (server/src/mcp/main.ts) in its own process, relaying to `apiUrl`; resolves to its /mcp URL. */
export async function startMcpProcess(
  chain: { url: string; programId: string },
  apiUrl: string,
  nodeArgs: string[] = [],
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawnTs(
    'server/src/mcp/main.ts',
    [],
    {
      MCP_BIND: `127.0.0.1:${port}`,
      SIGIL_RPC_URL: chain.url,
      SIGIL_PROGRAM_ID: chain.programId,
      SIGIL_API_URL: apiUrl,
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
    },
    nodeArgs,
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  // Up once it answers at all (GET /mcp is 405 by design).
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(url).then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child };
}

/** The baseline: bare node:http answering a fixed JSON body of the given size, in its own process. */
export async function startBareServer(body: string): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const code = `const b=${JSON.stringify(body)};require('node:http').createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json; charset=utf-8','content-length':Buffer.byteLength(b)});s.end(b)}).listen(${port},'127.0.0.1')`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(base);
  return { base, child };
}

/** autocannon over loopback: `connections` concurrent keep-alive clients for `seconds`, after a short warm-up. */
export async function load(
  name: string,
  url: string,
  opts: {
    connections?: number;
    seconds?: number;
    warmupSeconds?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Processes whose CPU (user + system) per request to report, e.g. the server under test. */
    cpuOf?: ChildProcess[];
  } = {},
): Promise<LoadRow> {
  const base: autocannon.Options = { url, connections: opts.connections ?? 32 };
  if (opts.method) base.method = opts.method as autocannon.Options['method'];
  if (opts.headers) base.headers = opts.headers;
  if (opts.body !== undefined) base.body = opts.body;
  await autocannon({ ...base, duration: opts.warmupSeconds ?? 1 });
  const cpu0 = opts.cpuOf?.map((c) => processCpuMs(c.pid));
  const r = await autocannon({ ...base, duration: opts.seconds ?? 5 });
  const cpuMsPerRequest = opts.cpuOf?.map((c, i) => (processCpuMs(c.pid) - cpu0![i]!) / r.requests.total);
  return {
    ...(cpuMsPerRequest ? { cpuMsPerRequest } : {}),
    name,
    requestsPerSec: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

/**
 * Like `load`, over several targets at once: one autocannon per target (one connection each unless it says more), all
 * in this process (the same load as one run with as many connections). For answers that must not be shared between
 * concurrent requests (e.g. the MCP relay's joining of identical GETs), or for several servers at once. Rates and
 * errors are summed; p50 and p99 are the worst target's.
 */
export async function loadSpread(
  name: string,
  targets: {
    url: string;
    connections?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Rewrites each request before it is sent (autocannon's setupRequest). */
    setupRequest?: (req: any) => any;
  }[],
  opts: { seconds?: number; warmupSeconds?: number } = {},
): Promise<LoadRow> {
  const run = (duration: number) =>
    Promise.all(
      targets.map((t) =>
        autocannon({
          url: t.url,
          connections: t.connections ?? 1,
          duration,
          ...(t.method ? { method: t.method as autocannon.Options['method'] } : {}),
          ...(t.headers ? { headers: t.headers } : {}),
          ...(t.body !== undefined ? { body: t.body } : {}),
          ...(t.setupRequest ? { requests: [{ setupRequest: t.setupRequest }] } : {}),
        }),
      ),
    );
  await run(opts.warmupSeconds ?? 1);
  const results = await run(opts.seconds ?? 5);
  const sum = (f: (r: autocannon.Result) => number) => results.reduce((a, r) => a + f(r), 0);
  return {
    name,
    requestsPerSec: Math.round(sum((r) => r.requests.average)),
    p50Ms: Math.max(...results.map((r) => r.latency.p50)),
    p99Ms: Math.max(...results.map((r) => r.latency.p99)),
    errors: sum((r) => r.errors + r.timeouts),
    non2xx: sum((r) => r.non2xx),
  };
}

/** user+system CPU ms of another process (Linux /proc; 0 elsewhere). */
export function processCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export function loadTable(rows: LoadRow[], baseline: LoadRow): string {
  return table(
    ['scenario', 'req/s', 'vs bare', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'],
    rows.map((r) => [
      r.name,
      r.requestsPerSec,
      (r.requestsPerSec / baseline.requestsPerSec).toFixed(2),
      r.p50Ms,
      r.p99Ms,
      r.errors,
      r.non2xx,
    ]),
  );
}

/**
 * The database the sections that accept `--db` run on (`npm run bench -- --db postgres`, `--db both`): SQLite by
 * default. Postgres is the server of test/support/postgres.ts (127.0.0.1:5432 unless SIGIL_TEST_POSTGRES_URL).
 */
export function benchDialects(argv: string[]): { dialects: Dialect[]; rest: string[] } {
  const at = argv.indexOf('--db');
  if (at < 0) return { dialects: ['sqlite'], rest: argv };
  const value = argv[at + 1];
  const dialects: Dialect[] | undefined =
    value === 'sqlite'
      ? ['sqlite']
      : value === 'postgres'
        ? ['postgres']
        : value === 'both'
          ? ['sqlite', 'postgres']
          : undefined;
  if (!dialects) throw new Error(`--db takes sqlite, postgres or both, not ${value ?? 'nothing'}`);
  return { dialects, rest: [...argv.slice(0, at), ...argv.slice(at + 2)] };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A fresh database of that dialect, removed by `drop`: a SQLite file in a temporary folder, or a new Postgres
 * database (`sigil_bench_<random>`) dropped afterwards. `url` opens the same database from a child process.
 */
export async function benchDb(
  dialect: Dialect = 'sqlite',
  options: { onQuery?: (event: LogEvent) => void } = {},
): Promise<DatabaseHandle & { url: string; drop(): Promise<void> }> {
  if (dialect === 'postgres') {
    const name = `sigil_bench_${randomBytes(6).toString('hex')}`; // [0-9a-f] only: safe as an identifier
    await adminQuery(`create database ${name}`);
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    const handle = createDatabase({ url: url.toString(), ...options });
    return {
      ...handle,
      url: url.toString(),
      drop: async () => {
        await handle.close();
        await adminQuery(`drop database if exists ${name} with (force)`);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'sigil-bench-db-'));
  const sqliteFile = join(dir, 'bench.sqlite');
  const handle = createDatabase({ sqliteFile, ...options });
  return {
    ...handle,
    url: `sqlite:${sqliteFile}`,
    drop: async () => {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The p-th percentile of ascending `sorted` samples. */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** What a latency run's `setup` gets: a fresh local chain and database, the reader over them, the receiver's URL. */
interface LatencyEnv {
  chain: LocalChain;
  db: DatabaseHandle['db'];
  reader: ChainReader;
  receiverUrl: string;
}

/**
 * Webhook delivery latency with the production workers (indexer pass every 1 s, delivery kicked by the indexer), on a
 * fresh `dialect` database: `count` transactions sent 150 ms apart, each timed from its finalization to the arrival at a local HTTPS receiver
 * of the `eventType` delivery naming its signature. `setup` subscribes the receiver and returns the i-th
 * transaction's builder. Ascending milliseconds.
 */
export async function deliveryLatency(
  eventType: string,
  count: number,
  setup: (env: LatencyEnv) => Promise<(i: number) => Promise<Transaction>>,
  dialect: Dialect = 'sqlite',
): Promise<number[]> {
  const arrivals = new Map<string, number>();
  const receiver = await startHttpsReceiver((req, res, body) => {
    if (req.headers['sigil-event-type'] === eventType) {
      arrivals.set(
        (JSON.parse(body.toString('utf8')) as { chain: { signature: string } }).chain.signature,
        performance.now(),
      );
    }
    res.writeHead(200).end();
  });
  const chain = await startLocalChain({ scenario: false });
  const database = await benchDb(dialect);
  const client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert });
  try {
    await migrateToLatest(database.db);
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    const transaction = await setup({
      chain,
      db: database.db,
      reader,
      receiverUrl: `https://127.0.0.1:${receiver.port}`,
    });
    const workers = startPayWebhookWorkers({ db: database.db, chain: reader, client });
    const finalizedAt = new Map<string, number>();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const tx = await transaction(i);
      // sendAndConfirm polls the ledger every ≤ 50 ms: it resolves within 50 ms of finalization.
      pending.push(
        chain
          .sendAndConfirm(tx, { commitment: 'finalized' })
          .then((sig) => void finalizedAt.set(sig, performance.now())),
      );
      await new Promise((r) => setTimeout(r, 150));
    }
    await Promise.all(pending);
    const deadline = Date.now() + 30_000;
    while (arrivals.size < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await workers.stop();
    if (arrivals.size < count) throw new Error(`only ${arrivals.size} of ${count} ${eventType} events delivered`);
    return [...finalizedAt].map(([sig, at]) => arrivals.get(sig)! - at).sort((a, b) => a - b);
  } finally {
    await client.close();
    await receiver.close();
    await chain.close();
    await database.drop();
  }
}
