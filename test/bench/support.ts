// Shared pieces of the benchmarks: child processes for the chain and the service (so the load generator does not
// share their event loop), a bare node:http baseline, and an autocannon run summarized as one table row.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface LoadRow {
  name: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
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
  const child = spawnTs('server/src/localchain/main.ts', ['--port', String(port)], {}, nodeArgs);
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
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'sigil-bench-'));
  const child = spawnTs(
    'server/src/main.ts',
    [],
    {
      PORT: String(port),
      SIGIL_RPC_URL: chain.url,
      SIGIL_PROGRAM_ID: chain.programId,
      DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
      ...env,
    },
    nodeArgs,
  );
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
  } = {},
): Promise<LoadRow> {
  const base: autocannon.Options = { url, connections: opts.connections ?? 32 };
  if (opts.method) base.method = opts.method as autocannon.Options['method'];
  if (opts.headers) base.headers = opts.headers;
  if (opts.body !== undefined) base.body = opts.body;
  await autocannon({ ...base, duration: opts.warmupSeconds ?? 1 });
  const r = await autocannon({ ...base, duration: opts.seconds ?? 5 });
  return {
    name,
    requestsPerSec: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
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
