// Universal resolution throughput over loopback, per namespace, all measured in the same run: a handle and an x1
// domain on the registry's local chain, a `.sol` name on a second local chain holding SNS accounts, next to a bare
// node:http baseline; and the batch endpoint's names per second next to the single endpoint's.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../../server/src/platform/db/index';
import { benchDb, load, loadTable, startBareServer, startChainProcess, stop, table, type LoadRow } from './support';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BATCH_SIZE = 100;

/** Spawns test/bench/universal-child.ts in `mode` and waits for its one JSON "ready" line. */
async function child<T>(mode: string, env: Record<string, string> = {}): Promise<{ info: T; child: ChildProcess }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/bench/universal-child.ts', mode], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => proc.kill('SIGKILL'));
  const lines = createInterface({ input: proc.stdout! });
  const info = await new Promise<T>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`universal-child ${mode} exited (${code}) before it was ready`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as T));
  });
  return { info, child: proc };
}

export async function benchUniversal(
  opts: { seconds?: number; dialect?: Dialect } = {},
): Promise<{ rows: LoadRow[]; markdown: string }> {
  const seconds = opts.seconds ?? 5;
  const dialect = opts.dialect ?? 'sqlite';
  const chain = await startChainProcess();
  const sns = await child<{ url: string }>('sns-chain');
  // The service's database: created here, migrated and used by the service process, dropped here after it stopped.
  const database = await benchDb(dialect);
  await database.close();
  const service = await child<{ base: string; key: string }>('service', {
    SIGIL_RPC_URL: chain.url,
    SIGIL_PROGRAM_ID: chain.programId,
    SIGIL_SOL_RPC_URL: sns.info.url,
    SIGIL_RESOLVE_CACHE_MS: '0',
    BENCH_DATABASE_URL: database.url,
  });
  const { base, key } = service.info;
  const headers = { 'x-api-key': key };
  const sample = await (await fetch(`${base}/v1/resolve-universal/alice`, { headers })).text();
  const bare = await startBareServer(sample);
  const handles = ['alice', 'bob', 'satoshi', 'vault', 'scout'];
  const names = Array.from({ length: BATCH_SIZE }, (_, i) => handles[i % handles.length]!);
  try {
    const baseline = await load('bare node:http, fixed JSON', bare.base, { seconds });
    const single = await load('handle: GET /v1/resolve-universal/alice', `${base}/v1/resolve-universal/alice`, {
      seconds,
      headers,
    });
    const rows = [
      baseline,
      single,
      await load('handle record: …/alice?chain=SOL', `${base}/v1/resolve-universal/alice?chain=SOL`, {
        seconds,
        headers,
      }),
      await load('x1 domain: …/satoshi.x1', `${base}/v1/resolve-universal/satoshi.x1`, { seconds, headers }),
      await load('sol (second local chain): …/bonfida.sol', `${base}/v1/resolve-universal/bonfida.sol`, {
        seconds,
        headers,
      }),
      await load('sol with a SOL record V2: …/paid.sol', `${base}/v1/resolve-universal/paid.sol`, { seconds, headers }),
    ];
    const batch = await load(`POST /v1/resolve/batch (${BATCH_SIZE} handles, 5 distinct)`, `${base}/v1/resolve/batch`, {
      seconds,
      connections: 8,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ names }),
    });
    const distinct = names.map((_, i) => `nobody${i}`);
    const batchDistinct = await load(
      `POST /v1/resolve/batch (${BATCH_SIZE} distinct unregistered handles)`,
      `${base}/v1/resolve/batch`,
      {
        seconds,
        connections: 8,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ names: distinct }),
      },
    );
    const namesPerSec = (r: LoadRow, perRequest: number) => r.requestsPerSec * perRequest;
    const markdown = [
      loadTable(rows, baseline),
      '',
      table(
        ['endpoint (same run)', 'req/s', 'names/s', 'vs single', 'p50 ms', 'p99 ms', 'non-2xx'],
        [
          [
            single.name,
            single.requestsPerSec,
            namesPerSec(single, 1),
            '1.00',
            single.p50Ms,
            single.p99Ms,
            single.non2xx,
          ],
          ...[batch, batchDistinct].map((r) => [
            r.name,
            r.requestsPerSec,
            namesPerSec(r, BATCH_SIZE),
            (namesPerSec(r, BATCH_SIZE) / namesPerSec(single, 1)).toFixed(2),
            r.p50Ms,
            r.p99Ms,
            r.non2xx,
          ]),
        ],
      ),
      '',
      `Service database: ${dialect}. ` +
        "Resolve cache off (SIGIL_RESOLVE_CACHE_MS=0): every name reads the chain. The key's rate limit is counted but not " +
        'enforced in this run. A batch resolves duplicates once and at most 8 names at a time, its handle accounts read ' +
        'in one getMultipleAccounts.',
    ].join('\n');
    return { rows: [...rows, batch, batchDistinct], markdown };
  } finally {
    await Promise.all([stop(bare.child), stop(service.child), stop(sns.child)]);
    await database.drop();
    await stop(chain.child);
  }
}

// `node --import tsx test/bench/universal.ts`: this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log((await benchUniversal({ seconds: Number(process.env.BENCH_SECONDS ?? 5) })).markdown);
  process.exit(0);
}
