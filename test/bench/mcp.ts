// The MCP tool server under concurrent load over loopback: resolve_name tool calls next to the direct
// GET /resolve/alice they relay (both on the service's warm cache, same run), and get_records, which reads the chain
// on every call (handle, authority and records), for its latency. Each tools/call is one stateless POST /mcp.
//
// Two pairs of relay rows: all 32 connections asking for `alice` (concurrent identical calls share one GET to the
// service, as an agent fleet asking for the same name would), and each connection asking for its own spelling of it
// (`alice`, `Alice`, `aLice` … — handles are case-insensitive, so all 32 resolve to the same handle, but each is its
// own URL for the relay and for the service's answer cache): no call shares a GET, every call costs the whole relay.
// The goal is judged on the second pair.
import {
  load,
  loadSpread,
  loadTable,
  startBareServer,
  startChainProcess,
  startMcpProcess,
  startServiceProcess,
  stop,
} from './support';

const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

export async function benchMcp(opts: { seconds?: number } = {}): Promise<{ markdown: string; resolveRatio: number }> {
  const seconds = opts.seconds ?? 5;
  const chain = await startChainProcess();
  const service = await startServiceProcess(chain, { SIGIL_RESOLVE_CACHE_MS: '1000' });
  const mcp = await startMcpProcess(chain, service.base);
  const sample = await (await fetch(`${service.base}/resolve/alice`)).text();
  const bare = await startBareServer(sample);
  const post = (body: string) => ({
    seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
  });
  try {
    const baseline = await load('bare node:http, fixed JSON', bare.base, { seconds });
    const direct = await load('GET /resolve/alice (warm cache)', `${service.base}/resolve/alice`, { seconds });
    // The floor of a hot-path MCP request: JSON-RPC through the shared protocol server, no tool.
    const ping = await load(
      'MCP ping (the hot path, no tool)',
      mcp.url,
      post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })),
    );
    const relay = await load(
      'MCP tools/call resolve_name alice (relays the warm GET)',
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
      'MCP tools/call resolve_name {32 spellings}, one per connection (no shared GET)',
      spellings.map((s) => ({ url: mcp.url, ...post(toolCall('resolve_name', { name: s })) })),
      { seconds },
    );
    const sharedRatio = relay.requestsPerSec / direct.requestsPerSec;
    const resolveRatio = relaySpread.requestsPerSec / directSpread.requestsPerSec;
    return {
      markdown:
        loadTable([baseline, direct, ping, relay, directSpread, relaySpread, records], baseline) +
        `\n\nresolve_name tool calls / direct GET /resolve: ${resolveRatio.toFixed(2)} with no shared GET (goal ≥ 0.5), ` +
        `${sharedRatio.toFixed(2)} when concurrent calls for one name share one GET`,
      resolveRatio,
    };
  } finally {
    await Promise.all([stop(bare.child), stop(mcp.child), stop(service.child)]);
    await stop(chain.child);
  }
}
