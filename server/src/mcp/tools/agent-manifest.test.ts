// get_agent_manifest against the real local chain and its demo agent host (loopback HTTPS, CA made at start): every
// level reached, every refusal with its reason, the domain failures, and the output always matching outputSchema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startLocalChain, type LocalChain, type Scenario } from '../../localchain';
import { createChainReader } from '../../platform/chain/reader';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/client';
import type { ToolDeps } from '../tool';
import { agentManifestTool, createAgentManifestTool } from './agent-manifest';

let chain: LocalChain;
let scenario: Scenario;
let outbound: OutboundClient;
let deps: ToolDeps;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: true });
  scenario = chain.scenario!;
  // What npm start does: loopback allowed, the demo host's CA trusted (SIGIL_OUTBOUND_CA_FILE).
  outbound = createOutboundClient({ allowLoopback: true, ca: chain.agentHost!.caPem, timeoutMs: 3_000 });
  deps = {
    chain: createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 2_000 }),
    apiUrl: 'http://127.0.0.1:1',
    queryApiUrl: undefined,
    outbound,
    fetch,
  };
}, 60_000);
afterAll(async () => {
  await outbound?.close();
  await chain?.close();
});

const output = z.object(agentManifestTool.outputSchema);

async function call(handle: string, with_: ToolDeps = deps) {
  const outcome = await agentManifestTool.run({ handle }, with_);
  if (outcome.ok) output.parse(outcome.value); // every success matches the declared output schema
  return outcome;
}

async function value(handle: string) {
  const outcome = await call(handle);
  if (!outcome.ok) throw new Error(`${handle}: ${outcome.code} ${outcome.message}`);
  return outcome.value;
}

describe('get_agent_manifest: levels reached', () => {
  it('L2: scout is declared, attested and its 402 probe pays its verified SOL address', async () => {
    const result = await value('@Scout');
    const scout = scenario.handles.scout!.account;
    expect(result).toMatchObject({
      name: 'scout',
      handle: scout,
      handleType: 3,
      agent: true,
      manifestUrl: `${chain.agentHost!.origin}/scout/manifest.json`,
      endpoints: { mcp: 'https://agents.example/scout/mcp' },
      level: 'L2',
      next: null,
    });
    expect(result.manifest?.sigil).toEqual({ version: 1, name: 'scout', network: 'testnet', handle: scout });
    expect(result.reached.map((r) => r.level)).toEqual(['L0', 'L1', 'L2']);
    expect(result.reached[1]!.reason).toMatch(/agent-audit: scout-audited.*live on chain/);
    expect(result.reached[2]!.reason).toBe(
      `${chain.agentHost!.origin}/scout/x402 answered 402 asking to pay ${
        (result.manifest!.payment!.addresses![0]! as { address: string }).address
      }, a signature-verified address of @scout`,
    );
  });

  it('every scenario agent reaches the level the scenario documents, and names the documented reason', async () => {
    for (const [name, expected] of Object.entries(scenario.agents)) {
      const result = await value(name);
      expect({ name, level: result.level, reason: result.next?.reason }).toEqual({
        name,
        level: expected.level,
        reason: expected.reason,
      });
    }
  });
});

