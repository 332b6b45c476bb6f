// Gate and the keyed reverse over loopback, next to the keyed resolve and a bare node:http baseline in the same run:
// gate checks per second for a five-leaf policy (unsigned and signed), reverse addresses per second single vs a batch
// of 100, and the RPC calls each operation makes (counted on a chain reader of the same local chain).
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { base58 } from '@scure/base';
import type { PolicyNode } from '@sigil/contract/gate';
import { createGateService } from '../../server/src/features/gate/service';
import { createReverseService } from '../../server/src/features/reverse/service';
import { createUniversalService } from '../../server/src/features/universal/service';
import { createDatabase, migrateToLatest, type Dialect } from '../../server/src/platform/db/index';
import { countingReader } from '../support/localchain-wallets';
import { benchDb, load, loadTable, startBareServer, startChainProcess, stop, table, type LoadRow } from './support';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BATCH_SIZE = 100;
const BENCH_SEED = Buffer.alloc(32, 7).toString('base64url');

/** The universal bench's service child (rate limit counted, never enforced), with `env`. */
async function service(env: Record<string, string>): Promise<{ base: string; key: string; child: ChildProcess }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/bench/universal-child.ts', 'service'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => proc.kill('SIGKILL'));
  const line = await new Promise<string>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`service exited (${code}) before it was ready`)));
    createInterface({ input: proc.stdout! }).once('line', resolve);
  });
  return { ...(JSON.parse(line) as { base: string; key: string }), child: proc };
}

/** The five-leaf policy of the bench: what a members-only gate typically asks. */
function fiveLeaves(scenario: any): PolicyNode {
  return {
    all: [
      { 'handle.primary': {} },
      { attestation: { platform: 'x' } },
      { 'record.verified': { chain: 'SOL' } },
      { 'token.balance': { mint: scenario.mints.usdx.address, min: '0' } },
      { 'wallet.in': { list: [scenario.wallets.alice.address, scenario.wallets.bob.address] } },
    ],
  };
}

/** RPC calls of one operation, counted on a fresh reader of the chain. */
async function rpcCalls(chain: { url: string; programId: string }, scenario: any): Promise<(string | number)[][]> {
  const { reader, calls } = countingReader(chain);
  const database = createDatabase({ sqliteFile: ':memory:' });
  await migrateToLatest(database.db);
  const reverse = createReverseService({ chain: reader });
  const gate = createGateService({
    db: database.db,
    chain: reader,
    reverse,
    agents: { level: () => Promise.reject(new Error('unused')) },
    sessions: { verify: () => Promise.reject(new Error('unused')) },
    suffixes: ['x1', 'xnt', 'xen'],
    production: true,
    issuer: 'http://bench',
  });
  const universal = createUniversalService({ chain: reader, suffixes: ['x1', 'xnt', 'xen'] });
  const wallets = Object.values(scenario.wallets).map((w: any) => w.address as string);
  const distinct = [
    ...wallets,
    ...Array.from({ length: BATCH_SIZE - wallets.length }, () => base58.encode(randomBytes(32))),
  ];
  const rows: [string, () => Promise<unknown>][] = [
    ['keyed resolve GET /v1/resolve/alice', () => universal.resolve('alice')],
    ['GET /v1/reverse (alice, plain handle)', () => reverse.reverse(scenario.wallets.alice.address)],
    ['GET /v1/reverse (dave, tokenized handle)', () => reverse.reverse(scenario.wallets.dave.address)],
    [
      `POST /v1/reverse/batch (${BATCH_SIZE} distinct: every scenario wallet + unknown ones)`,
      () => reverse.reverseBatch(distinct),
    ],
    [
      'POST /v1/gate/check, five leaves, {wallet} subject',
      () =>
        gate.check(
          { keyId: 'k', account: 'a' },
          { subject: { wallet: scenario.wallets.alice.address }, policy: fiveLeaves(scenario) },
        ),
    ],
    [
      'POST /v1/gate/check, five leaves, {handle} subject',
      () => gate.check({ keyId: 'k', account: 'a' }, { subject: { handle: 'alice' }, policy: fiveLeaves(scenario) }),
    ],
  ];
  const out: (string | number)[][] = [];
  for (const [name, run] of rows) {
    calls.length = 0;
    await run();
    const byMethod = new Map<string, number>();
    for (const m of calls) byMethod.set(m, (byMethod.get(m) ?? 0) + 1);
    out.push([name, calls.length, [...byMethod].map(([m, n]) => `${m} ×${n}`).join(', ')]);
  }
  await database.close();
  return out;
}

