// The keyed read against the public one, on SQLite and on Postgres, in the same run: one service process per
// database, each with its resolve cache warm (the default bound), loaded with 32 connections through the same client
// machinery (every request carries the next key; the public route ignores it), rounds alternated, with the CPU the
// service and the Postgres server spent per request.
//
//   public   GET /resolve/alice                       no key: the bounded cache, then the answer
//   keyed    GET /v1/resolve/alice with X-API-Key     key lookup + both rate windows + usage, then the same cache
//
// Each keyed request carries the next of 300 partner keys, so no key's limit binds and no row is hot (the one-hot-key
// case is the replicas section's). RPC calls per keyed request are read from the service's own counter
// (`sigil_rpc_calls_total` in /metrics) over the keyed run: the resolution methods only, so the indexer's polling of
// the tip does not count. SQL statements per keyed request are counted by keys/admit.happy.test.ts (1 on Postgres,
// 2 on SQLite): a process outside the service cannot count them.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { base58 } from '@scure/base';
import { createKey } from '../../server/src/features/keys/service';
import { migrateToLatest, type Dialect } from '../../server/src/platform/db/index';
import {
  benchDb,
  loadSpread,
  processCpuMs,
  startChainProcess,
  startServiceProcess,
  stop,
  table,
  type LoadRow,
} from './support';

const KEYS = 300;
const CONNECTIONS = 32;
/** The RPC methods a resolution reads with (the indexer's getSlot/getBlock/getSignatures… are not counted). */
const READ_METHODS = new Set(['getAccountInfo', 'getMultipleAccounts', 'getProgramAccounts']);

/** BENCH_PROFILE_DIR=<dir>: each service process writes a V8 CPU profile there on exit (rank by self time). */
const PROFILE = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];

/** Alternated public/keyed rounds per database. */
const ROUNDS = 3;

/** A load row with the CPU the service process and the Postgres server spent per request over it. */
interface Measured {
  row: LoadRow;
  serviceUs: number;
  postgresUs: number;
}

/** user+system CPU ms of every `postgres` process on this machine (the server and its backends). */
function postgresCpuMs(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += processCpuMs(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

interface DialectRun {
  dialect: Dialect;
  public: Measured;
  keyed: Measured;
  /** RPC reads per keyed request over the keyed run (warm-up included). */
  rpcPerKeyed: number;
}

/** Sums of `sigil_rpc_calls_total` over READ_METHODS and of `sigil_http_requests_total`, from /metrics. */
async function counters(base: string): Promise<{ rpc: number; requests: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let rpc = 0;
  let requests = 0;
  for (const line of text.split('\n')) {
    const rpcLine = /^sigil_rpc_calls_total\{method="([^"]+)"\} (\d+(?:\.\d+)?)$/.exec(line);
    if (rpcLine && READ_METHODS.has(rpcLine[1]!)) rpc += Number(rpcLine[2]);
    const http = /^sigil_http_requests_total\{[^}]*route="\/v1\/resolve\/\{name\}"[^}]*\} (\d+(?:\.\d+)?)$/.exec(line);
    if (http) requests += Number(http[1]);
  }
  return { rpc, requests };
}

