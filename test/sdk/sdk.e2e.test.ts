// Every operation of the OpenAPI document, called through the SDK (createSigilClient and its helpers) against the
// real service on the local chain with the demo scenario: one success and at least one documented error each. The
// operations whose document lists no error (liveness, deployment facts, the manifest and policy schemas) have only a
// success, and so does the JWKS, whose one documented error (500: the signing key could not be loaded) only a
// database failure before the first load causes, not a request.
// A last test checks that every operation of the document was called here, so a new route fails this suite until
// it is covered. The x402 payer is exercised through the client as its `fetch` (createX402Fetch).
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildSignInMessage,
  createSigilClient,
  privyWallet,
  notifyGift,
  giftState,
  resolveAddress,
  resolveName,
  reverseLookup,
  signChallenge,
  signSignIn,
  type SigilClient,
  type SigilResult,
} from '@sigil/client-sdk';
import { signMemoTransaction } from '@sigil/client-sdk/connect-tx';
import { createX402Fetch } from '@sigil/client-sdk/x402';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { appRouter } from '../../server/src/router';
import { runIdentityPass } from '../../server/src/features/identity-events/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { sdkOpenApiDocument } from '../../scripts/sdk-generate';
import { startKeyedApp, TEST_PORTAL_DOMAIN, type KeyedApp } from '../support/keyed-app';
import { privyIssuer, solanaWallet, type PrivyIssuer } from '../support/privy-tokens';
import { scenarioSigner, startWebhookApp, waitFor, type WebhookApp } from '../support/pay-webhooks';
import { signRaw } from '../support/webhooks-world';
import { startX402App, startX402Chain, type X402App, type X402Chain } from '../support/x402-app';

let chain: LocalChain;
let app: KeyedApp; // agents reachable: the demo agent host's CA trusted, loopback allowed
let hooks: WebhookApp; // webhook URLs resolve through the test resolver
let sigil: SigilClient; // the app's integrator key
let anonymous: SigilClient; // no credentials
let portal: SigilClient; // a portal session (key management)
let scenario: NonNullable<LocalChain['scenario']>;
let privy: PrivyIssuer; // stands in for Privy's signing key (POST /privy/wallet)
const called = new Set<string>();

/** Records which operation a result came from, and shows the failure when an expectation breaks. */
function op<T extends SigilResult<unknown>>(key: string, result: T): T {
  called.add(key);
  return result;
}
const show = (r: SigilResult<unknown>) => JSON.stringify(r.ok ? { status: r.status, data: r.data } : r);

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true });
  scenario = chain.scenario!;
  privy = await privyIssuer();
  [app, hooks] = await Promise.all([
    startKeyedApp({
      dialect: 'sqlite',
      chain,
      env: {
        SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true',
        SIGIL_OUTBOUND_CA_FILE: chain.agentHost!.caFile,
        ...privy.env,
      },
    }),
    startWebhookApp({ chain }),
  ]);
  sigil = createSigilClient({ baseUrl: app.base, apiKey: app.key.secret });
  anonymous = createSigilClient({ baseUrl: app.base, retry: false });
  const alice = await scenarioSigner(chain, 'alice');
  const portalClient = createSigilClient({ baseUrl: app.base, apiKey: app.portal.secret });
  const c = await portalClient.POST('/v1/auth/challenge', { body: { wallet: alice.address } });
  if (!c.ok) throw new Error(show(c));
  const v = await portalClient.POST('/v1/auth/verify', { body: await signChallenge(c.data, alice, app.portal.key.id) });
  if (!v.ok) throw new Error(show(v));
  portal = createSigilClient({ baseUrl: app.base, session: v.data.token });
}, 120_000);

afterAll(async () => {
  await hooks?.close();
  await app?.close();
  await chain?.close();
});

describe('public and platform operations', () => {
  it('GET /health, /v1/health, /v1/namespaces, /schemas/agent-manifest.v1.json (no documented errors)', async () => {
    expect(op('GET /health', await anonymous.GET('/health'))).toMatchObject({ ok: true, data: { ok: true } });
    const health = op('GET /v1/health', await anonymous.GET('/v1/health'));
    expect(health.ok && health.data).toMatchObject({ status: 'ok', service: 'sigil', x402: false });
    const namespaces = op('GET /v1/namespaces', await anonymous.GET('/v1/namespaces'));
    expect(namespaces.ok && namespaces.data.namespaces.map((n) => n.namespace)).toContain('handle');
    const schema = op('GET /schemas/agent-manifest.v1.json', await anonymous.GET('/schemas/agent-manifest.v1.json'));
    expect(schema.ok && schema.data.title).toBe('Sigil agent manifest, version 1');
  });

  it('GET /version: the chain facts; 502 rpc unreachable when the RPC is down', async () => {
    const ok = op('GET /version', await anonymous.GET('/version'));
    expect(ok.ok && ok.data).toMatchObject({ service: 'sigil', program: scenario.programId });
    chain.faults.set({ unreachable: true });
    try {
      expect(await anonymous.GET('/version')).toMatchObject({ ok: false, status: 502, code: 'rpc unreachable' });
    } finally {
      chain.faults.clear();
    }
  });

  it('GET /resolve/{name} and GET /reverse/{address}, with the client-library classifications', async () => {
    const alice = scenario.wallets.alice!.address;
    const resolved = await resolveName(anonymous, '@alice');
    called.add('GET /resolve/{name}');
    expect(resolved).toStrictEqual({
      ok: true,
      data: {
        input: '@alice',
        name: 'alice',
        namespace: 'handle',
        owner: alice,
        tokenized: false,
        verification: 'owner',
      },
    });
    expect(await resolveName(anonymous, '@satoshi.x1')).toMatchObject({ ok: false, status: 409, kind: 'ambiguous' });
    expect(await resolveName(anonymous, 'nobody')).toMatchObject({ ok: false, status: 404, kind: 'not-found' });
    expect(await resolveName(anonymous, 'bad name')).toMatchObject({ ok: false, status: 400, kind: 'invalid-handle' });

    expect(
      op('GET /reverse/{address}', await anonymous.GET('/reverse/{address}', { params: { path: { address: alice } } })),
    ).toMatchObject({ ok: true, data: { handle: 'alice', address: alice } });
    expect(await reverseLookup(anonymous, scenario.reverse.noPrimary!)).toStrictEqual({ ok: true, data: null });
    expect(await reverseLookup(anonymous, 'not-base58!')).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid address',
      kind: 'unrecognized',
    });
  });
});