export async function benchGate(
  opts: { seconds?: number; dialect?: Dialect } = {},
): Promise<{ rows: LoadRow[]; markdown: string }> {
  const seconds = opts.seconds ?? 5;
  const dialect = opts.dialect ?? 'sqlite';
  const chain = await startChainProcess();
  // The service's database: created here, migrated and used by the service process, dropped here after it stopped.
  const database = await benchDb(dialect);
  await database.close();
  const svc = await service({
    SIGIL_RPC_URL: chain.url,
    SIGIL_PROGRAM_ID: chain.programId,
    SIGIL_RESOLVE_CACHE_MS: '0',
    SIGIL_GATE_SIGNING_KEY: BENCH_SEED,
    BENCH_DATABASE_URL: database.url,
  });
  const { base, key } = svc;
  const headers = { 'x-api-key': key };
  const json = { ...headers, 'content-type': 'application/json' };
  const scenario = chain.scenario;
  const alice = scenario.wallets.alice.address as string;
  const bare = await startBareServer(await (await fetch(`${base}/v1/reverse/${alice}`, { headers })).text());
  const wallets = Object.values(scenario.wallets).map((w: any) => w.address as string);
  const distinct = [
    ...wallets,
    ...Array.from({ length: BATCH_SIZE - wallets.length }, () => base58.encode(randomBytes(32))),
  ];
  const checkBody = (sign: boolean) =>
    JSON.stringify({ subject: { wallet: alice }, policy: fiveLeaves(scenario), sign });
  try {
    const baseline = await load('bare node:http, fixed JSON', bare.base, { seconds });
    const resolve = await load('keyed resolve: GET /v1/resolve/alice', `${base}/v1/resolve/alice`, {
      seconds,
      headers,
    });
    const reverse = await load('keyed reverse: GET /v1/reverse/{alice}', `${base}/v1/reverse/${alice}`, {
      seconds,
      headers,
    });
    const batch = await load(`POST /v1/reverse/batch (${BATCH_SIZE} distinct addresses)`, `${base}/v1/reverse/batch`, {
      seconds,
      connections: 8,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ addresses: distinct }),
    });
    const check = await load('POST /v1/gate/check (five leaves)', `${base}/v1/gate/check`, {
      seconds,
      method: 'POST',
      headers: json,
      body: checkBody(false),
    });
    const signed = await load('POST /v1/gate/check (five leaves, sign: true)', `${base}/v1/gate/check`, {
      seconds,
      method: 'POST',
      headers: json,
      body: checkBody(true),
    });
    const rows = [baseline, resolve, reverse, batch, check, signed];
    const perSec = (r: LoadRow, n: number) => r.requestsPerSec * n;
    const markdown = [
      loadTable(rows, baseline),
      '',
      table(
        ['reverse (same run)', 'req/s', 'addresses/s', 'vs single'],
        [
          [reverse.name, reverse.requestsPerSec, perSec(reverse, 1), '1.00'],
          [
            batch.name,
            batch.requestsPerSec,
            perSec(batch, BATCH_SIZE),
            (perSec(batch, BATCH_SIZE) / perSec(reverse, 1)).toFixed(2),
          ],
        ],
      ),
      '',
      table(['operation', 'RPC calls', 'by method'], await rpcCalls(chain, scenario)),
      '',
      `Service database: ${dialect}. Resolve cache off. The key's rate limit is counted but not enforced in this run. ` +
        'The five-leaf policy: ' +
        '`all` of handle.primary, attestation x, record.verified SOL, token.balance USDX ≥ 0, wallet.in (docs/gate.md).',
    ].join('\n');
    return { rows, markdown };
  } finally {
    await Promise.all([stop(bare.child), stop(svc.child)]);
    await database.drop();
    await stop(chain.child);
  }
}

// `node --import tsx test/bench/gate.ts`: this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log((await benchGate({ seconds: Number(process.env.BENCH_SECONDS ?? 5) })).markdown);
  process.exit(0);
}
