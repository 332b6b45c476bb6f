// The official MCP conformance runner (@modelcontextprotocol/conformance, `conformance server`) against the running
// server, offline: it spawns from node_modules and talks only to 127.0.0.1. Its tools-call-* scenarios call fixture
// tools (test_simple_text …) that a real server does not have: those, and only those, are the expected failures
// listed in conformance-expected-failures.yaml, each with its reason.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMcpWorld, type McpWorld } from '@sigil/test/support/mcp';
import { afterAll, beforeAll, expect, it } from 'vitest';

let world: McpWorld;
beforeAll(async () => {
  world = await startMcpWorld();
}, 60_000);
afterAll(async () => {
  await world?.close();
});

// The runner's bin file (its package exports nothing else); resolved from test/, which declares it.
const requireFromTest = createRequire(join(dirname(fileURLToPath(import.meta.url)), '../../../test/package.json'));
const bin = join(dirname(requireFromTest.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

// conformance 0.1.16 imports `globSync` from node:fs (Node 22+) for its report command only; on Node 20 the import
// itself fails. This loader hook gives the runner, and nothing else, an fs with a globSync that throws if used.
const NODE20_FS_SHIM = [
  "import { register } from 'node:module';",
  `const shim = 'data:text/javascript,' + encodeURIComponent("export * from 'node:fs'; export { default } from 'node:fs'; export function globSync() { throw new Error('globSync needs Node 22'); }");`,
  `const hooks = 'export async function resolve(s, c, next) { if ((s === "fs" || s === "node:fs") && c.parentURL && c.parentURL.includes("/@modelcontextprotocol/conformance/")) return { url: ' + JSON.stringify(shim) + ', shortCircuit: true }; return next(s, c); }';`,
  "register('data:text/javascript,' + encodeURIComponent(hooks));",
].join('\n');

function runConformance(url: string): Promise<{ code: number | null; output: string }> {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  const args = [
    ...(nodeMajor < 22 ? ['--import', `data:text/javascript,${encodeURIComponent(NODE20_FS_SHIM)}`] : []),
    bin,
    'server',
    '--url',
    url,
    '--expected-failures',
    fileURLToPath(new URL('./conformance-expected-failures.yaml', import.meta.url)),
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

it('passes every scenario of the official conformance runner except the fixture-tool ones', async () => {
  const { code, output } = await runConformance(world.mcp.url);
  if (code !== 0) console.log(output);
  expect(code).toBe(0);
}, 180_000);