async function run(
  chain: Awaited<ReturnType<typeof startChainProcess>>,
  dialect: Dialect,
  seconds: number,
): Promise<DialectRun> {
  const database = await benchDb(dialect);
  try {
    await migrateToLatest(database.db);
    const secrets: string[] = [];
    for (let i = 0; i < KEYS; i++)
      secrets.push((await createKey(database.db, { account: base58.encode(randomBytes(32)), tier: 'partner' })).secret);
    const service = await startServiceProcess(
      chain,
      { DATABASE_URL: database.url, SIGIL_HANDLE_INDEX_INTERVAL_MS: '0', SIGIL_PORTAL_KEY: '' },
      PROFILE,
    );
    try {
      // Both rows go through the same client machinery, each request carrying the next key, so the only difference
      // is the route: the public one ignores the header. Rounds alternate; each row is its median round.
      let next = 0;
      const spread = (name: string, url: string) =>
        loadSpread(
          name,
          [
            {
              url,
              connections: CONNECTIONS,
              setupRequest: (req: any) => ({
                ...req,
                headers: { ...req.headers, 'x-api-key': secrets[next++ % KEYS] },
              }),
            },
          ],
          { seconds },
        );
      const withCpu = async (name: string, url: string) => {
        const cpu0 = [processCpuMs(service.child.pid), postgresCpuMs()];
        const row = await spread(name, url);
        const requests = row.requestsPerSec * seconds;
        return {
          row,
          serviceUs: ((processCpuMs(service.child.pid) - cpu0[0]!) * 1000) / requests,
          postgresUs: ((postgresCpuMs() - cpu0[1]!) * 1000) / requests,
        };
      };
      const before = await counters(service.base);
      const rounds = { public: [] as Measured[], keyed: [] as Measured[] };
      for (let round = 0; round < ROUNDS; round++) {
        rounds.public.push(await withCpu(`public, ${dialect}`, `${service.base}/resolve/alice`));
        rounds.keyed.push(await withCpu(`keyed, ${dialect}`, `${service.base}/v1/resolve/alice`));
      }
      const after = await counters(service.base);
      const median = (rows: Measured[]) =>
        [...rows].sort((a, b) => a.row.requestsPerSec - b.row.requestsPerSec)[rows.length >> 1]!;
      return {
        dialect,
        public: median(rounds.public),
        keyed: median(rounds.keyed),
        rpcPerKeyed: (after.rpc - before.rpc) / Math.max(1, after.requests - before.requests),
      };
    } finally {
      await stop(service.child);
    }
  } finally {
    await database.drop();
  }
}

export async function benchKeyed(
  opts: { dialects?: Dialect[]; seconds?: number } = {},
): Promise<{ runs: DialectRun[]; markdown: string }> {
  const seconds = opts.seconds ?? 5;
  const chain = await startChainProcess();
  const runs: DialectRun[] = [];
  try {
    for (const dialect of opts.dialects ?? ['sqlite', 'postgres']) runs.push(await run(chain, dialect, seconds));
  } finally {
    await stop(chain.child);
  }
  const sqlite = runs.find((r) => r.dialect === 'sqlite');
  const rows = runs.flatMap((r) => [
    [
      `\`GET /resolve/alice\` (public), ${r.dialect}`,
      r.public.row.requestsPerSec,
      r.public.row.p50Ms,
      r.public.row.p99Ms,
      '—',
      '—',
      Math.round(r.public.serviceUs),
      Math.round(r.public.postgresUs),
    ],
    [
      `\`GET /v1/resolve/alice\` (keyed, ${KEYS} keys), ${r.dialect}`,
      r.keyed.row.requestsPerSec,
      r.keyed.row.p50Ms,
      r.keyed.row.p99Ms,
      (r.keyed.row.requestsPerSec / r.public.row.requestsPerSec).toFixed(2),
      r.rpcPerKeyed.toFixed(3),
      Math.round(r.keyed.serviceUs),
      Math.round(r.keyed.postgresUs),
    ],
  ]);
  const markdown = [
    table(
      [
        `warm resolve, ${CONNECTIONS} connections, ${seconds} s`,
        'req/s',
        'p50 ms',
        'p99 ms',
        'keyed ÷ public',
        'RPC reads per keyed request',
        'service CPU µs / request',
        'Postgres CPU µs / request',
      ],
      rows,
    ),
    ...runs
      .filter((r) => r.dialect === 'postgres' && sqlite)
      .map(
        (r) =>
          `\nkeyed on Postgres ÷ keyed on SQLite, same run: ${(r.keyed.row.requestsPerSec / sqlite!.keyed.row.requestsPerSec).toFixed(2)}` +
          ` (goal ≥ 0.5); keyed ÷ public on Postgres: ${(r.keyed.row.requestsPerSec / r.public.row.requestsPerSec).toFixed(2)} (goal ≥ 0.7)`,
      ),
  ].join('\n');
  return { runs, markdown };
}

// `node --import tsx test/bench/keyed.ts`: this section alone, on both databases.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await benchKeyed();
  console.log(markdown);
  process.exit(0);
}