describe('Privy wallets', () => {
  it("POST /privy/wallet: the embedded wallet's handle and attestations; 401 for another app's token", async () => {
    const alice = scenario.wallets.alice!.address;
    const ok = op(
      'POST /privy/wallet',
      await privyWallet(anonymous, await privy.token({ linked_accounts: [solanaWallet(alice)] })),
    );
    expect(ok.ok && ok.data.wallets).toEqual([
      { address: alice, embedded: true, handle: 'alice', attestations: ['github', 'x'] },
    ]);
    const other = await privyWallet(
      anonymous,
      await privy.token({ aud: 'another-app', linked_accounts: [solanaWallet(alice)] }),
    );
    expect(other).toMatchObject({ ok: false, status: 401, code: 'privy token for another app' });
  });
});

describe('gifts', () => {
  it("POST /gift/notify and GET /gift/{voucher}: the scenario's pending gift; each route's refusal", async () => {
    const gift = scenario.market.gift!;
    const [created] = await chain.rpc.getSignaturesForAddress(gift.account as never).send();
    const notified = op('POST /gift/notify', await notifyGift(anonymous, created!.signature));
    expect(notified.ok && notified.data.gifts, show(notified)).toMatchObject([
      { voucher: gift.account, handle: { name: 'ribbon' }, recipient: scenario.wallets.erin!.address },
    ]);
    expect(await notifyGift(anonymous, 'not-a-signature')).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid transaction signature',
    });
    const state = op('GET /gift/{voucher}', await giftState(anonymous, gift.account));
    expect(state.ok && state.data, show(state)).toMatchObject({
      state: 'claimable',
      recipient: scenario.wallets.erin!.address,
    });
    expect(await giftState(anonymous, base58.encode(randomBytes(32)))).toMatchObject({
      ok: false,
      status: 404,
      code: 'gift not found',
    });
  });
});

describe('resolution (keyed)', () => {
  it('GET /v1/resolve/{name}: records and slot; 409 AMBIGUOUS; 401 API_KEY_REQUIRED without a key', async () => {
    const path = '/v1/resolve/{name}';
    const ok = op(`GET ${path}`, await sigil.GET(path, { params: { path: { name: 'alice' } } }));
    expect(ok.ok && ok.data).toMatchObject({ name: 'alice', authority: scenario.wallets.alice!.address });
    expect(await sigil.GET(path, { params: { path: { name: '@satoshi.x1' } } })).toMatchObject({
      ok: false,
      status: 409,
      code: 'AMBIGUOUS',
    });
    expect(await anonymous.GET(path, { params: { path: { name: 'alice' } } })).toMatchObject({
      ok: false,
      status: 401,
      code: 'API_KEY_REQUIRED',
    });
  });

  it('GET /v1/resolve-universal/{name}: the SOL record; no-record-for-chain; not-found', async () => {
    const sol = await resolveAddress(sigil, 'alice', 'SOL');
    called.add('GET /v1/resolve-universal/{name}');
    expect(sol).toStrictEqual({
      ok: true,
      data: {
        input: 'alice',
        name: 'alice',
        namespace: 'handle',
        address: scenario.wallets.aliceSol!.address,
        chain: 'SOL',
        source: 'sigil',
        verified: true,
      },
    });
    expect(await resolveAddress(sigil, 'satoshi', 'ETH')).toMatchObject({
      ok: false,
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      kind: 'no-record-for-chain',
    });
    expect(await resolveAddress(sigil, 'nobody')).toMatchObject({ code: 'HANDLE_NOT_REGISTERED', kind: 'not-found' });
  });

  it('POST /v1/resolve/batch: items in order; 400 BAD_REQUEST over 100 names', async () => {
    const ok = op(
      'POST /v1/resolve/batch',
      await sigil.POST('/v1/resolve/batch', { body: { names: ['alice', 'nobody'] } }),
    );
    expect(ok.ok && ok.data.results.map((r) => [r.input, r.ok, r.error?.code])).toEqual([
      ['alice', true, undefined],
      ['nobody', false, 'HANDLE_NOT_REGISTERED'],
    ]);
    const tooMany = await sigil.POST('/v1/resolve/batch', { body: { names: Array(101).fill('alice') } });
    expect(tooMany).toMatchObject({ ok: false, status: 400, code: 'BAD_REQUEST' });
  });

  it('GET /v1/search/handles: a page; 400 BAD_REQUEST without q', async () => {
    const page = op(
      'GET /v1/search/handles',
      await sigil.GET('/v1/search/handles', { params: { query: { q: 'al' } } }),
    );
    expect(page.ok && Array.isArray(page.data.items)).toBe(true);
    const bad = await sigil.GET('/v1/search/handles', { params: { query: {} as { q: string } } });
    expect(bad).toMatchObject({ ok: false, status: 400, code: 'BAD_REQUEST' });
  });
});

describe('agents', () => {
  it('GET /v1/agents/{handle}: the demo agent with its manifest; 404 NOT_AN_AGENT', async () => {
    const path = '/v1/agents/{handle}';
    const scout = op(`GET ${path}`, await sigil.GET(path, { params: { path: { handle: '@scout' } } }));
    expect(scout.ok && scout.data, show(scout)).toMatchObject({ name: 'scout', handleType: 3, agent: true });
    expect(await sigil.GET(path, { params: { path: { handle: 'alice' } } })).toMatchObject({
      ok: false,
      status: 404,
      code: 'NOT_AN_AGENT',
    });
  });

  it('GET /v1/agents/{handle}/level: the demo agent at L2; 404 NOT_AN_AGENT', async () => {
    const path = '/v1/agents/{handle}/level';
    const scout = op(`GET ${path}`, await sigil.GET(path, { params: { path: { handle: '@scout' } } }));
    expect(scout.ok && scout.data, show(scout)).toMatchObject({ handle: 'scout', level: 'L2', next: null });
    expect(await sigil.GET(path, { params: { path: { handle: 'alice' } } })).toMatchObject({
      ok: false,
      status: 404,
      code: 'NOT_AN_AGENT',
    });
  });

  it('POST /v1/agents/validate: valid; 400 INVALID_HANDLE', async () => {
    const manifest = (await sigil.GET('/v1/agents/{handle}', { params: { path: { handle: 'scout' } } })) as {
      data: { manifest: Record<string, unknown> };
    };
    const valid = op(
      'POST /v1/agents/validate',
      await sigil.POST('/v1/agents/validate', { body: { handle: '@scout', manifest: manifest.data.manifest } }),
    );
    expect(valid.ok && valid.data).toMatchObject({ name: 'scout', valid: true, errors: [] });
    const bad = await sigil.POST('/v1/agents/validate', { body: { handle: 'bad name', manifest: {} } });
    expect(bad).toMatchObject({ ok: false, status: 400, code: 'INVALID_HANDLE' });
  });
});

