/**
 * The MCP tool server for tests, next to a real service: the local chain with its demo scenario, the keyed service
 * (startKeyedApp) and the MCP HTTP server over both, plus an official SDK client connected to it.
 *
 *   const world = await startMcpWorld();
 *   const client = await world.connect();
 *   const result = await client.callTool({ name: 'resolve_name', arguments: { name: 'alice' } });
 *   await world.close();
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { createLogger } from '../../server/src/platform/log';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { startMcpHttpServer, type RunningMcpServer } from '../../server/src/mcp/server';
import type { ToolDeps } from '../../server/src/mcp/tool';
import { TOOLS } from '../../server/src/mcp/tools/index';
import { startKeyedApp, type KeyedApp } from './keyed-app';

export interface McpWorld {
  app: KeyedApp;
  mcp: RunningMcpServer;
  deps: ToolDeps;
  /** A connected SDK client that has listed the tools (so it validates structuredContent against outputSchema). */
  connect(): Promise<Client>;
  close(): Promise<void>;
}

export async function startMcpWorld(options: { app?: KeyedApp } = {}): Promise<McpWorld> {
  const app = options.app ?? (await startKeyedApp({ dialect: 'sqlite' }));
  const chain = createChainReader({ rpcUrl: app.chain.url, programId: app.chain.programId, timeoutMs: 2000 });
  const outbound = createOutboundClient();
  const deps: ToolDeps = { chain, apiUrl: app.base, queryApiUrl: undefined, outbound, fetch: globalThis.fetch };
  const mcp = await startMcpHttpServer({
    tools: TOOLS,
    deps,
    logger: createLogger({ logLevel: 'silent' }),
    bindHost: '127.0.0.1',
    port: 0,
  });
  const clients: Client[] = [];
  return {
    app,
    mcp,
    deps,
    async connect() {
      const client = new Client({ name: 'sigil-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
      await client.listTools();
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await mcp.close();
      await outbound.close();
      if (!options.app) await app.close();
    },
  };
}
