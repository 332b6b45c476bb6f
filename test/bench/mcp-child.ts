// The MCP tool server for the mcp benchmark (test/bench/mcp.ts), in its own process so that its CPU is its own:
// wired as server/src/mcp/main.ts wires it, plus the listener's `hotPath` switch, which the process's configuration
// does not expose. Prints its /mcp URL on stdout once listening, then runs until SIGTERM.
//   node --import tsx test/bench/mcp-child.ts <rpcUrl> <programId> <apiUrl> <hot|sdk>
import { createChainReader } from '../../server/src/platform/chain/reader';
import { createLogger } from '../../server/src/platform/log';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { createUpstreamFetch } from '../../server/src/platform/outbound/upstream';
import { startMcpHttpServer } from '../../server/src/mcp/server';
import { mcpTools } from '../../server/src/mcp/tools/index';

const [rpcUrl, programId, apiUrl, path] = process.argv.slice(2) as [string, string, string, string];
const outbound = createOutboundClient({ userAgent: 'sigil-mcp/1' });
const running = await startMcpHttpServer({
  tools: mcpTools({ network: 'testnet' }),
  deps: {
    chain: createChainReader({ rpcUrl, programId, timeoutMs: 5000 }),
    apiUrl,
    queryApiUrl: undefined,
    outbound,
    fetch: createUpstreamFetch(),
  },
  logger: createLogger({ logLevel: 'silent' }),
  bindHost: '127.0.0.1',
  port: 0,
  hotPath: path === 'hot',
});
console.log(running.url);
process.once('SIGTERM', () => {
  void running.close().then(() => outbound.close().then(() => process.exit(0)));
});