describe('connect', () => {
  it('challenge → verify → session; errors: both handle and wallet, a replayed nonce, a forged session', async () => {
    const heidi = await scenarioSigner(chain, 'heidi');
    const challenge = op(
      'POST /v1/auth/challenge',
      await sigil.POST('/v1/auth/challenge', { body: { wallet: heidi.address } }),
    );
    if (!challenge.ok) throw new Error(show(challenge));
    expect(challenge.data).toMatchObject({ handle: null, audience: app.key.key.id });
    const both = await sigil.POST('/v1/auth/challenge', { body: { wallet: heidi.address, handle: 'alice' } });
    expect(both).toMatchObject({ ok: false, status: 400 });

    const body = await signChallenge(challenge.data, heidi, app.key.key.id);
    const verified = op('POST /v1/auth/verify', await sigil.POST('/v1/auth/verify', { body }));
    if (!verified.ok) throw new Error(show(verified));
    expect(verified.data).toMatchObject({ token_type: 'Bearer', address: heidi.address, source: 'wallet' });
    expect(await sigil.POST('/v1/auth/verify', { body })).toMatchObject({
      ok: false,
      status: 401,
      code: 'CHALLENGE_NOT_FOUND',
    });

    const session = op('GET /v1/auth/session', await sigil.withSession(verified.data.token).GET('/v1/auth/session'));
    expect(session.ok && session.data).toMatchObject({ address: heidi.address, source: 'wallet' });
    expect(await sigil.withSession('forged.token.value').GET('/v1/auth/session')).toMatchObject({
      ok: false,
      status: 401,
      code: 'INVALID_SESSION',
    });

    // Sign out: the session is revoked at once; a second sign-in of the same wallet is revoked with all its others.
    const out = op('POST /v1/auth/logout', await sigil.withSession(verified.data.token).POST('/v1/auth/logout', {}));
    expect(out.ok && out.data, show(out)).toStrictEqual({ revoked: true });
    expect(await sigil.withSession(verified.data.token).GET('/v1/auth/session')).toMatchObject({
      ok: false,
      code: 'INVALID_SESSION',
    });
    const again = await sigil.POST('/v1/auth/challenge', { body: { wallet: heidi.address } });
    if (!again.ok) throw new Error(show(again));
    const second = await sigil.POST('/v1/auth/verify', {
      body: await signChallenge(again.data, heidi, app.key.key.id),
    });
    if (!second.ok) throw new Error(show(second));
    const all = op(
      'POST /v1/auth/sessions/revoke',
      await sigil.POST('/v1/auth/sessions/revoke', { body: { wallet: heidi.address } }),
    );
    expect(all.ok && all.data.revoked, show(all)).toBeGreaterThanOrEqual(1);
    expect(await sigil.withSession(second.data.token).GET('/v1/auth/session')).toMatchObject({
      ok: false,
      code: 'INVALID_SESSION',
    });
  });

  it('verify-tx (a signed memo transaction) and verify-signin (SIWS); each refuses a bad proof', async () => {
    const alice = await scenarioSigner(chain, 'alice');
    const tx = await sigil.POST('/v1/auth/challenge', { body: { wallet: alice.address, mode: 'tx' } });
    if (!tx.ok) throw new Error(show(tx));
    const signedTransaction = await signMemoTransaction(tx.data.memo!, alice, chain.latestBlockhash().blockhash);
    const viaTx = op(
      'POST /v1/auth/verify-tx',
      await sigil.POST('/v1/auth/verify-tx', { body: { nonce: tx.data.nonce, signedTransaction } }),
    );
    expect(viaTx.ok && viaTx.data, show(viaTx)).toMatchObject({ address: alice.address, handle: 'alice' });
    const wrongMemo = await sigil.POST('/v1/auth/challenge', { body: { wallet: alice.address, mode: 'tx' } });
    const forged = await signMemoTransaction('sigil-verify:someone-else:x', alice, chain.latestBlockhash().blockhash);
    expect(
      await sigil.POST('/v1/auth/verify-tx', {
        body: { nonce: wrongMemo.ok ? wrongMemo.data.nonce : '', signedTransaction: forged },
      }),
    ).toMatchObject({ ok: false, status: 401 });

    const heidi = await scenarioSigner(chain, 'heidi');
    const signin = await sigil.POST('/v1/auth/challenge', { body: { wallet: heidi.address, mode: 'signin' } });
    if (!signin.ok) throw new Error(show(signin));
    const message = buildSignInMessage({
      domain: TEST_PORTAL_DOMAIN,
      address: heidi.address,
      nonce: signin.data.nonce,
    });
    const viaSignin = op(
      'POST /v1/auth/verify-signin',
      await sigil.POST('/v1/auth/verify-signin', { body: await signSignIn(signin.data.nonce, message, heidi) }),
    );
    expect(viaSignin.ok && viaSignin.data, show(viaSignin)).toMatchObject({ address: heidi.address });
    const other = await sigil.POST('/v1/auth/challenge', { body: { wallet: heidi.address, mode: 'signin' } });
    const nonce = other.ok ? other.data.nonce : '';
    const evil = buildSignInMessage({ domain: 'evil.example', address: heidi.address, nonce });
    expect(await sigil.POST('/v1/auth/verify-signin', { body: await signSignIn(nonce, evil, heidi) })).toMatchObject({
      ok: false,
      status: 401,
      code: 'CONTROL_PROOF_INVALID',
    });
  });
});

