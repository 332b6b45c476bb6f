// Gate's agent.level over real HTTP on the demo agents, composed the way `npm start` composes them: the local chain
// with its demo agent host, the service with SIGIL_OUTBOUND_ALLOW_LOOPBACK and SIGIL_OUTBOUND_CA_FILE (the outbound
// client reaches the gate through compose.ts). L1 and L2 true and false for every demo agent, the reason as evidence,
// null (indeterminate, never allow) when the chain cannot be read, false when the agent's host cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyNode } from '@sigil/contract/gate';
import { createAgentService, type AgentService } from '../../server/src/features/agents/index';
import { createGateService } from '../../server/src/features/gate/service';
import { createReverseService } from '../../server/src/features/reverse/service';
import { startLocalChain, type LocalChain } from '../../server/src/localchain';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { findAttestationPda, findHandlePda, getAttestInstruction } from '../../server/src/platform/chain/registry';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { show } from '../support/connect-world';
import { registerHandle, setRecord } from '../support/agent-registry';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';
import { exec, fundedWallet } from '../support/webhooks-world';

let chain: LocalChain;
let app: KeyedApp;
let production: KeyedApp; // same chain, no loopback switch: the demo host is not an allowed destination

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true });
  app = await startKeyedApp({
    dialect: 'sqlite',
    chain,
    env: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true', SIGIL_OUTBOUND_CA_FILE: chain.agentHost!.caFile },
  });
  production = await startKeyedApp({ dialect: 'sqlite', chain });
}, 60_000);
afterAll(async () => {
  await production?.close();
  await app?.close();
  await chain?.close();
});

async function check(subject: unknown, policy: PolicyNode, on = app) {
  const res = await on.call('POST', '/v1/gate/check', { key: on.key.secret, body: { subject, policy } });
  expect(res.status, show(res)).toBe(200);
  return res.body;
}

const level = (handle: string, min: 'L0' | 'L1' | 'L2', on = app) =>
  check({ handle }, { 'agent.level': { min } }, on).then((body) => ({
    decision: body.decision as string,
    result: body.reasons[0].result as boolean | null,
    evidence: body.reasons[0].evidence,
    error: body.reasons[0].error as string | undefined,
  }));

describe('agent.level L1 and L2 on the demo agents', () => {
  // [handle, L1, L2, the reason the next level failed]
  const rows: [string, boolean, boolean, string | null][] = [
    ['scout', true, true, null],
    ['broker', true, false, 'payto-mismatch'],
    ['nomad', true, false, 'probe-unreachable'],
    ['mirror', true, false, 'probe-redirect'],
    ['kiosk', true, false, 'probe-not-402'],
    ['courier', false, false, 'no-attestation'],
    ['relay', false, false, 'attestation-revoked'],
    ['ghost', false, false, 'manifest-unreachable'],
  ];
  for (const [handle, l1, l2, reason] of rows) {
    it(`@${handle}: L1 ${l1}, L2 ${l2}${reason ? ` (${reason})` : ''}`, async () => {
      const atL2 = await level(handle, 'L2');
      expect([atL2.result, atL2.decision]).toEqual([l2, l2 ? 'allow' : 'deny']);
      expect(atL2.evidence.next?.reason ?? null).toBe(reason);
      expect(atL2.error).toBeUndefined();
      const atL1 = await level(handle, 'L1');
      expect([atL1.result, atL1.decision]).toEqual([l1, l1 ? 'allow' : 'deny']);
    });
  }

  it('the evidence of an L2 agent: what proved each level, and the slot the agents feature read at', async () => {
    const { evidence } = await level('scout', 'L2');
    const origin = chain.agentHost!.origin;
    expect(evidence).toMatchObject({
      handle: 'scout',
      handleType: 3,
      manifest: `${origin}/scout/manifest.json`,
      level: 'L2',
      next: null,
    });
    expect(evidence.reached.map((r: { level: string }) => r.level)).toEqual(['L0', 'L1', 'L2']);
    expect(evidence.reached[0].reason).toBe(`@scout has an agent.manifest record: ${origin}/scout/manifest.json`);
    expect(evidence.reached[2].reason).toMatch(
      new RegExp(
        `^${origin.replace(/\./g, '\\.')}/scout/x402 answered 402 asking to pay \\w+, a signature-verified address of @scout$`,
      ),
    );
    expect(evidence.slot).toBeGreaterThan(0);
  });

  it('min L1 stops at L1: no probe is sent, so an agent whose probe fails is still L1', async () => {
    const { evidence, result } = await level('nomad', 'L1');
    expect(result).toBe(true);
    expect(evidence.level).toBe('L1');
    expect(evidence.reached.map((r: { level: string }) => r.level)).toEqual(['L0', 'L1']);
    expect(evidence.next).toBeNull();
  });

  it('an L1 refusal carries the message of get_agent_manifest', async () => {
    const { evidence } = await level('courier', 'L1');
    expect(evidence).toMatchObject({
      level: 'L0',
      next: {
        level: 'L1',
        reason: 'no-attestation',
        message: 'the manifest references no attestation (identity.attestation)',
      },
    });
  });

  it('L1 and L2 leaves of one policy share one level check: the L1 leaf sees the L2 evaluation', async () => {
    const body = await check(
      { handle: 'broker' },
      { all: [{ 'agent.level': { min: 'L1' } }, { 'agent.level': { min: 'L2' } }] },
    );
    expect(body.decision).toBe('deny');
    expect(body.reasons.map((r: { result: unknown }) => r.result)).toEqual([false, true, false]);
    expect(body.reasons[1].evidence).toEqual(body.reasons[2].evidence);
    expect(body.reasons[1].evidence.next.reason).toBe('payto-mismatch');
  });

  it('a handle that declares no agent is false at L1 and L2 (nothing is fetched)', async () => {
    for (const min of ['L1', 'L2'] as const) {
      const { result, evidence } = await level('alice', min);
      expect(result).toBe(false);
      expect(evidence).toStrictEqual({ handle: 'alice', handleType: 0, manifest: null, level: null });
    }
  });

  it('a wallet subject reads its primary handle: a wallet without one is false', async () => {
    const body = await check({ wallet: chain.scenario!.wallets.alice!.address }, { 'agent.level': { min: 'L1' } });
    expect(body.reasons[0]).toMatchObject({ result: false, evidence: { handle: 'alice', level: null } });
  });
});

