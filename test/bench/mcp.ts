// The MCP tool server under concurrent load over loopback: resolve_name tool calls next to the direct
// GET /resolve they relay (both on the service's warm cache, same run), and get_records, which reads the chain on
// every call (handle, authority and records), for its latency. Each tools/call is one stateless POST /mcp.
//
// The relay answers a call in one of three ways (docs/mcp.md): reusing an answer within the lifetime the service
// states (Cache-Control), joining an identical GET in flight, or sending its own GET. The rows separate them: one
// name on every connection (calls join and reuse); 32 spellings of it, one per connection (handles are
// case-insensitive, so all resolve to the same handle, but each is its own URL for the relay and for the service's
// answer cache, so no call joins another; and as the 32 answers are built from one cached chain outcome, only the
// spelling that reloads it is told max-age=1, the others less than a second, max-age=0); and the same 32 against a
// second service whose answer cache lasts 999 ms, which always states max-age=0, so that every call costs a GET.
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
  const unstated = await startServiceProcess(chain, { SIGIL_RESOLVE_CACHE_MS: '999' });
  const mcpUnstated = await startMcpProcess(chain, unstated.base);
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
      'MCP tools/call resolve_name {32 spellings}, one per connection',
      spellings.map((s) => ({ url: mcp.url, ...post(toolCall('resolve_name', { name: s })) })),
      { seconds },
    );
    const directUnstated = await loadSpread(
      'GET /resolve/{32 spellings} on a service stating max-age=0 (warm cache)',
      spellings.map((s) => ({ url: `${unstated.base}/resolve/${s}` })),
      { seconds },
    );
    const relayUnstated = await loadSpread(
      'MCP tools/call resolve_name {32 spellings} relaying that service (a GET per call)',
      spellings.map((s) => ({ url: mcpUnstated.url, ...post(toolCall('resolve_name', { name: s })) })),
      { seconds },
    );
    const ratio = (relayRow: { requestsPerSec: number }, directRow: { requestsPerSec: number }) =>
      (relayRow.requestsPerSec / directRow.requestsPerSec).toFixed(2);
    const resolveRatio = relaySpread.requestsPerSec / directSpread.requestsPerSec;
    return {
      markdown:
        loadTable(
          [baseline, direct, ping, relay, directSpread, relaySpread, directUnstated, relayUnstated, records],
          baseline,
        ) +
        `\n\nresolve_name tool calls / direct GET /resolve (goal ≥ 0.5): ${ratio(relay, direct)} for one name, ` +
        `${resolveRatio.toFixed(2)} for 32 spellings; ${ratio(relayUnstated, directUnstated)} when every call is ` +
        `relayed (the service states no reusable lifetime)`,
      resolveRatio,
    };
  } finally {
    await Promise.all([stop(bare.child), stop(mcp.child), stop(service.child), stop(mcpUnstated.child)]);
    await stop(unstated.child);
    await stop(chain.child);
  }
}