describe('portal key management (Connect session)', () => {
  it('create (201) → list → usage → revoke; INVALID_SESSION without a session; KEY_NOT_FOUND', async () => {
    const created = op('POST /v1/keys', await portal.POST('/v1/keys', { body: { name: 'sdk e2e' } }));
    if (!created.ok) throw new Error(show(created));
    expect(created.status).toBe(201);
    expect(created.data.secret).toMatch(/^sigil_sk_/);
    expect(await anonymous.POST('/v1/keys', { body: {} })).toMatchObject({ ok: false, code: 'INVALID_SESSION' });

    const list = op('GET /v1/keys', await portal.GET('/v1/keys'));
    expect(list.ok && list.data.keys.map((k) => k.id)).toContain(created.data.key.id);
    expect(await anonymous.GET('/v1/keys')).toMatchObject({ ok: false, status: 401, code: 'INVALID_SESSION' });

    const usage = op('GET /v1/usage', await portal.GET('/v1/usage'));
    expect(usage.ok && usage.data.tier).toBe('free');
    expect(await anonymous.GET('/v1/usage')).toMatchObject({ ok: false, status: 401, code: 'INVALID_SESSION' });

    const id = created.data.key.id;
    const renamed = op(
      'PATCH /v1/keys/{id}',
      await portal.PATCH('/v1/keys/{id}', { params: { path: { id } }, body: { name: 'sdk e2e (renamed)' } }),
    );
    expect(renamed.ok && renamed.data.key, show(renamed)).toMatchObject({ id, name: 'sdk e2e (renamed)' });
    const stranger = `key_${base58.encode(randomBytes(16))}`;
    expect(
      await portal.PATCH('/v1/keys/{id}', { params: { path: { id: stranger } }, body: { name: 'x' } }),
    ).toMatchObject({ ok: false, status: 404, code: 'KEY_NOT_FOUND' });

    const history = op(
      'GET /v1/usage/history',
      await portal.GET('/v1/usage/history', { params: { query: { range: '24h', key_id: id } } }),
    );
    expect(history.ok && history.data.buckets.length, show(history)).toBe(24);
    expect(
      await portal.GET('/v1/usage/history', { params: { query: { range: '24h', key_id: stranger } } }),
    ).toMatchObject({ ok: false, status: 404, code: 'KEY_NOT_FOUND' });

    const requests = op(
      'GET /v1/usage/requests',
      await portal.GET('/v1/usage/requests', { params: { query: { key_id: id, status: '4xx' } } }),
    );
    expect(requests.ok && requests.data, show(requests)).toStrictEqual({ requests: [], next_before: null });

    // The key as an OpenID Connect client: register, read (alone and in the account's list), list and revoke its
    // sessions, remove.
    const client = op(
      'PUT /v1/keys/{id}/oidc',
      await portal.PUT('/v1/keys/{id}/oidc', {
        params: { path: { id } },
        body: { type: 'public', redirect_uris: ['https://app.example/callback'] },
      }),
    );
    expect(client.ok && client.data.client, show(client)).toMatchObject({ client_id: id, type: 'public' });
    const read = op('GET /v1/keys/{id}/oidc', await portal.GET('/v1/keys/{id}/oidc', { params: { path: { id } } }));
    const clients = op('GET /v1/oidc/clients', await portal.GET('/v1/oidc/clients'));
    expect(clients.ok && clients.data.clients.map((c) => c.client_id), show(clients)).toContain(id);
    expect(read.ok && read.data.client.redirect_uris, show(read)).toStrictEqual(['https://app.example/callback']);
    const sessions = op(
      'GET /v1/keys/{id}/sessions',
      await portal.GET('/v1/keys/{id}/sessions', { params: { path: { id } } }),
    );
    expect(sessions.ok && sessions.data, show(sessions)).toStrictEqual({ sessions: [] });
    const revokedOne = op(
      'DELETE /v1/keys/{id}/sessions/{jti}',
      await portal.DELETE('/v1/keys/{id}/sessions/{jti}', { params: { path: { id, jti: 'sess_none' } } }),
    );
    expect(revokedOne.ok && revokedOne.data, show(revokedOne)).toStrictEqual({ revoked: false });
    const revokedWallet = op(
      'POST /v1/keys/{id}/sessions/revoke',
      await portal.POST('/v1/keys/{id}/sessions/revoke', {
        params: { path: { id } },
        body: { wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T' },
      }),
    );
    expect(revokedWallet.ok && revokedWallet.data, show(revokedWallet)).toStrictEqual({ revoked: 0 });
    const removed = op(
      'DELETE /v1/keys/{id}/oidc',
      await portal.DELETE('/v1/keys/{id}/oidc', { params: { path: { id } } }),
    );
    expect(removed.ok, show(removed)).toBe(true);

    const revoked = op('DELETE /v1/keys/{id}', await portal.DELETE('/v1/keys/{id}', { params: { path: { id } } }));
    expect(revoked.ok && revoked.data.key.revoked_at).toBeGreaterThan(0);
    const unknown = `key_${base58.encode(randomBytes(16))}`;
    expect(await portal.DELETE('/v1/keys/{id}', { params: { path: { id: unknown } } })).toMatchObject({
      ok: false,
      status: 404,
      code: 'KEY_NOT_FOUND',
    });
  });
});

describe('usage history of the calling key', () => {
  it("GET /v1/usage/history/key: the key's own buckets; 400 BAD_REQUEST for an unknown range", async () => {
    const path = '/v1/usage/history/key';
    const own = op(`GET ${path}`, await sigil.GET(path, { params: { query: { range: '1h' } } }));
    expect(own.ok && own.data, show(own)).toMatchObject({ range: '1h', key_id: app.key.key.id, bucket_ms: 60_000 });
    expect(own.ok && own.data.buckets.length).toBe(60);
    expect(await sigil.GET(path, { params: { query: { range: '2h' as '1h' } } })).toMatchObject({
      ok: false,
      status: 400,
      code: 'BAD_REQUEST',
    });
  });
});

describe('pay webhooks', () => {
  it('every webhook operation: success, then its error', async () => {
    const client = createSigilClient({ baseUrl: hooks.app.base, apiKey: hooks.app.key.secret });
    const alice = await scenarioSigner(chain, 'alice');
    const url = 'https://hooks.example.com/sigil';
    const missing = { params: { path: { id: `whsub_${base58.encode(randomBytes(16))}` } } };

    const challenge = op(
      'POST /v1/pay/webhooks/challenge',
      await client.POST('/v1/pay/webhooks/challenge', { body: { scope: '@alice', wallet: alice.address, url } }),
    );
    if (!challenge.ok) throw new Error(show(challenge));
    expect(
      await client.POST('/v1/pay/webhooks/challenge', { body: { scope: '@alice', url: 'https://nowhere.invalid/x' } }),
    ).toMatchObject({ ok: false, status: 400, code: 'URL_REJECTED' });

    const signature = await signRaw(alice, challenge.data.message);
    const created = op(
      'POST /v1/pay/webhooks',
      await client.POST('/v1/pay/webhooks', { body: { nonce: challenge.data.nonce, signature } }),
    );
    if (!created.ok) throw new Error(show(created));
    expect(created.status).toBe(201);
    expect(created.data.secret).toMatch(/^whsec_/);
    expect(await client.POST('/v1/pay/webhooks', { body: { nonce: challenge.data.nonce, signature } })).toMatchObject({
      ok: false,
      code: 'CHALLENGE_INVALID',
    });
    const id = { params: { path: { id: created.data.id } } };

    const list = op('GET /v1/pay/webhooks', await client.GET('/v1/pay/webhooks'));
    expect(list.ok && list.data.webhooks.map((w) => w.id)).toEqual([created.data.id]);
    expect(
      await createSigilClient({ baseUrl: hooks.app.base, apiKey: 'sigil_sk_nope' }).GET('/v1/pay/webhooks'),
    ).toMatchObject({ ok: false, status: 401, code: 'INVALID_KEY' });

    const got = op('GET /v1/pay/webhooks/{id}', await client.GET('/v1/pay/webhooks/{id}', id));
    expect(got.ok && got.data.status).toBe('active');
    expect(await client.GET('/v1/pay/webhooks/{id}', missing)).toMatchObject({
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });

    const test = op('POST /v1/pay/webhooks/{id}/test', await client.POST('/v1/pay/webhooks/{id}/test', id));
    if (!test.ok) throw new Error(show(test));
    expect(test.data).toMatchObject({ webhook_id: created.data.id, test: true });
    expect(await client.POST('/v1/pay/webhooks/{id}/test', missing)).toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });

    const deliveries = op(
      'GET /v1/pay/webhooks/{id}/deliveries',
      await client.GET('/v1/pay/webhooks/{id}/deliveries', { params: { path: id.params.path, query: { limit: 10 } } }),
    );
    expect(deliveries.ok && deliveries.data.deliveries.map((d) => d.id)).toContain(test.data.id);
    expect(
      await client.GET('/v1/pay/webhooks/{id}/deliveries', { params: { path: id.params.path, query: { limit: 500 } } }),
    ).toMatchObject({ ok: false, status: 400, code: 'BAD_REQUEST' });

    const redeliverPath = '/v1/pay/webhooks/{id}/deliveries/{deliveryId}/redeliver';
    const redelivered = op(
      `POST ${redeliverPath}`,
      await client.POST(redeliverPath, { params: { path: { id: created.data.id, deliveryId: test.data.id } } }),
    );
    expect(redelivered.ok && redelivered.data.id).toBe(test.data.id);
    expect(
      await client.POST(redeliverPath, { params: { path: { id: created.data.id, deliveryId: 'whdel_unknown' } } }),
    ).toMatchObject({ ok: false, status: 404, code: 'DELIVERY_NOT_FOUND' });

    const rotated = op(
      'POST /v1/pay/webhooks/{id}/rotate-secret',
      await client.POST('/v1/pay/webhooks/{id}/rotate-secret', id),
    );
    expect(rotated.ok && rotated.data.secret).not.toBe(created.data.secret);
    expect(await client.POST('/v1/pay/webhooks/{id}/rotate-secret', missing)).toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
    });

    expect(await client.POST('/v1/pay/webhooks/{id}/resume', id)).toMatchObject({
      ok: false,
      status: 409,
      code: 'NOT_RESUMABLE',
    });
    await hooks.app.database.db
      .updateTable('webhook_subscriptions')
      .set({ status: 'paused', paused_reason: 'auto-paused: 50 consecutive dead deliveries' })
      .where('id', '=', created.data.id)
      .execute();
    const resumed = op('POST /v1/pay/webhooks/{id}/resume', await client.POST('/v1/pay/webhooks/{id}/resume', id));
    expect(resumed.ok && resumed.data).toMatchObject({ status: 'active', paused_reason: null });

    const recovered = op(
      'POST /v1/pay/webhooks/{id}/recover',
      await client.POST('/v1/pay/webhooks/{id}/recover', { params: id.params, body: { since: 0 } }),
    );
    expect(recovered.ok && recovered.data, show(recovered)).toEqual({ requeued: 0, pending: 0 });
    expect(
      await client.POST('/v1/pay/webhooks/{id}/recover', { params: missing.params, body: { since: 0 } }),
    ).toMatchObject({ ok: false, status: 404, code: 'WEBHOOK_NOT_FOUND' });

    const deleted = op('DELETE /v1/pay/webhooks/{id}', await client.DELETE('/v1/pay/webhooks/{id}', id));
    expect(deleted).toMatchObject({ ok: true, status: 204, data: undefined });
    expect(await client.DELETE('/v1/pay/webhooks/{id}', id)).toMatchObject({
      ok: false,
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });
  });
});

