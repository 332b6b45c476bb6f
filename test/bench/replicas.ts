// Keyed resolve throughput with 1, 2 and 3 service processes on one Postgres database (docs/deploy.md "Scale-out"):
// autocannon against every replica at once, the connections split between them, each request with the next of 300
// partner keys (so the per-key rate limit never binds). On this 2-core machine the replicas, Postgres, the chain and
// the load generator share the same cores: the figures show the method and that nothing breaks, not a speed-up.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import pg from 'pg';
import { createKey } from '../../server/src/features/keys/service';
import { createDatabase } from '../../server/src/platform/db/index';
import { POSTGRES_ADMIN_URL } from '../support/postgres';
import { loadSpread, startChainProcess, startServiceProcess, stop, table } from './support';

const CONNECTIONS = 48;
const KEYS = 300;

export async function benchReplicas(opts: { seconds?: number } = {}): Promise<string> {
  const seconds = opts.seconds ?? 5;
  const chain = await startChainProcess();
  const rows: (string | number)[][] = [];
  const keyStep: (string | number)[][] = [];
  try {
    for (const count of [1, 2, 3]) rows.push(await measure(chain, count, seconds, { keys: KEYS, path: RESOLVE }));
    // The key step alone (key lookup + limiter, no chain read: `a..b` is refused by its spelling after both): one hot
    // key against 100 keys, on 3 replicas. The hot key's answers past its limit are 429s — the same statement, the
    // same row lock — so every answer counts.
    for (const keys of [1, 100]) keyStep.push(await measure(chain, 3, seconds, { keys, path: KEY_STEP_ONLY }));
  } finally {
    await stop(chain.child);
  }
  const scaling = table(
    ['replicas (one Postgres)', 'req/s', 'vs 1 replica', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'],
    rows.map((r) => [r[0]!, r[1]!, (Number(r[1]) / Number(rows[0]![1])).toFixed(2), ...r.slice(2)]),
  );
  const hot = table(
    ['3 replicas, key step only (`GET /v1/resolve/a..b`)', 'answers/s', 'vs 100 keys', 'p50 ms', 'p99 ms', 'errors'],
    keyStep.map((r, i) => [
      i === 0 ? '1 hot key' : '100 keys',
      r[1]!,
      (Number(r[1]) / Number(keyStep[1]![1])).toFixed(2),
      r[2]!,
      r[3]!,
      r[4]!,
    ]),
  );
  return `${scaling}\n\n${hot}`;
}

const RESOLVE = '/v1/resolve/alice';
const KEY_STEP_ONLY = '/v1/resolve/a..b';

async function measure(
  chain: Awaited<ReturnType<typeof startChainProcess>>,
  count: number,
  seconds: number,
  load: { keys: number; path: string },
): Promise<(string | number)[]> {
  const name = `sigil_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const replicas: Awaited<ReturnType<typeof startServiceProcess>>[] = [];
  const database = createDatabase({ url: url.href });
  try {
    // The first replica migrates; the others find the schema in place.
    for (let i = 0; i < count; i++)
      replicas.push(
        await startServiceProcess(chain, {
          DATABASE_URL: url.href,
          SIGIL_RESOLVE_CACHE_MS: '0',
          SIGIL_HANDLE_INDEX_INTERVAL_MS: '0',
          SIGIL_X402_NONCE_SECRET: 'bench-nonce-secret-0123456789abcdefghij',
          SIGIL_PORTAL_KEY: '',
        }),
      );
    const secrets: string[] = [];
    for (let i = 0; i < load.keys; i++)
      secrets.push((await createKey(database.db, { account: base58.encode(randomBytes(32)), tier: 'partner' })).secret);
    let next = 0;
    const row = await loadSpread(
      String(count),
      replicas.map((replica) => ({
        url: `${replica.base}${load.path}`,
        connections: Math.ceil(CONNECTIONS / count),
        setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, 'x-api-key': secrets[next++ % load.keys] } }),
      })),
      { seconds },
    );
    return [row.name, row.requestsPerSec, row.p50Ms, row.p99Ms, row.errors, row.non2xx];
  } finally {
    await Promise.all(replicas.map((r) => stop(r.child)));
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