describe('agent.level: null only when the chain cannot be read', () => {
  it('RPC down: L1 and L2 are null → indeterminate, never allow', async () => {
    chain.faults.set({ unreachable: true });
    try {
      for (const min of ['L1', 'L2'] as const) {
        const { decision, result, error } = await level('scout', min);
        expect([decision, result]).toEqual(['indeterminate', null]);
        expect(error).toBe("the subject's handle could not be read (rpc unreachable)");
      }
    } finally {
      chain.faults.clear();
    }
  });

  it("the RPC fails only for the agents feature's scans (503): null, while the check's own reads still decide L0", async () => {
    // The check reads the handle and its planned records by address; the levels also scan the handle's records and
    // attestations (getProgramAccounts): only those calls fail.
    chain.faults.set({ httpStatus: 503, methods: ['getProgramAccounts'] });
    try {
      const body = await check(
        { handle: 'scout' },
        { all: [{ 'agent.level': { min: 'L0' } }, { 'agent.level': { min: 'L2' } }] },
      );
      expect(body.decision).toBe('indeterminate');
      expect(body.reasons.map((r: { result: unknown }) => r.result)).toEqual([null, true, null]);
      expect(body.reasons[2]).toStrictEqual({
        path: '/all/1/agent.level',
        result: null,
        evidence: {
          handle: 'scout',
          handleType: 3,
          manifest: `${chain.agentHost!.origin}/scout/manifest.json`,
          level: 'L0',
        },
        error: 'the chain RPC is unreachable',
      });
    } finally {
      chain.faults.clear();
    }
  });

  it('the agent host not reachable (a deployment without the loopback switch): false with the reason, not null', async () => {
    const { decision, result, evidence } = await level('scout', 'L1', production);
    expect([decision, result]).toEqual(['deny', false]);
    expect(evidence.level).toBe('L0');
    expect(evidence.next).toMatchObject({ level: 'L1', reason: 'manifest-unreachable' });
    expect(evidence.next.message).toMatch(/destination not allowed/);
    // L0 reads only the chain: the same deployment still decides it.
    expect((await level('scout', 'L0', production)).result).toBe(true);
  });
});