describe('webhooks managed with the session', () => {
  it('every session webhook operation and the event catalog: success, then an error', async () => {
    const grace = await scenarioSigner(chain, 'grace');
    const portalKey = createSigilClient({ baseUrl: hooks.app.base, apiKey: hooks.app.portal.secret });
    const c = await portalKey.POST('/v1/auth/challenge', { body: { wallet: grace.address } });
    if (!c.ok) throw new Error(show(c));
    const v = await portalKey.POST('/v1/auth/verify', {
      body: await signChallenge(c.data, grace, hooks.app.portal.key.id),
    });
    if (!v.ok) throw new Error(show(v));
    const owner = createSigilClient({ baseUrl: hooks.app.base, session: v.data.token });
    const key = await owner.POST('/v1/keys', { body: { name: 'sdk webhooks' } });
    if (!key.ok) throw new Error(show(key));
    const id = key.data.key.id;
    const stranger = `key_${base58.encode(randomBytes(16))}`;
    const url = 'https://hooks.example.com/owner';

    const challenge = op(
      'POST /v1/keys/{id}/webhooks/pay/challenge',
      await owner.POST('/v1/keys/{id}/webhooks/pay/challenge', {
        params: { path: { id } },
        body: { scope: grace.address, url },
      }),
    );
    if (!challenge.ok) throw new Error(show(challenge));
    expect(
      await owner.POST('/v1/keys/{id}/webhooks/pay/challenge', {
        params: { path: { id: stranger } },
        body: { scope: grace.address, url },
      }),
    ).toMatchObject({ ok: false, status: 404, code: 'KEY_NOT_FOUND' });
    const created = op(
      'POST /v1/keys/{id}/webhooks/pay',
      await owner.POST('/v1/keys/{id}/webhooks/pay', {
        params: { path: { id } },
        body: { nonce: challenge.data.nonce, signature: await signRaw(grace, challenge.data.message) },
      }),
    );
    if (!created.ok) throw new Error(show(created));
    expect(created.status).toBe(201);
    const hook = { id, stream: 'pay' as const, webhookId: created.data.id };
    const identity = op(
      'POST /v1/keys/{id}/webhooks/identity',
      await owner.POST('/v1/keys/{id}/webhooks/identity', { params: { path: { id } }, body: { scope: '@alice', url } }),
    );
    expect(identity.ok && identity.status, show(identity)).toBe(201);

    const list = op(
      'GET /v1/keys/{id}/webhooks/{stream}',
      await owner.GET('/v1/keys/{id}/webhooks/{stream}', { params: { path: { id, stream: 'pay' } } }),
    );
    expect(list.ok && list.data.webhooks.map((h) => [h.id, h.state]), show(list)).toEqual([[hook.webhookId, 'active']]);
    const onePath = '/v1/keys/{id}/webhooks/{stream}/{webhookId}' as const;
    const got = op(`GET ${onePath}`, await owner.GET(onePath, { params: { path: hook } }));
    expect(got.ok && got.data.stream, show(got)).toBe('pay');
    const edited = op(
      `PATCH ${onePath}`,
      await owner.PATCH(onePath, { params: { path: hook }, body: { event_types: ['invoice.paid'] } }),
    );
    expect(edited.ok && edited.data.event_types, show(edited)).toEqual(['invoice.paid']);
    const urlChallenge = op(
      'POST /v1/keys/{id}/webhooks/pay/{webhookId}/challenge',
      await owner.POST('/v1/keys/{id}/webhooks/pay/{webhookId}/challenge', {
        params: { path: { id, webhookId: hook.webhookId } },
        body: { url: `${url}/v2` },
      }),
    );
    if (!urlChallenge.ok) throw new Error(show(urlChallenge));
    expect(
      await owner.PATCH(onePath, {
        params: { path: hook },
        body: { url: `${url}/v2`, nonce: urlChallenge.data.nonce },
      }),
    ).toMatchObject({ ok: false, status: 401, code: 'SIGNATURE_INVALID' });
    const moved = await owner.PATCH(onePath, {
      params: { path: hook },
      body: {
        url: `${url}/v2`,
        nonce: urlChallenge.data.nonce,
        signature: await signRaw(grace, urlChallenge.data.message),
      },
    });
    expect(moved.ok && moved.data.url, show(moved)).toBe(`${url}/v2`);

    const disabled = op(`POST ${onePath}/disable`, await owner.POST(`${onePath}/disable`, { params: { path: hook } }));
    expect(disabled.ok && disabled.data.state, show(disabled)).toBe('disabled');
    expect(await owner.POST(`${onePath}/resume`, { params: { path: hook } })).toMatchObject({
      ok: false,
      status: 409,
      code: 'NOT_RESUMABLE',
    });
    const enabled = op(`POST ${onePath}/enable`, await owner.POST(`${onePath}/enable`, { params: { path: hook } }));
    expect(enabled.ok && enabled.data.state, show(enabled)).toBe('active');
    expect(await owner.POST(`${onePath}/enable`, { params: { path: hook } })).toMatchObject({
      ok: false,
      status: 409,
      code: 'NOT_DISABLED',
    });
    await hooks.app.database.db
      .updateTable('webhook_subscriptions')
      .set({ status: 'paused', paused_reason: 'auto-paused: 50 consecutive deliveries dead-lettered' })
      .where('id', '=', hook.webhookId)
      .execute();
    const resumed = op(`POST ${onePath}/resume`, await owner.POST(`${onePath}/resume`, { params: { path: hook } }));
    expect(resumed.ok && resumed.data.state, show(resumed)).toBe('active');
    const rotated = op(
      `POST ${onePath}/rotate-secret`,
      await owner.POST(`${onePath}/rotate-secret`, { params: { path: hook } }),
    );
    expect(rotated.ok && rotated.data.secret, show(rotated)).toMatch(/^whsec_/);
    const recovered = op(
      `POST ${onePath}/recover`,
      await owner.POST(`${onePath}/recover`, { params: { path: hook }, body: { since: 0 } }),
    );
    expect(recovered.ok && recovered.data, show(recovered)).toEqual({ requeued: 0, pending: 0 });
    expect(
      await owner.POST(`${onePath}/recover`, { params: { path: hook }, body: { since: 10, until: 5 } }),
    ).toMatchObject({ ok: false, status: 400, code: 'BAD_REQUEST' });

    const test = op(
      `POST ${onePath}/test`,
      await owner.POST(`${onePath}/test`, { params: { path: hook }, body: { type: 'invoice.closed' } }),
    );
    if (!test.ok) throw new Error(show(test));
    expect(test.data).toMatchObject({ event_type: 'invoice.closed', test: true });
    expect(await owner.POST(`${onePath}/test`, { params: { path: hook }, body: { type: 'nope' } })).toMatchObject({
      ok: false,
      status: 400,
      code: 'INVALID_EVENT_TYPES',
    });
    const page = op(
      `GET ${onePath}/deliveries`,
      await owner.GET(`${onePath}/deliveries`, {
        params: { path: hook, query: { event_type: 'invoice.closed', limit: 10 } },
      }),
    );
    expect(page.ok && page.data, show(page)).toMatchObject({ deliveries: [{ id: test.data.id }], next_cursor: null });
    const delivery = { ...hook, deliveryId: test.data.id };
    const detailPath = `${onePath}/deliveries/{deliveryId}` as const;
    const detail = op(`GET ${detailPath}`, await owner.GET(detailPath, { params: { path: delivery } }));
    expect(detail.ok && JSON.parse(detail.data.body).type, show(detail)).toBe('invoice.closed');
    const attempts = op(
      `GET ${detailPath}/attempts`,
      await owner.GET(`${detailPath}/attempts`, { params: { path: delivery } }),
    );
    expect(attempts.ok && attempts.data, show(attempts)).toEqual({ attempts: [], next_cursor: null });
    const redelivered = op(
      `POST ${detailPath}/redeliver`,
      await owner.POST(`${detailPath}/redeliver`, { params: { path: delivery } }),
    );
    expect(redelivered.ok && redelivered.data.status, show(redelivered)).toBe('pending');
    expect(await owner.GET(detailPath, { params: { path: { ...delivery, deliveryId: 'whdel_nope' } } })).toMatchObject({
      ok: false,
      status: 404,
      code: 'DELIVERY_NOT_FOUND',
    });

    const removed = op(`DELETE ${onePath}`, await owner.DELETE(onePath, { params: { path: hook } }));
    expect(removed).toMatchObject({ ok: true, status: 204 });
    expect(await owner.DELETE(onePath, { params: { path: hook } })).toMatchObject({
      ok: false,
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });

    const catalog = op('GET /v1/webhooks/event-types', await anonymous.GET('/v1/webhooks/event-types'));
    expect(catalog.ok && catalog.data.event_types.length, show(catalog)).toBe(40);
  });
});

