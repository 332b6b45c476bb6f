// The official MCP conformance runner (@modelcontextprotocol/conformance, `conformance server`) against the running
// server, offline: it spawns from node_modules and talks only to 127.0.0.1. The scenarios that need the runner's
// fixtures (tools such as test_simple_text, resources, prompts) or a session are the expected failures
// listed in conformance-expected-failures.yaml, each with its reason.
import { fileURLToPath } from 'node:url';
import { runConformance, startMcpWorld, type McpWorld } from '@sigil/test/support/mcp';
import { afterAll, beforeAll, expect, it } from 'vitest';

let world: McpWorld;
beforeAll(async () => {
  world = await startMcpWorld();
}, 60_000);
afterAll(async () => {
  await world?.close();
});

it('passes every scenario of the official conformance runner except the fixture-tool ones', async () => {
  const expectedFailures = fileURLToPath(new URL('./conformance-expected-failures.yaml', import.meta.url));
  const { code, output } = await runConformance(world.mcp.url, expectedFailures);
  if (code !== 0) console.log(output);
  expect(code).toBe(0);
}, 180_000);
