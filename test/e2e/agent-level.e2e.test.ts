// GET /v1/agents/{handle}/level over real HTTP on `npm start`'s demo agents, composed the way dev.ts composes them:
// the local chain with its demo agent host, the service with SIGIL_OUTBOUND_ALLOW_LOOPBACK and
// SIGIL_OUTBOUND_CA_FILE pointing at the host's CA. The same report as get_agent_manifest and Gate's agent.level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLevelSchema } from '@sigil/contract/agents';
import { startLocalChain, type LocalChain } from '../../server/src/localchain';
import { apiKeyAuthSuite } from '../support/auth-suite';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';

let chain: LocalChain;
let app: KeyedApp;

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true });
  app = await startKeyedApp({
    dialect: 'sqlite',
    chain,
    env: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true', SIGIL_OUTBOUND_CA_FILE: chain.agentHost!.caFile },
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await chain?.close();
});

const getLevel = (handle: string) => app.call('GET', `/v1/agents/${handle}/level`, { key: app.key.secret });
const show = (res: { status: number; text: string }) => `${res.status} ${res.text}`;

describe('GET /v1/agents/{handle}/level on the demo agents', () => {
  it('@scout reaches L2: what proved each level, no next', async () => {
    const res = await getLevel('@scout');
    expect(res.status, show(res)).toBe(200);
    expect(AgentLevelSchema.parse(res.body)).toStrictEqual(res.body);
    const origin = chain.agentHost!.origin;
    expect(res.body).toMatchObject({ handle: 'scout', level: 'L2', next: null });
    expect(res.body.slot).toBeGreaterThan(0);
    expect(res.body.reached.map((r: { level: string }) => r.level)).toEqual(['L0', 'L1', 'L2']);
    expect(res.body.reached[0].reason).toBe(`@scout has an agent.manifest record: ${origin}/scout/manifest.json`);
    expect(res.body.reached[2].reason).toMatch(
      new RegExp(
        `^${origin.replace(/\./g, '\\.')}/scout/x402 answered 402 asking to pay \\w+, a signature-verified address of @scout$`,
      ),
    );
  });

  it('@broker stops at L1: its x402 endpoint asks to pay another address (payto-mismatch)', async () => {
    const res = await getLevel('broker');
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ handle: 'broker', level: 'L1', next: { level: 'L2', reason: 'payto-mismatch' } });
    expect(res.body.reached.map((r: { level: string }) => r.level)).toEqual(['L0', 'L1']);
    expect(res.body.next.message).toMatch(/\/broker\/x402 asks to pay \w+; @broker's verified payment address is \w+$/);
  });

  it('@courier stays at L0 with the reason L1 failed', async () => {
    const res = await getLevel('courier');
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({
      handle: 'courier',
      level: 'L0',
      next: {
        level: 'L1',
        reason: 'no-attestation',
        message: 'the manifest references no attestation (identity.attestation)',
      },
    });
  });

  it('a manifest that cannot be fetched is a level not reached (200 at L0), not an error', async () => {
    const res = await getLevel('ghost');
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({
      handle: 'ghost',
      level: 'L0',
      next: { level: 'L1', reason: 'manifest-unreachable' },
    });
  });

  it('a plain handle → 404 NOT_AN_AGENT; an unregistered one → 404 HANDLE_NOT_REGISTERED; a bad one → 400', async () => {
    const plain = await getLevel('alice');
    expect(plain.status, show(plain)).toBe(404);
    expect(plain.body.code).toBe('NOT_AN_AGENT');
    const missing = await getLevel('nobodyhere');
    expect(missing.status, show(missing)).toBe(404);
    expect(missing.body.code).toBe('HANDLE_NOT_REGISTERED');
    const bad = await getLevel('bad%20name');
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.body.code).toBe('INVALID_HANDLE');
  });
});

describe('credentials', () => {
  // alice is not an agent: the keyed 404 needs no probe.
  apiKeyAuthSuite(
    'GET /v1/agents/{handle}/level',
    () => app,
    (a, auth) => a.call('GET', '/v1/agents/alice/level', auth),
  );
});