describe('keyed reverse', () => {
  it('GET /v1/reverse/{address}: the primary with its proof; 400 INVALID_WALLET', async () => {
    const alice = scenario.wallets.alice!.address;
    const path = '/v1/reverse/{address}';
    const ok = op(`GET ${path}`, await sigil.GET(path, { params: { path: { address: alice } } }));
    expect(ok.ok && ok.data, show(ok)).toMatchObject({ address: alice, handle: 'alice', forwardMatch: true });
    expect(await sigil.GET(path, { params: { path: { address: 'not-base58!' } } })).toMatchObject({
      ok: false,
      status: 400,
      code: 'INVALID_WALLET',
    });
  });

  it('POST /v1/reverse/batch: one item per address in order; 400 BAD_REQUEST for an empty list', async () => {
    const addresses = [scenario.wallets.alice!.address, scenario.reverse.noPrimary!];
    const ok = op('POST /v1/reverse/batch', await sigil.POST('/v1/reverse/batch', { body: { addresses } }));
    expect(ok.ok && ok.data.results.map((r) => [r.input, r.ok, r.result?.handle]), show(ok)).toEqual([
      [addresses[0], true, 'alice'],
      [addresses[1], true, null],
    ]);
    expect(await sigil.POST('/v1/reverse/batch', { body: { addresses: [] } })).toMatchObject({
      ok: false,
      status: 400,
      code: 'BAD_REQUEST',
    });
  });
});

