/**
 * The MCP tool server for tests, next to a real service: the local chain with its demo scenario, the keyed service
 * (startKeyedApp) and the MCP HTTP server over both, plus an official SDK client connected to it; and the official
 * conformance runner (runConformance).
 *
 *   const world = await startMcpWorld();
 *   const client = await world.connect();
 *   const result = await client.callTool({ name: 'resolve_name', arguments: { name: 'alice' } });
 *   await world.close();
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { createLogger } from '../../server/src/platform/log';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { createUpstreamFetch } from '../../server/src/platform/outbound/upstream';
import { startMcpHttpServer, type RunningMcpServer } from '../../server/src/mcp/server';
import type { ToolDeps } from '../../server/src/mcp/tool';
import { mcpTools } from '../../server/src/mcp/tools/index';

import { startKeyedApp, type KeyedApp } from './keyed-app';

/** The served tools, on the demo scenario's network. */
const TOOLS = mcpTools({ network: 'testnet' });

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
  const deps: ToolDeps = { chain, apiUrl: app.base, queryApiUrl: undefined, outbound, fetch: createUpstreamFetch() };
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

// The runner's bin file (its package exports nothing else); resolved from test/, which declares it.
const require = createRequire(import.meta.url);
const bin = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

// conformance 0.1.16 imports `globSync` from node:fs (Node 22+) for its report command only; on Node 20 the import
// itself fails. This loader hook gives the runner, and nothing else, an fs with a globSync that throws if used.
const NODE20_FS_SHIM = [
  "import { register } from 'node:module';",
  `const shim = 'data:text/javascript,' + encodeURIComponent("export * from 'node:fs'; export { default } from 'node:fs'; export function globSync() { throw new Error('globSync needs Node 22'); }");`,
  `const hooks = 'export async function resolve(s, c, next) { if ((s === "fs" || s === "node:fs") && c.parentURL && c.parentURL.includes("/@modelcontextprotocol/conformance/")) return { url: ' + JSON.stringify(shim) + ', shortCircuit: true }; return next(s, c); }';`,
  "register('data:text/javascript,' + encodeURIComponent(hooks));",
].join('\n');

/** `conformance server --url <url> --expected-failures <file>`; exit code 0 = no unexpected failure. */
export function runConformance(
  url: string,
  expectedFailuresFile: string,
): Promise<{ code: number | null; output: string }> {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  const args = [
    ...(nodeMajor < 22 ? ['--import', `data:text/javascript,${encodeURIComponent(NODE20_FS_SHIM)}`] : []),
    bin,
    'server',
    '--url',
    url,
    '--expected-failures',
    expectedFailuresFile,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c));
    child.stderr.on('data', (c: Buffer) => (output += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
