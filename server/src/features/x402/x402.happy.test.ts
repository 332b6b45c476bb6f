// x402 over real HTTP on the local chain: the whole flow with the SDK payer helper, the challenge's every field,
// the receipt, health, and the request order (key first; keyless reaches x402).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64 } from '@scure/base';
import {
  X402_HEADERS,
  decodeBase64Json,
  deriveReference,
  nativeEntryOf,
  redeemMessage,
  requestHash,
  canonicalRequest,
} from '@sigil/contract/x402';
import { payAndFetch, wrappedNativeAccount } from '@sigil/client-sdk/x402';
import { appRouter } from '../../router';
import { METERED_ROUTES } from '../../trpc/procedures';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { demoWallet, respondJson, setRecord } from '@sigil/test/support/agent-registry';
import {
  DOMAIN_TAG,
  PRICE_RESOLVE,
  receiptOf,
  startX402App,
  startX402Chain,
  type X402App,
  type X402Chain,
} from '@sigil/test/support/x402-app';

let env: X402Chain;
let app: X402App;

beforeAll(async () => {
  env = await startX402Chain();
  app = await startX402App(env, { dialect: 'sqlite' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('x402 happy path', () => {
  it('a scenario payer wraps, pays with the fixed shape, waits for finality, signs, and gets 200 with the receipt', async () => {
    const before = await env.chain.rpc.getTokenAccountBalance(await wrappedNativeAccount(env.payTo.address)).send();
    const result = await payAndFetch(
      { url: `${app.base}/v1/resolve/alice` },
      { rpc: env.chain.rpc, payer: env.payer1, waitForFinality: (s) => env.chain.waitForFinalized(s) },
    );
    expect(result.response.status, JSON.stringify(await result.response.clone().json())).toBe(200);
    expect(await result.response.json()).toEqual({ name: 'alice', paidBy: env.payer1.address, keyId: null });
    const value = result.response.headers.get(X402_HEADERS.response);
    expect(value).not.toBeNull();
    expect(result.response.headers.get(X402_HEADERS.legacyResponse)).toBe(value);
    expect(decodeBase64Json(value!)).toEqual({
      success: true,
      payer: env.payer1.address,
      transaction: result.signature,
      network: app.network,
      amount: String(PRICE_RESOLVE),
    });
    expect(result.receipt?.transaction).toBe(result.signature);
    const after = await env.chain.rpc.getTokenAccountBalance(await wrappedNativeAccount(env.payTo.address)).send();
    expect(BigInt(after.value.amount) - BigInt(before.value.amount)).toBe(PRICE_RESOLVE);
    // Consumed: one payment row, bound to the reference the challenge issued.
    const rows = await app.database.db
      .selectFrom('x402_payments')
      .selectAll()
      .where('signature', '=', result.signature!)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.reference).toBe(nativeEntryOf(result.challenge!)!.extra.reference);
    // Usage history counts the paid request for the paying wallet (docs/usage-history.md).
    const history = await app.app.services.usageHistory.history(env.payer1.address, { range: '1h' });
    expect(history.buckets.reduce((n, b) => n + b.paid, 0)).toBe(1);
    expect(history.buckets.reduce((n, b) => n + b.served + b.client_error + b.rate_limited, 0)).toBe(0);
  });

  it('redeems by payload.reference: the server finds the payment on chain', async () => {
    const result = await payAndFetch(
      { url: `${app.base}/v1/resolve/bob` },
      {
        rpc: env.chain.rpc,
        payer: env.payer2,
        waitForFinality: (s) => env.chain.waitForFinalized(s),
        redeemBy: 'reference',
      },
    );
    expect(result.response.status).toBe(200);
    expect(result.receipt).toEqual({
      success: true,
      payer: env.payer2.address,
      transaction: result.signature,
      network: app.network,
      amount: String(PRICE_RESOLVE),
    });
  });

  it('accepts the legacy X-PAYMENT header and the v1 payment form', async () => {
    const { entry, signature, payerSig } = await app.paid('/v1/resolve/legacy', env.payer1);
    const v1 = base64.encode(
      new TextEncoder().encode(
        JSON.stringify({ x402Version: 1, scheme: 'exact', network: entry.network, payload: { signature, payerSig } }),
      ),
    );
    const r = await app.get('/v1/resolve/legacy', {
      [X402_HEADERS.payer]: env.payer1.address,
      [X402_HEADERS.legacyPayment]: v1,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(receiptOf(r)?.transaction).toBe(signature);
  });

  it('the same value in both payment headers is not a conflict', async () => {
    const { signature, payerSig } = await app.paid('/v1/resolve/both-headers', env.payer1);
    const header = base64.encode(
      new TextEncoder().encode(
        JSON.stringify({
          x402Version: 2,
          accepted: { scheme: 'exact', network: app.network },
          payload: { signature, payerSig },
        }),
      ),
    );
    const r = await app.redeem('/v1/resolve/both-headers', {
      payer: env.payer1.address,
      rawHeader: header,
      headers: { [X402_HEADERS.legacyPayment]: header },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});

describe('the challenge', () => {
  it('with X-Payer: 402, body = base64 PAYMENT-REQUIRED, every field, a reference derived as specified', async () => {
    const path = '/v1/resolve/%40Alice?b=2&a=1';
    const r = await app.get(path, { [X402_HEADERS.payer]: env.payer1.address });
    expect(r.status).toBe(402);
    expect(decodeBase64Json(r.headers.get(X402_HEADERS.required)!)).toEqual(r.body);
    const canonical = canonicalRequest({ method: 'GET', path: '/v1/resolve/%40Alice', query: 'b=2&a=1' });
    expect(canonical).toBe(
      'GET\n/v1/resolve/%40Alice\na=1&b=2\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    const reference: string = r.body.accepts[0].extra.reference;
    expect(r.body).toEqual({
      x402Version: 2,
      accepts: [
        {
          scheme: 'exact',
          network: `solana:${env.chain.genesisHash.slice(0, 32)}`,
          asset: 'So11111111111111111111111111111111111111112',
          payTo: env.payTo.address,
          amount: '7000',
          maxTimeoutSeconds: 60,
          extra: {
            feePayer: env.payer1.address,
            reference,
            requestHash: requestHash(canonical),
            redeemMessage: `sigil-x402-redeem:v1|api.sigil.test\nreference:${reference}`,
          },
        },
      ],
    });
    expect(redeemMessage(DOMAIN_TAG, reference)).toBe(r.body.accepts[0].extra.redeemMessage);
    // The stored nonce reproduces the reference (the derivation of the spec, with the server's secret nonce).
    const row = await app.database.db
      .selectFrom('x402_references')
      .selectAll()
      .where('reference', '=', reference)
      .executeTakeFirstOrThrow();
    expect(deriveReference({ domainTag: DOMAIN_TAG, canonical, nonce: row.nonce, payer: env.payer1.address })).toBe(
      reference,
    );
    expect(row).toMatchObject({
      request_hash: requestHash(canonical),
      payer: env.payer1.address,
      amount: '7000',
      route: 'resolve',
    });
    expect(row.expires_at - row.issued_at).toBe(600_000);
    expect(JSON.stringify(r.body)).not.toContain(row.nonce);
  });

  it('without a payer (or with a malformed X-Payer): no reference, no feePayer, no redeemMessage; `error` absent', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { [X402_HEADERS.payer]: 'not-a-wallet' },
      { [X402_HEADERS.payer]: '0OIl' + env.payer1.address.slice(4) },
    ]) {
      const r = await app.get('/v1/resolve/alice', headers);
      expect(r.status).toBe(402);
      expect(r.body.error).toBeUndefined();
      expect(r.body.accepts[0].extra).toEqual({ requestHash: r.body.accepts[0].extra.requestHash });
    }
  });

  it('the payer query parameter binds the payer too (and is part of the request hash)', async () => {
    const r = await app.get(`/v1/resolve/alice?payer=${env.payer2.address}`);
    expect(r.status).toBe(402);
    expect(r.body.accepts[0].extra.feePayer).toBe(env.payer2.address);
    expect(r.body.accepts[0].extra.requestHash).toBe(
      requestHash(canonicalRequest({ method: 'GET', path: '/v1/resolve/alice', query: `payer=${env.payer2.address}` })),
    );
  });

  it('each challenge issues a fresh reference', async () => {
    const a = await app.challenge('/v1/resolve/alice', env.payer1.address);
    const b = await app.challenge('/v1/resolve/alice', env.payer1.address);
    expect(a.entry.extra.reference).not.toBe(b.entry.extra.reference);
    expect(a.entry.extra.requestHash).toBe(b.entry.extra.requestHash);
  });
});

describe('request order and deployment facts', () => {
  it('GET /v1/health reports x402 and the native rail', async () => {
    const r = await app.get('/v1/health');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ x402: true, rails: ['x1-native'] });
  });

  it('a valid key is served without any payment (payment headers ignored)', async () => {
    const r = await app.get('/v1/resolve/alice', { 'x-api-key': app.keySecret, [X402_HEADERS.payment]: 'garbage' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'alice', paidBy: null });
    expect(r.body.keyId).toMatch(/^key_/);
    expect(r.headers.get(X402_HEADERS.response)).toBeNull();
    expect(r.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('a present but invalid key → 401 INVALID_KEY, never x402, even with a payment', async () => {
    const { signature, payerSig } = await app.paid('/v1/resolve/badkey', env.payer1);
    const r = await app.redeem('/v1/resolve/badkey', {
      payer: env.payer1.address,
      signature,
      payerSig,
      headers: { 'x-api-key': 'sigil_sk_nope' },
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ code: 'INVALID_KEY', message: 'the API key is not valid (unknown or revoked)' });
    // Nothing consumed: the payment still buys the request without the bad key.
    const ok = await app.redeem('/v1/resolve/badkey', { payer: env.payer1.address, signature, payerSig });
    expect(ok.status).toBe(200);
  });

  it('x402 off: a keyless metered request → 401 API_KEY_REQUIRED; health says x402 false', async () => {
    const off = await startX402App(env, { dialect: 'sqlite', vars: { SIGIL_X402_PAY_TO: '' } });
    try {
      const r = await off.get('/v1/resolve/alice', { [X402_HEADERS.payer]: env.payer1.address });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ code: 'API_KEY_REQUIRED', message: 'send your API key in the X-API-Key header' });
      expect((await off.get('/v1/health')).body).toMatchObject({ x402: false, rails: [] });
    } finally {
      await off.close();
    }
  });

  it('a procedure on meteredProcedure that is not in METERED_ROUTES fails closed (500, nothing sold)', async () => {
    const r = await app.get('/v1/test/unlisted', { [X402_HEADERS.payer]: env.payer1.address });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ code: 'INTERNAL_ERROR', message: 'internal error' });
  });
});

describe('the real metered routes (appRouter)', () => {
  let real: X402App;
  beforeAll(async () => {
    real = await startX402App(env, { dialect: 'sqlite', router: appRouter });
  });
  afterAll(async () => {
    await real?.close();
  });

  it('METERED_ROUTES lists only routes the service serves, each documented with its 402', async () => {
    const doc = (await real.get('/openapi.json')).body;
    expect(Object.keys(METERED_ROUTES)).toEqual([
      'GET /v1/resolve/{name}',
      'GET /v1/resolve-universal/{name}',
      'GET /v1/agents/{handle}',
      'GET /v1/agents/{handle}/level',
      'GET /v1/reverse/{address}',
    ]);
    for (const route of Object.keys(METERED_ROUTES)) {
      const [method, path] = route.split(' ') as [string, string];
      expect(doc.paths[path]?.[method.toLowerCase()]?.responses?.['402'], route).toBeDefined();
    }
  });

  it('GET /v1/resolve/{name}: paid with the SDK helper, answered with the resolution and the receipt', async () => {
    const keyed = await real.get('/v1/resolve/alice', { 'x-api-key': real.keySecret });
    expect(keyed.status).toBe(200);
    const result = await payAndFetch(
      { url: `${real.base}/v1/resolve/alice` },
      { rpc: env.chain.rpc, payer: env.payer1, waitForFinality: (s) => env.chain.waitForFinalized(s) },
    );
    expect(result.response.status).toBe(200);
    // The same resolution the key buys (the answer's slot moved on while the payment finalized).
    expect({ ...(await result.response.json()), slot: 0 }).toEqual({ ...keyed.body, slot: 0 });
    expect(result.receipt).toEqual({
      success: true,
      payer: env.payer1.address,
      transaction: result.signature,
      network: real.network,
      amount: String(PRICE_RESOLVE),
    });
  });

  it('GET /v1/resolve/{name} for an unregistered name: the 404 consumes nothing', async () => {
    const { signature, payerSig } = await real.paid('/v1/resolve/nobody', env.payer1);
    const r = await real.redeem('/v1/resolve/nobody', { payer: env.payer1.address, signature, payerSig });
    expect(r.status).toBe(404);
    expect(r.headers.get(X402_HEADERS.response)).toBeNull();
    expect(
      await real.database.db.selectFrom('x402_payments').selectAll().where('signature', '=', signature).execute(),
    ).toEqual([]);
  });

  it('keyless: bought at the reverse price (SIGIL_X402_PRICE_REVERSE, default 5000), answered like the keyed call', async () => {
    const path = `/v1/reverse/${env.payer1.address}`;
    const { entry, signature, payerSig } = await real.paid(path, env.payer1);
    expect(entry.amount).toBe('5000');
    const r = await real.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ address: env.payer1.address, handle: null, failedRule: 'no-pointer' });
    const [row] = await real.database.db
      .selectFrom('x402_payments')
      .selectAll()
      .where('signature', '=', signature)
      .execute();
    expect(row).toBeDefined();
  });
});

describe('GET /v1/agents/{handle} paid (appRouter, manifest on a loopback receiver)', () => {
  let agentsApp: X402App;
  let receiver: HttpsReceiver;
  let respond: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    receiver = await startHttpsReceiver((req, res) => respond(req, res));
    agentsApp = await startX402App(env, {
      dialect: 'sqlite',
      router: appRouter,
      vars: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outboundOptions: { ca: selfSignedCert().cert },
    });
    await setRecord(
      env.chain,
      await demoWallet('ivan'),
      'scout',
      'text',
      'agent.manifest',
      `https://127.0.0.1:${receiver.port}/scout.json`,
    );
    await agentsApp.finalize();
  });
  afterAll(async () => {
    await agentsApp?.close();
    await receiver?.close();
  });

  it('a 424 (manifest unreachable) consumes nothing; the same payment then buys the 200', async () => {
    const path = '/v1/agents/scout';
    const { signature, payerSig } = await agentsApp.paid(path, env.payer1);
    respond = (_req, res) => res.writeHead(503).end();
    const unreachable = await agentsApp.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(unreachable.status).toBe(424);
    expect(unreachable.body).toEqual({
      code: 'MANIFEST_UNREACHABLE',
      message: `manifest https://127.0.0.1:${receiver.port}/scout.json is unreachable: answered HTTP 503`,
    });
    expect(unreachable.headers.get(X402_HEADERS.response)).toBeNull();
    expect(
      await agentsApp.database.db.selectFrom('x402_payments').selectAll().where('signature', '=', signature).execute(),
    ).toEqual([]);

    const scout = env.chain.scenario!.handles.scout!.account;
    respond = respondJson({ sigil: { version: 1, name: 'scout', network: 'testnet', handle: scout } });
    const ok = await agentsApp.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ name: 'scout', handle: scout, agent: true });
    expect(receiptOf(ok)).toEqual({
      success: true,
      payer: env.payer1.address,
      transaction: signature,
      network: agentsApp.network,
      amount: String(PRICE_RESOLVE),
    });
  });
});