describe('gate', () => {
  it('published facts: the JWKS and the policy schema (no error of their own to provoke)', async () => {
    const jwks = op('GET /.well-known/jwks.json', await anonymous.GET('/.well-known/jwks.json'));
    expect(jwks.ok && Array.isArray(jwks.data.keys), show(jwks)).toBe(true);
    const schema = op('GET /v1/gate/policy.schema.json', await anonymous.GET('/v1/gate/policy.schema.json'));
    expect(schema.ok && schema.data.$schema, show(schema)).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('policy store and check: create (201) → list → get → replace (If-Match) → check → delete (204); each refuses', async () => {
    const policy = { all: [{ 'handle.owned': {} }, { 'record.verified': { chain: 'SOL' } }] };
    const created = op(
      'POST /v1/gate/policies',
      await sigil.POST('/v1/gate/policies', { body: { name: 'verified SOL holders', policy } }),
    );
    if (!created.ok) throw new Error(show(created));
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ name: 'verified SOL holders', version: 1 });
    expect(await sigil.POST('/v1/gate/policies', { body: { policy: { 'no.such.leaf': {} } } })).toMatchObject({
      ok: false,
      status: 400,
      code: 'INVALID_POLICY',
    });
    const id = created.data.id;
    const etag = created.headers.get('etag')!;
    expect(etag).toBe(`"${created.data.policyHash}"`);

    const list = op('GET /v1/gate/policies', await sigil.GET('/v1/gate/policies'));
    expect(list.ok && list.data.policies.map((p) => p.id), show(list)).toContain(id);
    expect(
      await createSigilClient({ baseUrl: app.base, apiKey: 'sigil_sk_nope', retry: false }).GET('/v1/gate/policies'),
    ).toMatchObject({ ok: false, status: 401, code: 'INVALID_KEY' });

    const got = op(
      'GET /v1/gate/policies/{id}',
      await sigil.GET('/v1/gate/policies/{id}', { params: { path: { id } } }),
    );
    expect(got.ok && got.data.policy, show(got)).toEqual(policy);
    const unknown = { params: { path: { id: 'pol_unknown' } } };
    expect(await sigil.GET('/v1/gate/policies/{id}', unknown)).toMatchObject({
      ok: false,
      status: 404,
      code: 'POLICY_NOT_FOUND',
    });

    const next = { all: [...policy.all, { attestation: { platform: 'x' } }] };
    const replaced = op(
      'PUT /v1/gate/policies/{id}',
      await sigil.PUT('/v1/gate/policies/{id}', {
        params: { path: { id } },
        body: { name: 'verified SOL holders', policy: next },
        headers: { 'If-Match': etag },
      }),
    );
    expect(replaced.ok && replaced.data.version, show(replaced)).toBe(2);
    expect(
      await sigil.PUT('/v1/gate/policies/{id}', { params: { path: { id } }, body: { policy: next } }),
    ).toMatchObject({ ok: false, status: 428, code: 'PRECONDITION_REQUIRED' });

    const checked = op(
      'POST /v1/gate/check',
      await sigil.POST('/v1/gate/check', { body: { subject: { handle: '@alice' }, policyId: id } }),
    );
    expect(checked.ok && checked.data, show(checked)).toMatchObject({
      decision: 'allow',
      policyId: id,
      version: 2,
      subject: { handle: 'alice', wallet: scenario.wallets.alice!.address },
    });
    expect(
      await sigil.POST('/v1/gate/check', { body: { subject: { handle: 'alice', wallet: 'x' }, policyId: id } }),
    ).toMatchObject({ ok: false, status: 400, code: 'INVALID_SUBJECT' });

    expect(
      await sigil.DELETE('/v1/gate/policies/{id}', { params: { path: { id } }, headers: { 'If-Match': etag } }),
    ).toMatchObject({ ok: false, status: 412, code: 'PRECONDITION_FAILED' });
    const deleted = op(
      'DELETE /v1/gate/policies/{id}',
      await sigil.DELETE('/v1/gate/policies/{id}', { params: { path: { id } } }),
    );
    expect(deleted).toMatchObject({ ok: true, status: 204, data: undefined });
  });
});

