// Agents over real HTTP: GET /v1/agents/{handle} against the local chain (scout = Agent handle) and manifest servers
// on loopback HTTPS (allowed only by SIGIL_OUTBOUND_ALLOW_LOOPBACK) that answer, time out, refuse, redirect, send
// 10 MB, send HTML, or lie about the handle, network or payment address; every agents row of the spec's error
// table; POST /v1/agents/validate; the JSON Schema route; the shared auth suite; documented statuses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSigner } from '@solana/kit';
import { agentManifestJsonSchema, VALIDATE_NOTE } from '@sigil/contract/agents';
import {
  closedLoopbackPort,
  registerHandle,
  respondJson,
  respondTenMegabytes,
  scoutManifest,
  seedScoutAgent,
  type ManifestOverrides,
  type ScoutAgent,
} from '../support/agent-registry';
import { fundedWallet } from '../support/localchain-wallets';
import { findHandlePda } from '../../server/src/platform/chain/registry';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver';
import type { Scenario } from '../../server/src/localchain';
import { apiKeyAuthSuite } from '../support/auth-suite';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';

let app: KeyedApp;
let strict: KeyedApp; // same chain, loopback NOT allowed (the production default)
let scenario: Scenario;
let receiver: HttpsReceiver;
let scout: ScoutAgent;
let respond: (req: IncomingMessage, res: ServerResponse) => void;

const manifest = (overrides: ManifestOverrides = {}) =>
  scoutManifest(scenario.handles.scout!.account, scout.payTo.address, overrides);

const manifestUrl = () => `https://127.0.0.1:${receiver.port}/scout/manifest.json`;
const getAgent = (handle: string, on = app) => on.call('GET', `/v1/agents/${handle}`, { key: on.key.secret });

beforeAll(async () => {
  receiver = await startHttpsReceiver((req, res) => respond(req, res));
  app = await startKeyedApp({
    dialect: 'sqlite',
    env: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true', SIGIL_IPFS_GATEWAY: `https://127.0.0.1:${receiver.port}` },
    outboundOptions: { ca: selfSignedCert().cert },
  });
  strict = await startKeyedApp({ dialect: 'sqlite', chain: app.chain, outboundOptions: { ca: selfSignedCert().cert } });
  scenario = app.chain.scenario!;
  scout = await seedScoutAgent(app.chain, manifestUrl);
}, 60_000);

afterAll(async () => {
  await strict?.close();
  await app?.close();
  await receiver?.close();
});

beforeEach(() => {
  receiver.requests.length = 0;
  respond = respondJson(manifest());
});

