// The agent service against the real local chain (scout = Agent handle) and real loopback HTTPS manifest servers:
// happy paths, every error row (NOT_AN_AGENT, NO_MANIFEST, 424 causes, 422 lies), retry and the pay-to rule.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSigner } from '@solana/kit';
import { startLocalChain, type LocalChain, type Scenario } from '../../localchain';
import { fundedWallet } from '@sigil/test/support/localchain-wallets';
import { createChainReader } from '../../platform/chain/reader';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/client';
import { loopbackTestClient, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { createAgentService, type AgentService } from './service';
import { apiFailure as failure } from '@sigil/test/support/failures';
import {
  closedLoopbackPort,
  registerHandle,
  respondJson,
  respondTenMegabytes,
  scoutManifest,
  seedScoutAgent,
  setRecord,
  type ManifestOverrides,
  type ScoutAgent,
} from '@sigil/test/support/agent-registry';

let chain: LocalChain;
let scenario: Scenario;
let receiver: HttpsReceiver;
let outbound: OutboundClient;
let agents: AgentService;
let scout: ScoutAgent;
let respond: (req: IncomingMessage, res: ServerResponse) => void;

const manifest = (overrides: ManifestOverrides = {}) =>
  scoutManifest(scenario.handles.scout!.account, scout.payTo.address, overrides);

const manifestUrl = () => `https://127.0.0.1:${receiver.port}/scout/manifest.json`;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: true });
  scenario = chain.scenario!;
  receiver = await startHttpsReceiver((req, res) => respond(req, res));
  outbound = loopbackTestClient();
  const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 2000 });
  agents = createAgentService({
    chain: reader,
    outbound,
    network: 'testnet',
    timeoutMs: 1_500,
    ipfsGateway: `https://127.0.0.1:${receiver.port}`,
  });
  scout = await seedScoutAgent(chain, manifestUrl);
}, 60_000);
afterAll(async () => {
  await outbound?.close();
  await receiver?.close();
  await chain?.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  respond = respondJson(manifest());
});

describe('agent resolution (happy)', () => {
  it('resolves an Agent handle: live endpoint records, manifest URL and the validated manifest', async () => {
    const result = await agents.resolve('@Scout');
    expect(result).toEqual({
      name: 'scout',
      handle: scenario.handles.scout!.account,
      handleType: 3,
      agent: true,
      manifestUrl: manifestUrl(),
      endpoints: { mcp: 'https://agents.example/scout/mcp' },
      manifest: manifest(),
    });
    expect(receiver.requests.map((r) => r.url)).toEqual(['/scout/manifest.json']);
    expect(receiver.requests[0]!.headers.accept).toBe('application/json');
  });

  it('a handle of another type is an agent when it has an agent.manifest record', async () => {
    const owner = await fundedWallet(chain);
    await registerHandle(chain, owner, 'helper', 0);
    await setRecord(chain, owner, 'helper', 'text', 'agent.manifest', `https://127.0.0.1:${receiver.port}/helper.json`);
    await setRecord(chain, owner, 'helper', 'text', 'agent.a2a', 'https://helper.example/a2a');
    const { [0]: helperAccount } = await import('../../platform/chain/registry').then((m) =>
      m.findHandlePda(chain.programId, 'helper'),
    );
    respond = respondJson({ sigil: { version: 1, name: 'helper', network: 'testnet', handle: helperAccount } });
    const result = await agents.resolve('helper');
    expect(result.handleType).toBe(0);
    expect(result.endpoints).toEqual({ a2a: 'https://helper.example/a2a' });
    expect(result.manifest.sigil.name).toBe('helper');
  });

  it('retries once on a transient failure (503, then 200)', async () => {
    let calls = 0;
    respond = (req, res) => {
      if (calls++ === 0) {
        res.writeHead(503).end();
      } else respondJson(manifest())(req, res);
    };
    expect((await agents.resolve('scout')).name).toBe('scout');
    expect(receiver.requests).toHaveLength(2);
  });

  it('fetches ipfs:// manifests through the configured gateway', async () => {
    await scout.withManifestUrl(
      'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/scout.json',
      async () => {
        const result = await agents.resolve('scout');
        expect(result.manifestUrl).toBe(
          'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/scout.json',
        );
        expect(receiver.requests.map((r) => r.url)).toEqual([
          '/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/scout.json',
        ]);
      },
    );
  });

  it('validate is pure: derives the handle account, reads nothing', async () => {
    const result = await agents.validate('@newagent', {
      sigil: { version: 1, name: 'newagent', network: 'mainnet', handle: scenario.handles.scout!.account },
    });
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.path)).toEqual(['sigil.network', 'sigil.handle']);
  });
});

