// search_agent_handles against the real service (keyed app over the local chain's demo scenario, one index pass):
// agents only, pages, the API's codes relayed, not-available without a query API, and every result valid against
// the tool's output schema.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { registerHandle } from '@sigil/test/support/agent-registry';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { fundedWallet } from '@sigil/test/support/localchain-wallets';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { createChainReader } from '../../platform/chain/reader';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/client';
import { runHandleIndexPass } from '../../features/search/index';
import type { ToolDeps } from '../tool';
import { QUERY_API_UNAVAILABLE, searchAgentHandlesTool } from './search-agent-handles';

let chain: LocalChain;
let app: KeyedApp;
let outbound: OutboundClient;
let deps: ToolDeps & { queryApiKey?: string };
const output = z.object(searchAgentHandlesTool.outputSchema);

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true, autoAdvance: false });
  app = await startKeyedApp({ dialect: 'sqlite', chain });
  const wallet = await fundedWallet(chain);
  await registerHandle(chain, wallet, 'scoutbot', 3);
  await registerHandle(chain, wallet, 'scouting'); // not an agent: never listed
  const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
  await runHandleIndexPass(app.database.db, { chain: reader });
  outbound = createOutboundClient();
  deps = { chain: reader, apiUrl: app.base, queryApiUrl: app.base, queryApiKey: app.key.secret, outbound, fetch };
}, 120_000);
afterAll(async () => {
  await outbound?.close();
  await app?.close();
  await chain?.close();
});

const run = async (args: Parameters<typeof searchAgentHandlesTool.run>[0], with_: Partial<typeof deps> = {}) => {
  const outcome = await searchAgentHandlesTool.run(args, { ...deps, ...with_ });
  if (outcome.ok) expect(output.parse(outcome.value)).toEqual(outcome.value);
  return outcome;
};

it('names, title, annotations', () => {
  expect(searchAgentHandlesTool.name).toBe('search_agent_handles');
  expect(searchAgentHandlesTool.annotations).toEqual({
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  });
});

it('no query API configured → not-available, an answer rather than an error', async () => {
  expect(await run({ query: 'scout' }, { queryApiUrl: undefined })).toEqual({
    ok: true,
    value: { status: 'not-available', items: [] },
  });
});

it('lists agent handles only, by prefix or substring', async () => {
  const prefix = await run({ query: 'scout' });
  expect(prefix.ok && prefix.value.items.map((i) => i.name)).toEqual(['scout', 'scoutbot']);
  expect(prefix.ok && prefix.value.items.every((i) => i.agent)).toBe(true);
  const substring = await run({ query: 'o', mode: 'substring', limit: 100 });
  const demoAgents = Object.keys(chain.scenario!.agents).filter((name) => name.includes('o'));
  expect(substring.ok && substring.value.items.map((i) => i.name)).toEqual([...demoAgents, 'scoutbot'].sort());
  expect(await run({ query: 'alice' })).toEqual({ ok: true, value: { status: 'ok', items: [], nextCursor: null } });
});

it('pages with the cursor', async () => {
  const first = await run({ query: 'sc', limit: 1 });
  expect(first.ok && first.value.items.map((i) => i.name)).toEqual(['scout']);
  const cursor = first.ok ? first.value.nextCursor! : '';
  const second = await run({ query: 'sc', limit: 1, cursor });
  expect(second.ok && second.value).toMatchObject({ items: [{ name: 'scoutbot' }], nextCursor: null });
});

it("the API's refusals come back as its codes", async () => {
  expect(await run({ query: 'sc', cursor: 'bm90LWEtY3Vyc29y' })).toMatchObject({ ok: false, code: 'BAD_REQUEST' });
  expect(await run({ query: 'sc' }, { queryApiKey: undefined })).toMatchObject({
    ok: false,
    code: 'API_KEY_REQUIRED',
  });
  expect(await run({ query: 'sc' }, { queryApiKey: 'sk_wrong' })).toMatchObject({ ok: false, code: 'INVALID_KEY' });
});

it(`an unreachable query API → ${QUERY_API_UNAVAILABLE}`, async () => {
  const outcome = await run({ query: 'sc' }, { queryApiUrl: 'http://127.0.0.1:9' });
  expect(outcome).toMatchObject({ ok: false, code: QUERY_API_UNAVAILABLE });
});