describe('GET /v1/agents/{handle}', () => {
  it('resolves an Agent handle: live endpoint records, the manifest URL and the validated manifest', async () => {
    const res = await getAgent('@Scout');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      name: 'scout',
      handle: scenario.handles.scout!.account,
      handleType: 3,
      agent: true,
      manifestUrl: manifestUrl(),
      endpoints: { mcp: 'https://agents.example/scout/mcp' },
      manifest: manifest(),
    });
    expect(receiver.requests.map((r) => r.url)).toEqual(['/scout/manifest.json']);
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
    expect((await app.call('GET', '/v1/agents/scout', { key: app.key.secret })).status).toBe(200); // `@` optional
  });

  it('ipfs:// manifests go through the configured gateway', async () => {
    const ipfs = 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/scout.json';
    const res = await scout.withManifestUrl(ipfs, () => getAgent('scout'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.manifestUrl).toBe(ipfs);
    expect(receiver.requests.map((r) => r.url)).toEqual([
      '/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/scout.json',
    ]);
  });

  it('retries a transient failure once (503, then 200)', async () => {
    let calls = 0;
    respond = (req, res) => (calls++ === 0 ? res.writeHead(503).end() : respondJson(manifest())(req, res));
    expect((await getAgent('scout')).status).toBe(200);
    expect(receiver.requests).toHaveLength(2);
  });

  it('404 NOT_AN_AGENT, 404 NO_MANIFEST, 404 HANDLE_NOT_REGISTERED, 400 INVALID_HANDLE', async () => {
    const plain = await getAgent('alice');
    expect(plain.status).toBe(404);
    expect(plain.body).toStrictEqual({
      code: 'NOT_AN_AGENT',
      message: '@alice is not an agent (handle type 0, no agent.manifest record)',
    });
    await registerHandle(app.chain, await fundedWallet(app.chain), 'bareagent', 3);
    const bare = await getAgent('bareagent');
    expect(bare.status).toBe(404);
    expect(bare.body).toStrictEqual({
      code: 'NO_MANIFEST',
      message: '@bareagent is an agent without an agent.manifest record',
    });
    const nobody = await getAgent('nobody');
    expect(nobody.status).toBe(404);
    expect(nobody.body.code).toBe('HANDLE_NOT_REGISTERED');
    const invalid = await getAgent('forge.xnt');
    expect(invalid.status).toBe(400);
    expect(invalid.body).toStrictEqual({ code: 'INVALID_HANDLE', message: '"forge.xnt" is not a valid handle' });
  });

  it('424 MANIFEST_UNREACHABLE: timed out (after one retry)', async () => {
    respond = () => {}; // never answers
    const res = await getAgent('scout');
    expect(res.status).toBe(424);
    expect(res.body).toStrictEqual({
      code: 'MANIFEST_UNREACHABLE',
      message: `manifest ${manifestUrl()} is unreachable: timed out`,
    });
    expect(receiver.requests).toHaveLength(2);
  }, 20_000);

  it('424 MANIFEST_UNREACHABLE: connection refused', async () => {
    const closedPort = await closedLoopbackPort();
    const url = `https://127.0.0.1:${closedPort}/m.json`;
    const res = await scout.withManifestUrl(url, () => getAgent('scout'));
    expect(res.status).toBe(424);
    expect(res.body).toStrictEqual({
      code: 'MANIFEST_UNREACHABLE',
      message: `manifest ${url} is unreachable: connection refused`,
    });
  });

  it('424 MANIFEST_UNREACHABLE: a redirect is not followed', async () => {
    respond = (_req, res) =>
      res.writeHead(302, { location: `https://127.0.0.1:${receiver.port}/elsewhere.json` }).end();
    const res = await getAgent('scout');
    expect(res.status).toBe(424);
    expect(res.body).toStrictEqual({
      code: 'MANIFEST_UNREACHABLE',
      message: `manifest ${manifestUrl()} is unreachable: answered HTTP 302 (redirects are not followed)`,
    });
    expect(receiver.requests.map((r) => r.url)).toEqual(['/scout/manifest.json']);
  });

  it('424 MANIFEST_UNREACHABLE: loopback is refused unless SIGIL_OUTBOUND_ALLOW_LOOPBACK is set', async () => {
    const res = await getAgent('scout', strict);
    expect(res.status).toBe(424);
    expect(res.body.code).toBe('MANIFEST_UNREACHABLE');
    expect(res.body.message).toMatch(
      new RegExp(`^manifest ${manifestUrl().replace(/[.?]/g, '\\$&')} is unreachable: destination not allowed \\(`),
    );
    expect(receiver.requests).toHaveLength(0);
  });

  it('422 INVALID_MANIFEST: 10 MB, HTML', async () => {
    respond = respondTenMegabytes;
    const big = await getAgent('scout');
    expect(big.status).toBe(422);
    expect(big.body).toStrictEqual({
      code: 'INVALID_MANIFEST',
      message: `manifest ${manifestUrl()} is larger than 65536 bytes`,
    });
    respond = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>');
    const html = await getAgent('scout');
    expect(html.status).toBe(422);
    expect(html.body).toStrictEqual({
      code: 'INVALID_MANIFEST',
      message: `manifest ${manifestUrl()} is not JSON: content type "text/html" is not JSON`,
    });
  });

  it('422 INVALID_MANIFEST: lies about the name, the handle account, the network, the payment address', async () => {
    const cases: [ReturnType<typeof manifest>, string][] = [
      [manifest({ name: 'alice' }), 'sigil.name: names "alice", not "scout"'],
      [
        manifest({ handle: scenario.handles.alice!.account }),
        `sigil.handle: is ${scenario.handles.alice!.account}; the handle account of "scout" is ${scenario.handles.scout!.account}`,
      ],
      [manifest({ network: 'mainnet' }), 'sigil.network: is mainnet; this deployment is testnet'],
    ];
    const impostor = (await generateKeyPairSigner()).address;
    cases.push([
      manifest({ addresses: [{ coinType: 501, address: impostor, verified: true }] }),
      `payment.addresses[0].verified: claims ${impostor} is verified, but @scout has no signature-verified SOL record for it`,
    ]);
    for (const [lie, problem] of cases) {
      respond = respondJson(lie);
      const res = await getAgent('scout');
      expect(res.status, problem).toBe(422);
      expect(res.body).toStrictEqual({
        code: 'INVALID_MANIFEST',
        message: `manifest does not match the handle: ${problem}`,
      });
    }
  });
});