describe('agent resolution (errors)', () => {
  it('NOT_AN_AGENT for a plain handle, NO_MANIFEST for an Agent handle without the record', async () => {
    expect(await failure(agents.resolve('alice'))).toEqual({
      code: 'NOT_AN_AGENT',
      status: 404,
      message: '@alice is not an agent (handle type 0, no agent.manifest record)',
    });
    const owner = await fundedWallet(chain);
    await registerHandle(chain, owner, 'bareagent', 3);
    expect(await failure(agents.resolve('bareagent'))).toEqual({
      code: 'NO_MANIFEST',
      status: 404,
      message: '@bareagent is an agent without an agent.manifest record',
    });
  });

  it('unregistered and malformed handles', async () => {
    expect((await failure(agents.resolve('nobody'))).code).toBe('HANDLE_NOT_REGISTERED');
    expect((await failure(agents.resolve('not a handle'))).code).toBe('INVALID_HANDLE');
    expect((await failure(agents.resolve('forge.xnt'))).code).toBe('INVALID_HANDLE');
  });

  it('424 timed out (after one retry)', async () => {
    respond = () => {}; // never answers
    expect(await failure(agents.resolve('scout'))).toEqual({
      code: 'MANIFEST_UNREACHABLE',
      status: 424,
      message: `manifest ${manifestUrl()} is unreachable: timed out`,
    });
    expect(receiver.requests).toHaveLength(2);
  });

  it('424 connection refused', async () => {
    const closedPort = await closedLoopbackPort();
    const url = `https://127.0.0.1:${closedPort}/m.json`;
    await scout.withManifestUrl(url, async () => {
      expect(await failure(agents.resolve('scout'))).toMatchObject({
        status: 424,
        message: `manifest ${url} is unreachable: connection refused`,
      });
    });
  });

  it('424 host did not resolve, and TLS certificate unverifiable', async () => {
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 2000 });
    const noDns = loopbackTestClient({ resolver: async () => [] });
    const noCa = createOutboundClient({ allowLoopback: true });
    try {
      await scout.withManifestUrl('https://manifests.sigil-nowhere.net/scout.json', async () => {
        const dnsAgents = createAgentService({ chain: reader, outbound: noDns, network: 'testnet', timeoutMs: 1_500 });
        expect((await failure(dnsAgents.resolve('scout'))).message).toBe(
          'manifest https://manifests.sigil-nowhere.net/scout.json is unreachable: host did not resolve',
        );
      });
      const tlsAgents = createAgentService({ chain: reader, outbound: noCa, network: 'testnet', timeoutMs: 1_500 });
      const tls = await failure(tlsAgents.resolve('scout'));
      expect(tls.status).toBe(424);
      expect(tls.message).toMatch(
        new RegExp(
          `^manifest ${manifestUrl().replace(/[.?]/g, '\\$&')} is unreachable: TLS certificate unverifiable \\(`,
        ),
      );
    } finally {
      await noDns.close();
      await noCa.close();
    }
  });

  it('424 on a redirect, which is not followed', async () => {
    respond = (_req, res) =>
      res.writeHead(302, { location: `https://127.0.0.1:${receiver.port}/elsewhere.json` }).end();
    expect(await failure(agents.resolve('scout'))).toEqual({
      code: 'MANIFEST_UNREACHABLE',
      status: 424,
      message: `manifest ${manifestUrl()} is unreachable: answered HTTP 302 (redirects are not followed)`,
    });
    expect(receiver.requests.map((r) => r.url)).toEqual(['/scout/manifest.json']);
  });

  it('422 for 10 MB, for HTML, for invalid JSON', async () => {
    respond = respondTenMegabytes;
    expect(await failure(agents.resolve('scout'))).toEqual({
      code: 'INVALID_MANIFEST',
      status: 422,
      message: `manifest ${manifestUrl()} is larger than 65536 bytes`,
    });
    respond = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>');
    expect(await failure(agents.resolve('scout'))).toEqual({
      code: 'INVALID_MANIFEST',
      status: 422,
      message: `manifest ${manifestUrl()} is not JSON: content type "text/html" is not JSON`,
    });
    respond = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"sigil":');
    expect((await failure(agents.resolve('scout'))).message).toBe(`manifest ${manifestUrl()} is not valid JSON`);
  });

  it('422 when the manifest lies about the name, handle account or network', async () => {
    respond = respondJson(manifest({ name: 'alice' }));
    expect((await failure(agents.resolve('scout'))).message).toBe(
      'manifest does not match the handle: sigil.name: names "alice", not "scout"',
    );
    respond = respondJson(manifest({ handle: scenario.handles.alice!.account }));
    expect((await failure(agents.resolve('scout'))).message).toBe(
      `manifest does not match the handle: sigil.handle: is ${scenario.handles.alice!.account}; the handle account of "scout" is ${scenario.handles.scout!.account}`,
    );
    respond = respondJson(manifest({ network: 'mainnet' }));
    expect(await failure(agents.resolve('scout'))).toEqual({
      code: 'INVALID_MANIFEST',
      status: 422,
      message: 'manifest does not match the handle: sigil.network: is mainnet; this deployment is testnet',
    });
  });

  it('422 when a verified payment address is not the signature-verified record (the pay-to authority)', async () => {
    const impostor = (await generateKeyPairSigner()).address;
    respond = respondJson(manifest({ addresses: [{ coinType: 501, address: impostor, verified: true }] }));
    expect(await failure(agents.resolve('scout'))).toEqual({
      code: 'INVALID_MANIFEST',
      status: 422,
      message: `manifest does not match the handle: payment.addresses[0].verified: claims ${impostor} is verified, but @scout has no signature-verified SOL record for it`,
    });
    // scout's X1 record exists but is unverified: claiming it verified is refused; declaring it unverified is fine.
    const x1 = scenario.wallets.ivan!.address;
    respond = respondJson(
      manifest({
        addresses: [{ coinType: 60, address: '0x0000000000000000000000000000000000000001', verified: true }],
      }),
    );
    expect((await failure(agents.resolve('scout'))).message).toContain('has no signature-verified ETH record');
    respond = respondJson(manifest({ addresses: [{ coinType: 501, address: x1, verified: false }] }));
    expect((await agents.resolve('scout')).manifest.payment?.addresses).toEqual([
      { coinType: 501, address: x1, verified: false },
    ]);
  });

  it('422 on shape problems, path-addressed', async () => {
    respond = respondJson({
      sigil: { version: 1, name: 'scout', network: 'testnet' },
      endpoints: [{ type: 'mcp', url: 'http://plain/mcp' }],
    });
    expect((await failure(agents.resolve('scout'))).message).toBe(
      'manifest does not match the handle: sigil.handle: is required; endpoints[0].url: must be an https:// URL',
    );
  });
});
