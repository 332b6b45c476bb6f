// The MCP tool server under concurrent load over loopback: resolve_name tool calls next to the direct
// GET /resolve they relay (both on the service's warm cache, same run), and get_records, which reads the chain on
// every call (handle, authority and records), for its latency. Each tools/call is one stateless POST /mcp.
//
// The relay answers a call in one of three ways (docs/mcp.md): joining an identical GET in flight, reusing an answer
// within the lifetime the service states (Cache-Control), or sending its own GET. The rows separate them: one name on
// every connection (calls join); 32 spellings of it, one per connection (handles are case-insensitive, so all
// resolve to the same handle, but each is its own URL for the relay and for the service's answer cache, so no call
// joins another; with the default 1 s bound the service never has a whole second left to state, so nothing is
// reused: every call costs a GET); and the same 32 against a second service whose bound is 5 s, whose answers say
// they may be reused for the whole seconds left (up to 4).
//
// The paths: the same ping and resolve_name call against two MCP processes that differ only in the listener's
// `hotPath` switch, alternated over rounds, with each process's CPU per call.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  load,
  loadSpread,
  loadTable,
  startBareServer,
  startChainProcess,
  startMcpProcess,
  startServiceProcess,
  stop,
  table,
  type LoadRow,
} from './support';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PATH_ROUNDS = 3;

/** test/bench/mcp-child.ts: the MCP server with the hot path on or off; resolves once it prints its URL. */
async function startMcpChild(
  chain: { url: string; programId: string },
  apiUrl: string,
  path: 'hot' | 'sdk',
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/bench/mcp-child.ts', chain.url, chain.programId, apiUrl, path],
    { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mcp-child ${path} exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  return { url, child };
}

const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The best of each path's rounds (the least disturbed by the machine's other work) and the same-run ratios. */
function pathTable(rounds: Record<string, Record<'hot' | 'sdk', LoadRow[]>>): string {
  const best = (rows: LoadRow[]) => rows.reduce((a, b) => (b.requestsPerSec > a.requestsPerSec ? b : a));
  const perRound = (rows: LoadRow[]) => rows.map((r) => r.requestsPerSec).join(' / ');
  const cpuUs = (r: LoadRow) => Math.round(r.cpuMsPerRequest![0]! * 1000);
  return table(
    [
      'request',
      'hot path req/s',
      'SDK path req/s',
      'hot / SDK',
      'MCP CPU µs/call hot',
      'MCP CPU µs/call SDK',
      'rounds hot',
      'rounds SDK',
    ],
    Object.entries(rounds).map(([name, { hot, sdk }]) => {
      const h = best(hot);
      const s = best(sdk);
      return [
        name,
        h.requestsPerSec,
        s.requestsPerSec,
        (h.requestsPerSec / s.requestsPerSec).toFixed(2),
        cpuUs(h),
        cpuUs(s),
        perRound(hot),
        perRound(sdk),
      ];
    }),
  );
}

/** ping and a warm resolve_name call through the hot path and through the SDK's, rounds alternated. */
async function comparePaths(
  chain: { url: string; programId: string },
  apiUrl: string,
  seconds: number,
): Promise<string> {
  const hot = await startMcpChild(chain, apiUrl, 'hot');
  const sdk = await startMcpChild(chain, apiUrl, 'sdk');
  const requests = {
    ping: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    'tools/call resolve_name alice (warm)': toolCall('resolve_name', { name: 'alice' }),
  };
  const rounds: Record<string, Record<'hot' | 'sdk', LoadRow[]>> = {};
  try {
    for (let round = 0; round < PATH_ROUNDS; round++) {
      for (const [name, body] of Object.entries(requests)) {
        const slot = (rounds[name] ??= { hot: [], sdk: [] });
        for (const [path, server] of [
          ['hot', hot],
          ['sdk', sdk],
        ] as const) {
          const row = await load(`${name} (${path})`, server.url, {
            seconds,
            method: 'POST',
            headers: POST_HEADERS,
            body,
            cpuOf: [server.child],
          });
          if (row.errors || row.non2xx) throw new Error(`${row.name}: ${row.errors} errors, ${row.non2xx} non-2xx`);
          slot[path].push(row);
        }
      }
    }
  } finally {
    await Promise.all([stop(hot.child), stop(sdk.child)]);
  }
  return pathTable(rounds);
}

