// `npm start`'s demo agents over real HTTP, composed the way dev.ts composes them: the local chain with its demo
// agent host, the service with SIGIL_OUTBOUND_ALLOW_LOOPBACK and SIGIL_OUTBOUND_CA_FILE pointing at the host's CA
// (no test CA injected: the trust comes from the configuration, through compose.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../../server/src/localchain';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';

let chain: LocalChain;
let app: KeyedApp;
let untrusting: KeyedApp; // same chain and loopback switch, but no SIGIL_OUTBOUND_CA_FILE

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true });
  app = await startKeyedApp({
    dialect: 'sqlite',
    chain,
    env: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true', SIGIL_OUTBOUND_CA_FILE: chain.agentHost!.caFile },
  });
  untrusting = await startKeyedApp({ dialect: 'sqlite', chain, env: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true' } });
}, 60_000);
afterAll(async () => {
  await untrusting?.close();
  await app?.close();
  await chain?.close();
});

const getAgent = (handle: string, on = app) => on.call('GET', `/v1/agents/${handle}`, { key: on.key.secret });

describe('the demo agents under npm start', () => {
  it('GET /v1/agents/scout answers 200 with the manifest served by the demo agent host', async () => {
    const res = await getAgent('scout');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'scout',
      handle: chain.scenario!.handles.scout!.account,
      handleType: 3,
      agent: true,
      manifestUrl: `${chain.agentHost!.origin}/scout/manifest.json`,
      endpoints: { mcp: 'https://agents.example/scout/mcp' },
      manifest: { sigil: { version: 1, name: 'scout', network: 'testnet' } },
    });
  });

  it('every demo agent with a reachable manifest resolves (200); the unreachable one answers 424', async () => {
    for (const [name, agent] of Object.entries(chain.scenario!.agents)) {
      const res = await getAgent(name);
      expect({ name, status: res.status }).toEqual({
        name,
        status: agent.reason === 'manifest-unreachable' ? 424 : 200,
      });
    }
  });

  it('without SIGIL_OUTBOUND_CA_FILE the demo host is untrusted: 424 naming the certificate', async () => {
    const res = await getAgent('scout', untrusting);
    expect(res.status).toBe(424);
    expect(res.body.code).toBe('MANIFEST_UNREACHABLE');
    expect(res.body.message).toMatch(/TLS certificate unverifiable/);
  });
});