describe('identity events', () => {
  it('every identity webhook operation and the log: success, then its error', async () => {
    const client = createSigilClient({ baseUrl: hooks.app.base, apiKey: hooks.app.key.secret });
    const url = 'https://hooks.example.com/sigil/identity';
    const missing = { params: { path: { id: `whsub_${base58.encode(randomBytes(16))}` } } };

    const created = op(
      'POST /v1/identity/webhooks',
      await client.POST('/v1/identity/webhooks', {
        body: { scope: '@alice', url, event_types: ['record', 'primary.set'], description: 'alice profile' },
      }),
    );
    if (!created.ok) throw new Error(show(created));
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ scope: { type: 'name', value: '@alice' }, status: 'active' });
    expect(created.data.secret).toMatch(/^whsec_/);
    expect(await client.POST('/v1/identity/webhooks', { body: { scope: '*', url } })).toMatchObject({
      ok: false,
      status: 403,
      code: 'PARTNER_TIER_REQUIRED',
    });
    const id = { params: { path: { id: created.data.id } } };

    const list = op('GET /v1/identity/webhooks', await client.GET('/v1/identity/webhooks'));
    expect(list.ok && list.data.webhooks.map((w) => w.id), show(list)).toEqual([created.data.id]);
    expect(
      await createSigilClient({ baseUrl: hooks.app.base, apiKey: 'sigil_sk_nope' }).GET('/v1/identity/webhooks'),
    ).toMatchObject({ ok: false, status: 401, code: 'INVALID_KEY' });

    const got = op('GET /v1/identity/webhooks/{id}', await client.GET('/v1/identity/webhooks/{id}', id));
    expect(got.ok && got.data.url, show(got)).toBe(url);
    expect(await client.GET('/v1/identity/webhooks/{id}', missing)).toMatchObject({
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });

    const test = op('POST /v1/identity/webhooks/{id}/test', await client.POST('/v1/identity/webhooks/{id}/test', id));
    if (!test.ok) throw new Error(show(test));
    expect(await client.POST('/v1/identity/webhooks/{id}/test', missing)).toMatchObject({
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });

    const deliveriesPath = '/v1/identity/webhooks/{id}/deliveries';
    const deliveries = op(
      `GET ${deliveriesPath}`,
      await client.GET(deliveriesPath, { params: { path: id.params.path, query: { limit: 10 } } }),
    );
    expect(deliveries.ok && deliveries.data.deliveries.map((d) => d.id), show(deliveries)).toContain(test.data.id);
    expect(await client.GET(deliveriesPath, { params: { path: id.params.path, query: { limit: 500 } } })).toMatchObject(
      { ok: false, status: 400, code: 'BAD_REQUEST' },
    );

    const redeliverPath = '/v1/identity/webhooks/{id}/deliveries/{deliveryId}/redeliver';
    const redelivered = op(
      `POST ${redeliverPath}`,
      await client.POST(redeliverPath, { params: { path: { id: created.data.id, deliveryId: test.data.id } } }),
    );
    expect(redelivered.ok && redelivered.data.id, show(redelivered)).toBe(test.data.id);
    expect(
      await client.POST(redeliverPath, { params: { path: { id: created.data.id, deliveryId: 'whdel_unknown' } } }),
    ).toMatchObject({ ok: false, status: 404, code: 'DELIVERY_NOT_FOUND' });

    const rotated = op(
      'POST /v1/identity/webhooks/{id}/rotate-secret',
      await client.POST('/v1/identity/webhooks/{id}/rotate-secret', id),
    );
    expect(rotated.ok && rotated.data.secret, show(rotated)).not.toBe(created.data.secret);
    expect(await client.POST('/v1/identity/webhooks/{id}/rotate-secret', missing)).toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
    });

    const recovered = op(
      'POST /v1/identity/webhooks/{id}/recover',
      await client.POST('/v1/identity/webhooks/{id}/recover', { params: id.params, body: { since: 0 } }),
    );
    expect(recovered.ok && recovered.data, show(recovered)).toEqual({ requeued: 0, pending: 0 });
    expect(
      await client.POST('/v1/identity/webhooks/{id}/recover', { params: id.params, body: { since: 10, until: 5 } }),
    ).toMatchObject({ ok: false, status: 400, code: 'BAD_REQUEST' });

    expect(await client.POST('/v1/identity/webhooks/{id}/resume', id)).toMatchObject({
      ok: false,
      status: 409,
      code: 'NOT_RESUMABLE',
    });
    await hooks.app.database.db
      .updateTable('webhook_subscriptions')
      .set({ status: 'paused', paused_reason: 'auto-paused: 50 consecutive dead deliveries' })
      .where('id', '=', created.data.id)
      .execute();
    const resumed = op(
      'POST /v1/identity/webhooks/{id}/resume',
      await client.POST('/v1/identity/webhooks/{id}/resume', id),
    );
    expect(resumed.ok && resumed.data, show(resumed)).toMatchObject({ status: 'active', paused_reason: null });

    const deleted = op('DELETE /v1/identity/webhooks/{id}', await client.DELETE('/v1/identity/webhooks/{id}', id));
    expect(deleted).toMatchObject({ ok: true, status: 204, data: undefined });
    expect(await client.DELETE('/v1/identity/webhooks/{id}', id)).toMatchObject({
      ok: false,
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });

    // The suite runs no workers: one indexer pass at a time puts the demo scenario's registry changes in the log, as
    // soon as they are finalized.
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    const log = await waitFor(
      async () => {
        await runIdentityPass(hooks.app.database.db, { chain: reader });
        const page = await client.GET('/v1/identity/events', { params: { query: { handle: 'alice', limit: 2 } } });
        return !page.ok || page.data.events.length === 2 ? page : undefined;
      },
      30_000,
      "alice's first two identity events",
    );
    called.add('GET /v1/identity/events');
    expect(log.ok && log.data, show(log)).toMatchObject({
      has_more: true,
      next_after: log.ok && log.data.events[1]!.sequence,
    });
    expect(log.ok && log.data.events.map((e) => [e.type, e.handle?.name, e.actors.signer])).toEqual([
      ['handle.registered', 'alice', scenario.wallets.alice!.address],
      ['primary.set', 'alice', scenario.wallets.alice!.address],
    ]);
    expect(await client.GET('/v1/identity/events', { params: { query: { wallet: '0xabc' } } })).toMatchObject({
      ok: false,
      status: 400,
      code: 'INVALID_WALLET',
    });
  });
});

describe('x402 through the client: createX402Fetch as its fetch', () => {
  let env: X402Chain;
  let paid: X402App;
  beforeAll(async () => {
    env = await startX402Chain();
    paid = await startX402App(env, { dialect: 'sqlite', router: appRouter });
  }, 120_000);
  afterAll(async () => {
    await paid?.close();
    await env?.close();
  });

  it('a keyless client pays the 402 and gets the answer; without the payer it gets the challenge as a failure', async () => {
    const payer = createX402Fetch({
      rpc: env.chain.rpc,
      payer: env.payer1,
      waitForFinality: (s) => env.chain.waitForFinalized(s),
    });
    const client = createSigilClient({ baseUrl: paid.base, fetch: payer, retry: false });
    const result = await client.GET('/v1/resolve/{name}', { params: { path: { name: 'alice' } } });
    expect(result.ok && result.data, show(result)).toMatchObject({ name: 'alice', namespace: 'handle' });
    expect(result.ok && result.headers.get('PAYMENT-RESPONSE')).toBeTruthy();

    const unpaid = createSigilClient({ baseUrl: paid.base, retry: false });
    const challenge = await unpaid.GET('/v1/resolve/{name}', { params: { path: { name: 'alice' } } });
    expect(challenge).toMatchObject({ ok: false, status: 402, code: 'PAYMENT_REQUIRED' });
    expect((challenge as { body: { x402Version: number } }).body.x402Version).toBe(2);
  });
});

describe('coverage', () => {
  it('every operation of the OpenAPI document was called through the SDK above', () => {
    const doc = sdkOpenApiDocument() as unknown as { paths: Record<string, Record<string, unknown>> };
    const all = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(all.filter((key) => !called.has(key))).toEqual([]);
  });
});