export async function benchMcp(opts: { seconds?: number } = {}): Promise<{ markdown: string; resolveRatio: number }> {
  const seconds = opts.seconds ?? 5;
  const chain = await startChainProcess();
  const service = await startServiceProcess(chain, { SIGIL_RESOLVE_CACHE_MS: '1000' });
  const mcp = await startMcpProcess(chain, service.base);
  const longer = await startServiceProcess(chain, { SIGIL_RESOLVE_CACHE_MS: '5000' });
  const mcpLonger = await startMcpProcess(chain, longer.base);
  const sample = await (await fetch(`${service.base}/resolve/alice`)).text();
  const bare = await startBareServer(sample);
  const post = (body: string) => ({
    seconds,
    method: 'POST',
    headers: POST_HEADERS,
    body,
  });
  try {
    const baseline = await load('bare node:http, fixed JSON', bare.base, { seconds });
    const direct = await load('GET /resolve/alice (warm cache)', `${service.base}/resolve/alice`, { seconds });
    // The floor of a hot-path MCP request: HTTP and JSON-RPC, no tool.
    const ping = await load(
      'MCP ping (the hot path, no tool)',
      mcp.url,
      post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })),
    );
    const relay = await load(
      'MCP tools/call resolve_name alice (all connections, one name)',
      mcp.url,
      post(toolCall('resolve_name', { name: 'alice' })),
    );
    const records = await load(
      'MCP tools/call get_records alice (reads the chain)',
      mcp.url,
      post(toolCall('get_records', { name: 'alice' })),
    );
    const spellings = Array.from({ length: 32 }, (_, i) =>
      [...'alice'].map((c, bit) => ((i >> bit) & 1 ? c.toUpperCase() : c)).join(''),
    );
    const directSpread = await loadSpread(
      'GET /resolve/{32 spellings of alice}, one per connection (warm cache)',
      spellings.map((s) => ({ url: `${service.base}/resolve/${s}` })),
      { seconds },
    );
    const relaySpread = await loadSpread(
      'MCP tools/call resolve_name {32 spellings}, one per connection (a GET per call)',
      spellings.map((s) => ({ url: mcp.url, ...post(toolCall('resolve_name', { name: s })) })),
      { seconds },
    );
    const directLonger = await loadSpread(
      'GET /resolve/{32 spellings} on a service with a 5 s bound (warm cache)',
      spellings.map((s) => ({ url: `${longer.base}/resolve/${s}` })),
      { seconds },
    );
    const relayLonger = await loadSpread(
      'MCP tools/call resolve_name {32 spellings} relaying that service (reused while it says so)',
      spellings.map((s) => ({ url: mcpLonger.url, ...post(toolCall('resolve_name', { name: s })) })),
      { seconds },
    );
    const ratio = (relayRow: { requestsPerSec: number }, directRow: { requestsPerSec: number }) =>
      (relayRow.requestsPerSec / directRow.requestsPerSec).toFixed(2);
    // The goal's measurement: one name, each side on its warm cache.
    const resolveRatio = relay.requestsPerSec / direct.requestsPerSec;
    const paths = await comparePaths(chain, service.base, seconds);
    return {
      markdown:
        loadTable(
          [baseline, direct, ping, relay, directSpread, relaySpread, directLonger, relayLonger, records],
          baseline,
        ) +
        `\n\nresolve_name tool calls / direct GET /resolve: ${resolveRatio.toFixed(2)} for one name (goal ≥ 0.5); ` +
        `${ratio(relaySpread, directSpread)} for 32 spellings (a GET per call); ` +
        `${ratio(relayLonger, directLonger)} for 32 spellings on a service with a 5 s bound (answers reused)` +
        `\n\nThe hot path against the SDK's (best of ${PATH_ROUNDS} alternated rounds):\n\n${paths}`,
      resolveRatio,
    };
  } finally {
    await Promise.all([stop(bare.child), stop(mcp.child), stop(service.child), stop(mcpLonger.child)]);
    await stop(longer.child);
    await stop(chain.child);
  }
}