describe('POST /v1/agents/validate (pure)', () => {
  const validate = (body: unknown) => app.call('POST', '/v1/agents/validate', { key: app.key.secret, body });

  it('a valid manifest for a registered handle', async () => {
    const res = await validate({ handle: '@scout', manifest: manifest() });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      name: 'scout',
      handle: scenario.handles.scout!.account,
      network: 'testnet',
      valid: true,
      errors: [],
      note: VALIDATE_NOTE,
    });
  });

  it('works before registration (the handle account is derived), one path-addressed error per problem', async () => {
    const [account] = await findHandlePda(app.chain.programId, 'futurebot');
    const ok = await validate({
      handle: 'futurebot',
      manifest: { sigil: { version: 1, name: 'futurebot', network: 'testnet', handle: account } },
    });
    expect(ok.body).toMatchObject({ name: 'futurebot', valid: true, errors: [] });

    const res = await validate({
      handle: 'futurebot',
      manifest: {
        sigil: { version: 2, name: 'futurebot', network: 'mainnet', handle: account },
        endpoints: [{ type: 'mcp', url: 'http://x.example' }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.errors).toStrictEqual([
      { path: 'sigil.version', message: 'must be 1' },
      { path: 'endpoints[0].url', message: 'must be an https:// URL' },
    ]);
    const identity = await validate({ handle: 'futurebot', manifest: manifest() });
    expect(identity.body.errors.map((e: { path: string }) => e.path)).toEqual(['sigil.name', 'sigil.handle']);
  });

  it('400 INVALID_HANDLE for a bad handle; 400 for a body that is not {handle, manifest}', async () => {
    const bad = await validate({ handle: 'not a handle', manifest: {} });
    expect(bad.status).toBe(400);
    expect(bad.body).toStrictEqual({ code: 'INVALID_HANDLE', message: '"not a handle" is not a valid handle' });
    const noHandle = await validate({ manifest: {} });
    expect(noHandle.status).toBe(400);
    expect(noHandle.body.code).toBe('BAD_REQUEST');
    const notJsonObject = await validate('[1,2]');
    expect(notJsonObject.status).toBe(400);
  });
});

describe('GET /schemas/agent-manifest.v1.json', () => {
  it('is public and serves the contract JSON Schema (draft 2020-12)', async () => {
    const res = await app.call('GET', '/schemas/agent-manifest.v1.json');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toStrictEqual(agentManifestJsonSchema());
    expect(res.body.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(res.body.required).toEqual(['sigil']);
  });
});

describe('credentials (the shared auth suite on every keyed route)', () => {
  // alice is not an agent: the keyed 404 needs no manifest server.
  apiKeyAuthSuite(
    'GET /v1/agents/{handle}',
    () => app,
    (a, auth) => a.call('GET', '/v1/agents/alice', auth),
  );
  apiKeyAuthSuite(
    'POST /v1/agents/validate',
    () => app,
    (a, auth) => a.call('POST', '/v1/agents/validate', { ...auth, body: { handle: 'scout', manifest: {} } }),
  );

  it('a refused request fetches no manifest', async () => {
    expect((await app.call('GET', '/v1/agents/scout')).status).toBe(401);
    expect((await app.call('GET', '/v1/agents/scout', { key: 'sk_live_notakey' })).status).toBe(401);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('documentation', () => {
  it('/openapi.json lists the agents rows of the spec table on GET /v1/agents/{handle}', async () => {
    const doc = (await app.call('GET', '/openapi.json')).body;
    // Beyond the HTTP layer's rows, which every operation declares (docs/http.md; its 404 is the unknown path's).
    const layer = new Set(['404', '405', '408', '413', '415', '417', '431', '500']);
    const statuses = (path: string, method: string) =>
      Object.keys(doc.paths[path][method].responses)
        .filter((status) => !layer.has(status))
        .sort();
    expect(statuses('/v1/agents/{handle}', 'get')).toEqual([
      '200',
      '400',
      '401',
      '402',
      '409',
      '422',
      '424',
      '429',
      '502',
      '503',
    ]);
    expect(doc.paths['/v1/agents/{handle}'].get.responses['404'].description).toMatch(/NOT_AN_AGENT.*NO_MANIFEST/s);
    expect(statuses('/v1/agents/validate', 'post')).toEqual(['200', '400', '401', '429']);
    expect(statuses('/schemas/agent-manifest.v1.json', 'get')).toEqual(['200']);
  });
});
