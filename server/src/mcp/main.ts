// The MCP process: config → chain reader → outbound client → HTTP on MCP_BIND; on SIGTERM/SIGINT stop accepting,
// finish in-flight calls, exit 0. It holds no keys and no database; it prints only JSON log lines.
import { createChainReader } from '../platform/chain/reader';
import { createLogger } from '../platform/log';
import { createOutboundClient } from '../platform/outbound/client';
import { createUpstreamFetch } from '../platform/outbound/upstream';
import { loadMcpConfig, McpConfigErrors, type McpConfig } from './config';
import { startMcpHttpServer } from './server';
import { mcpTools } from './tools/index';

const SHUTDOWN_GRACE_MS = 10_000;

function configOrExit(): McpConfig {
  try {
    return loadMcpConfig(process.env);
  } catch (err) {
    if (!(err instanceof McpConfigErrors)) throw err;
    // One JSON line per bad variable: the operator needs the variable and the reason, nothing else.
    const logger = createLogger({ logLevel: 'info' }).child({ component: 'mcp' });
    for (const e of err.errors) logger.fatal({ variable: e.variable, reason: e.reason }, e.message);
    process.exit(1);
  }
}

const config = configOrExit();
const logger = createLogger(config).child({ component: 'mcp' });
const chain = createChainReader({ rpcUrl: config.rpcUrl, programId: config.programId, timeoutMs: config.rpcTimeoutMs });
const outbound = createOutboundClient({
  allowLoopback: config.outboundAllowLoopback,
  ca: config.outboundCa,
  userAgent: 'sigil-mcp/1',
});
const tools = mcpTools({ network: config.network, ipfsGateway: config.ipfsGateway });

const running = await startMcpHttpServer({
  tools,
  deps: {
    chain,
    apiUrl: config.apiUrl,
    queryApiUrl: config.queryApiUrl,
    queryApiKey: config.queryApiKey,
    outbound,
    fetch: createUpstreamFetch(),
  },
  logger,
  bindHost: config.bind.host,
  port: config.bind.port,
  allowedHosts: config.allowedHosts,
}).catch((err: Error) => {
  logger.fatal({ err, bind: config.bind }, 'cannot listen');
  process.exit(1);
});
logger.info({ url: running.url, tools: tools.map((t) => t.name), api: config.apiUrl }, 'mcp server listening');

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  // Not unref'd: it also keeps the process alive until the closes below settle, so that the exit is always this
  // function's (a close whose promise never settles would otherwise let Node exit silently mid-shutdown).
  const deadline = setTimeout(() => {
    logger.error({ graceMs: SHUTDOWN_GRACE_MS }, 'shutdown took too long; exiting');
    process.exit(1);
  }, SHUTDOWN_GRACE_MS);
  await running.close();
  await outbound.close();
  clearTimeout(deadline);
  logger.info('stopped');
  // The last line must reach stdout before the exit (pino writes stdout asynchronously when it is a pipe).
  logger.flush(() => process.exit(0));
};
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