describe('agent.level: judged once per check, only as far as the policy asks', () => {
  const reader = () => createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
  const gateWith = (agents: Pick<AgentService, 'level'>, nowMs: number) =>
    createGateService({
      db: app.database.db,
      chain: reader(),
      reverse: createReverseService({ chain: reader() }),
      agents,
      sessions: { verify: () => Promise.reject(new Error('no sessions here')) },
      suffixes: app.config.domainSuffixes,
      production: false,
      issuer: 'http://sigil.test',
      now: () => nowMs,
    });

  it('an attestation that expires bounds validUntil of a true L1, and L1 is false from its expiresAt', async () => {
    // An agent of its own: type 3, its manifest on the demo host, referencing an attestation that expires.
    const owner = await fundedWallet(chain);
    const issuer = await fundedWallet(chain);
    const name = 'gatexpiring';
    await registerHandle(chain, owner, name, 3);
    const [account] = await findHandlePda(chain.programId, name);
    const [attestation] = await findAttestationPda(chain.programId, account, 'agent-audit');
    const expiresAt = 2_000_000_000;
    await exec(chain, issuer, [
      getAttestInstruction({
        programId: chain.programId,
        issuer: issuer.address,
        handle: account,
        attestation,
        platform: 'agent-audit',
        subject: `${name}-audited`,
        expiresAt,
      }),
    ]);
    const origin = chain.agentHost!.origin;
    await setRecord(chain, owner, name, 'text', 'agent.manifest', `${origin}/${name}/manifest.json`);
    chain.agentHost!.serve({
      ...chain.scenario!.agentHost.routes,
      [`/${name}/manifest.json`]: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          sigil: { version: 1, name, network: 'testnet', handle: account },
          identity: { attestation },
        }),
      },
    });
    const outbound = createOutboundClient({ allowLoopback: true, ca: chain.agentHost!.caPem, timeoutMs: 3_000 });
    const agents = createAgentService({ chain: reader(), outbound, network: 'testnet' });
    const caller = { keyId: app.key.key.id, account: app.key.key.account };
    const input = { subject: { handle: name }, policy: { 'agent.level': { min: 'L1' } } };
    try {
      const before = await gateWith(agents, (expiresAt - 10) * 1000).check(caller, input);
      expect([before.decision, before.evaluatedAt, before.validUntil]).toEqual(['allow', expiresAt - 10, expiresAt]);
      const at = await gateWith(agents, expiresAt * 1000).check(caller, input);
      expect(at.decision).toBe('deny');
      expect(at.reasons[0]!.evidence).toMatchObject({
        level: 'L0',
        next: { level: 'L1', reason: 'attestation-expired' },
      });
    } finally {
      chain.agentHost!.serve(chain.scenario!.agentHost.routes);
      await outbound.close();
    }
  });

  it('L0 only: no level check; L1 only: up to L1 (no probe); L1 and L2 leaves: one check up to L2', async () => {
    const outbound = createOutboundClient({ allowLoopback: true, ca: chain.agentHost!.caPem, timeoutMs: 3_000 });
    const agents = createAgentService({ chain: reader(), outbound, network: 'testnet' });
    const calls: unknown[][] = [];
    const spy: Pick<AgentService, 'level'> = {
      level: (...args) => {
        calls.push(args);
        return agents.level(...args);
      },
    };
    const gate = gateWith(spy, 1_900_000_000_000);
    const caller = { keyId: app.key.key.id, account: app.key.key.account };
    const decide = async (policy: PolicyNode) => {
      calls.length = 0;
      const { decision } = await gate.check(caller, { subject: { handle: 'scout' }, policy });
      return { decision, calls: [...calls] };
    };
    try {
      expect(await decide({ 'agent.level': { min: 'L0' } })).toEqual({ decision: 'allow', calls: [] });
      expect(await decide({ 'agent.level': { min: 'L1' } })).toEqual({
        decision: 'allow',
        calls: [['scout', { upTo: 'L1', nowSec: 1_900_000_000 }]],
      });
      expect(
        await decide({
          any: [
            { 'agent.level': { min: 'L1' } },
            { not: { 'agent.level': { min: 'L2' } } },
            { 'agent.level': { min: 'L1' } },
          ],
        }),
      ).toEqual({ decision: 'allow', calls: [['scout', { upTo: 'L2', nowSec: 1_900_000_000 }]] });
    } finally {
      await outbound.close();
    }
  });
});