describe('get_agent_manifest: each level refused for its reason', () => {
  const refused = async (name: string) => {
    const result = await value(name);
    return { level: result.level, next: result.next, reached: result.reached.map((r) => r.level) };
  };

  it('L1 refused: the manifest references no attestation', async () => {
    expect(await refused(scenario.cases.agentNoAttestation!)).toEqual({
      level: 'L0',
      reached: ['L0'],
      next: {
        level: 'L1',
        reason: 'no-attestation',
        message: 'the manifest references no attestation (identity.attestation)',
      },
    });
  });

  it('L1 refused: the referenced attestation was revoked', async () => {
    const result = await refused(scenario.cases.agentAttestationRevoked!);
    expect(result.level).toBe('L0');
    expect(result.next).toMatchObject({ level: 'L1', reason: 'attestation-revoked' });
    expect(result.next!.message).toMatch(/^attestation \w+ \(agent-audit: relay-audited, issuer \w+\) was revoked$/);
  });

  it('L1 refused: the manifest cannot be fetched (L0 still holds: the record exists)', async () => {
    const result = await value(scenario.cases.agentManifestUnreachable!);
    expect(result.level).toBe('L0');
    expect(result.manifest).toBeNull();
    expect(result.manifestUrl).toBe(`${chain.agentHost!.origin}/ghost/manifest.json`);
    expect(result.endpoints).toEqual({}); // ghost has no endpoint records
    expect(result.next).toEqual({
      level: 'L1',
      reason: 'manifest-unreachable',
      message: `manifest ${chain.agentHost!.origin}/ghost/manifest.json is unreachable: the server closed the connection before answering`,
    });
  });

  it('L2 refused: the probe answers 402 with another payTo', async () => {
    const result = await refused(scenario.cases.agentPayToMismatch!);
    expect(result.level).toBe('L1');
    expect(result.next).toMatchObject({ level: 'L2', reason: 'payto-mismatch' });
    expect(result.next!.message).toMatch(/asks to pay \w+; @broker's verified payment address is \w+$/);
  });

  it('L2 refused: the probe is unreachable (connection closed without an answer)', async () => {
    const result = await refused(scenario.cases.agentProbeUnreachable!);
    expect(result.level).toBe('L1');
    expect(result.next).toEqual({
      level: 'L2',
      reason: 'probe-unreachable',
      message: `${chain.agentHost!.origin}/nomad/x402 is unreachable: the receiver closed the connection before answering`,
    });
  });

  it('L2 refused: the probe redirects (never followed)', async () => {
    const result = await refused(scenario.cases.agentProbeRedirect!);
    expect(result.level).toBe('L1');
    expect(result.next).toEqual({
      level: 'L2',
      reason: 'probe-redirect',
      message: `${chain.agentHost!.origin}/mirror/x402 answered HTTP 302 to ${chain.agentHost!.origin}/scout/x402 (redirects are not followed)`,
    });
  });

  it('L2 refused: the probe answers 200, not a 402 challenge', async () => {
    const result = await refused(scenario.cases.agentProbeNot402!);
    expect(result.next).toEqual({
      level: 'L2',
      reason: 'probe-not-402',
      message: `${chain.agentHost!.origin}/kiosk/x402 answered HTTP 200, not a 402 payment challenge`,
    });
  });

  it('a manifest host whose certificate is not trusted is refused (no SIGIL_OUTBOUND_CA_FILE)', async () => {
    const strict = createOutboundClient({ allowLoopback: true, timeoutMs: 3_000 }); // system CAs only
    try {
      const outcome = await call('scout', { ...deps, outbound: strict });
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(outcome.value.level).toBe('L0');
      expect(outcome.value.next).toMatchObject({ level: 'L1', reason: 'manifest-unreachable' });
      expect(outcome.value.next!.message).toMatch(/is unreachable: TLS certificate unverifiable/);
    } finally {
      await strict.close();
    }
  });

  it('without the loopback switch the demo host is not an allowed destination', async () => {
    const production = createOutboundClient({ ca: chain.agentHost!.caPem });
    try {
      const outcome = await call('scout', { ...deps, outbound: production });
      expect(outcome.ok && outcome.value.next).toMatchObject({ level: 'L1', reason: 'manifest-unreachable' });
      expect(outcome.ok && outcome.value.next!.message).toMatch(/destination not allowed/);
    } finally {
      await production.close();
    }
  });
});

describe('get_agent_manifest: domain failures', () => {
  it('NOT_AN_AGENT, HANDLE_NOT_REGISTERED, INVALID_HANDLE as { ok: false, code, message }', async () => {
    expect(await call(scenario.cases.plainWithPrimary!)).toEqual({
      ok: false,
      code: 'NOT_AN_AGENT',
      message: '@alice is not an agent (handle type 0, no agent.manifest record)',
    });
    expect(await call(scenario.cases.unregistered!)).toEqual({
      ok: false,
      code: 'HANDLE_NOT_REGISTERED',
      message: '@nobody is not registered',
    });
    expect(await call('not a handle!')).toMatchObject({ ok: false, code: 'INVALID_HANDLE' });
  });

  it('RPC_ERROR when the chain is unreachable', async () => {
    chain.faults.set({ unreachable: true });
    try {
      expect(await call('scout')).toEqual({ ok: false, code: 'RPC_ERROR', message: 'the chain RPC is unreachable' });
    } finally {
      chain.faults.set({ unreachable: false });
    }
  });

  it('a mainnet deployment refuses the testnet demo manifests as invalid (validated exactly like /v1/agents)', async () => {
    const mainnet = createAgentManifestTool({ network: 'mainnet' });
    const outcome = await mainnet.run({ handle: 'scout' }, deps);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    output.parse(outcome.value);
    expect(outcome.value.next).toMatchObject({ level: 'L1', reason: 'manifest-invalid' });
    expect(outcome.value.next!.message).toMatch(/sigil\.network: is testnet; this deployment is mainnet/);
  });
});

describe('get_agent_manifest: definition', () => {
  it('names, annotations and schemas', () => {
    expect(agentManifestTool.name).toBe('get_agent_manifest');
    expect(agentManifestTool.title).toBeTruthy();
    expect(agentManifestTool.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(z.object(agentManifestTool.inputSchema).safeParse({ handle: '@scout' }).success).toBe(true);
    expect(z.object(agentManifestTool.inputSchema).safeParse({}).success).toBe(false);
    // The output schema converts to JSON Schema (what MCP clients receive).
    expect(() => z.toJSONSchema(output, { unrepresentable: 'any' })).not.toThrow();
  });
});
