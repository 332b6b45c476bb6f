// The facilitator rail's failures, each produced by a real fault: the facilitator down (its server closed) →
// 502 X402_FACILITATOR_ERROR; settlement slower than SIGIL_X402_FACILITATOR_TIMEOUT_MS (the chain delays the
// facilitator's sendTransaction) → 502 X402_SETTLE_TIMEOUT, then the same payment presented again is served without
// a second charge; settlement refused (the chain rejects the facilitator's sendTransaction) → 402 SETTLEMENT_FAILED.
// None consumes the payment: afterwards the same payment buys the response. Duplicate settlement is refused through
// the database, across two service instances sharing it (SQLite and Postgres). Payments come from the stock
// `@x402/fetch` client (its x402HTTPClient builds the header; the test sends it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { KeyPairSigner } from '@solana/kit';
import { X402_HEADERS, decodeBase64Json } from '@sigil/contract/x402';
import { SOLANA_DEVNET_GENESIS_HASH } from '../../server/src/localchain/index';
import {
  startLocalFacilitator,
  startLocalFacilitatorRail,
  type LocalFacilitator,
  type LocalFacilitatorRail,
} from '../../server/src/localchain/facilitator';
import { createDatabase, type DatabaseHandle } from '../../server/src/platform/db/index';
import { describeEachDialect } from '../support/db';
import {
  PRICE_RESOLVE,
  handlerCalls,
  startX402App,
  type X402App,
  type X402Chain,
  startX402Chain,
} from '../support/x402-app';
import { payeeBalance, payeeBalanceMoved } from '../support/facilitator-payee';

let env: X402Chain;
let rail: LocalFacilitatorRail;

beforeAll(async () => {
  // 100 ms slots: a blockhash stays valid ~15 s, longer than the slow settlement below (9 s).
  env = await startX402Chain({ autoAdvance: true, genesisHash: SOLANA_DEVNET_GENESIS_HASH, slotMs: 100 });
  rail = await startLocalFacilitatorRail(env.chain);
}, 90_000);
afterAll(async () => {
  await rail?.close();
  await env?.close();
});

const railVars = (facilitatorUrl: string, extra: Record<string, string> = {}) => ({
  SIGIL_X402_PAY_TO: rail.payTo,
  SIGIL_X402_ASSET: rail.asset,
  SIGIL_X402_FACILITATOR_URL: facilitatorUrl,
  ...extra,
});

const balance = () => payeeBalance(env, rail);

/** The stock client's payment for `path` on `app`: the PAYMENT-SIGNATURE header it would send (not sent here). */
async function stockPayment(app: X402App, path: string, payer: KeyPairSigner): Promise<Record<string, string>> {
  const client = new x402Client().register('solana:*', new ExactSvmScheme(payer, { rpcUrl: env.chain.url }));
  const http = new x402HTTPClient(client);
  const res = await fetch(app.base + path);
  expect(res.status).toBe(402);
  const required = http.getPaymentRequiredResponse((name) => res.headers.get(name), await res.json());
  return http.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

/** Like stockPayment, but the stock client pays a challenge the test altered first (a tampering buyer). */
async function tamperedPayment(
  app: X402App,
  path: string,
  payer: KeyPairSigner,
  alter: (entry: Record<string, unknown>) => void,
): Promise<Record<string, string>> {
  const client = new x402Client().register('solana:*', new ExactSvmScheme(payer, { rpcUrl: env.chain.url }));
  const http = new x402HTTPClient(client);
  const res = await fetch(app.base + path);
  const required = http.getPaymentRequiredResponse((name) => res.headers.get(name), await res.json());
  alter(required.accepts[0] as unknown as Record<string, unknown>);
  return http.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

const balanceMoved = (from: bigint) => payeeBalanceMoved(env, rail, from);

describe('x402 facilitator rail: faults', () => {
  let app: X402App;
  beforeAll(async () => {
    app = await startX402App(env, { dialect: 'sqlite', vars: railVars(rail.facilitator.url) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('facilitator down → 502 X402_FACILITATOR_ERROR; nothing consumed: the same payment then buys the response', async () => {
    // A second facilitator on the same chain (same fee payer), used by a second service, then stopped.
    let doomed: LocalFacilitator | undefined = await startLocalFacilitator({
      rpcUrl: env.chain.url,
      networks: ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'],
    });
    const other = await startX402App(env, { dialect: 'sqlite', vars: railVars(doomed.url) });
    try {
      const payment = await stockPayment(other, '/v1/resolve/down-1', env.payer1);
      await doomed.close();
      doomed = undefined;
      const before = await balance();
      const r = await other.get('/v1/resolve/down-1', payment);
      expect(r.status).toBe(502);
      expect(r.body).toEqual({
        code: 'X402_FACILITATOR_ERROR',
        message: expect.stringMatching(/^facilitator \/verify unreachable .*retry the identical request/),
      });
      expect(handlerCalls.get('down-1')).toBeUndefined();
      // Not consumed: the service whose facilitator is up takes the same payment.
      const ok = await app.get('/v1/resolve/down-1', payment);
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(await balance()).toBe(before + PRICE_RESOLVE);
    } finally {
      await doomed?.close();
      await other.close();
    }
  });

  it('settlement past the timeout → 502 X402_SETTLE_TIMEOUT; the same payment again → 200, charged once', async () => {
    const slow = await startX402App(env, {
      dialect: 'sqlite',
      vars: railVars(rail.facilitator.url, { SIGIL_X402_FACILITATOR_TIMEOUT_MS: '3000' }),
    });
    try {
      const payment = await stockPayment(slow, '/v1/resolve/slow-settle', env.payer1);
      const before = await balance();
      env.chain.faults.set({ delayMs: 9_000, methods: ['sendTransaction'] });
      const r = await slow.get('/v1/resolve/slow-settle', payment);
      expect(r.status).toBe(502);
      expect(r.body).toEqual({
        code: 'X402_SETTLE_TIMEOUT',
        message: expect.stringMatching(/^facilitator \/settle did not answer within 3000 ms; retry the identical/),
      });
      expect(r.headers.get(X402_HEADERS.response)).toBeNull();
      // Retried while the first settlement is still in flight: the facilitator refuses a duplicate, nothing is
      // served, nothing charged twice; the payment stays resumable.
      const early = await slow.get('/v1/resolve/slow-settle', payment);
      expect(early.status).toBe(502);
      expect(early.body).toEqual({
        code: 'X402_SETTLE_TIMEOUT',
        message:
          'the settlement started earlier is not confirmed yet (duplicate_settlement); retry the identical request ' +
          'with the same payment within 600 s: it is not charged twice',
      });
      // The facilitator's transaction lands after all: the buyer is charged and has no response yet.
      const charged = await balanceMoved(before);
      expect(charged).toBe(before + PRICE_RESOLVE);
      env.chain.faults.clear();
      // Recovery: the identical request with the same payment is served; no second charge.
      const again = await slow.get('/v1/resolve/slow-settle', payment);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      const receipt = decodeBase64Json(again.headers.get(X402_HEADERS.response)!) as Record<string, string>;
      expect(receipt).toMatchObject({ success: true, payer: env.payer1.address, amount: String(PRICE_RESOLVE) });
      expect(await balance()).toBe(charged);
      // Served once: a third presentation is refused.
      const third = await slow.get('/v1/resolve/slow-settle', payment);
      expect(third.status).toBe(402);
      expect(third.body.code).toBe('PAYMENT_ALREADY_USED');
    } finally {
      env.chain.faults.clear();
      await slow.close();
    }
  });

  it('settlement refused → 402 SETTLEMENT_FAILED with a fresh challenge; nothing charged; the payment still works', async () => {
    const payment = await stockPayment(app, '/v1/resolve/refused', env.payer2);
    const before = await balance();
    env.chain.faults.set({ rpcError: { code: -32002, message: 'Blockhash not found' }, methods: ['sendTransaction'] });
    let r;
    try {
      r = await app.get('/v1/resolve/refused', payment);
    } finally {
      env.chain.faults.clear();
    }
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({
      x402Version: 1,
      error: 'SETTLEMENT_FAILED',
      code: 'SETTLEMENT_FAILED',
      message: 'the facilitator did not settle the payment: invalid_exact_svm_transaction_failed; pay again',
    });
    const header = decodeBase64Json(r.headers.get(X402_HEADERS.required)!) as any;
    expect(header).toMatchObject({ x402Version: 2, code: 'SETTLEMENT_FAILED' });
    expect(await balance()).toBe(before);
    const ok = await app.get('/v1/resolve/refused', payment);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await balance()).toBe(before + PRICE_RESOLVE);
  });

  it('503 METERING_UNAVAILABLE when the settlement store fails after the handler: nothing settled, nothing charged', async () => {
    const payment = await stockPayment(app, '/v1/resolve/nostore-1', env.payer2);
    const before = await balance();
    try {
      const r = await app.get('/v1/resolve/nostore-1', payment); // the handler takes the settlement table away
      expect(handlerCalls.get('nostore-1')).toBe(1);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({
        code: 'METERING_UNAVAILABLE',
        message:
          'the payment store failed; the response is withheld; retry the identical request with the same payment ' +
          'within 600 s (it is not charged twice)',
      });
      expect(r.headers.get(X402_HEADERS.response)).toBeNull();
    } finally {
      await app.database.db.schema.alterTable('x402_settlements_off').renameTo('x402_settlements').execute();
    }
    expect(await balance()).toBe(before);
    const ok = await app.get('/v1/resolve/nostore-1', payment);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await balance()).toBe(before + PRICE_RESOLVE);
  });

  it('a handler failure (404) settles nothing: the payment is not charged and buys the response later', async () => {
    const payment = await stockPayment(app, '/v1/resolve/flaky-fac', env.payer2);
    const before = await balance();
    const r = await app.get('/v1/resolve/flaky-fac', payment);
    expect(r.status).toBe(404);
    expect(await balance()).toBe(before);
    const ok = await app.get('/v1/resolve/flaky-fac', payment);
    expect(ok.status).toBe(200);
    expect(await balance()).toBe(before + PRICE_RESOLVE);
  });

  it("the quote is Sigil's, not the client's copy: a lowered amount or another payTo → 402 PAYMENT_INVALID", async () => {
    const before = await balance();
    const cheap = await tamperedPayment(app, '/v1/resolve/tamper', env.payer2, (e) => (e.amount = '1'));
    const r1 = await app.get('/v1/resolve/tamper', cheap);
    expect(r1.status).toBe(402);
    expect(r1.body).toMatchObject({
      code: 'PAYMENT_INVALID',
      message: expect.stringMatching(/^the facilitator refused the payment: /),
    });
    const elsewhere = await tamperedPayment(
      app,
      '/v1/resolve/tamper',
      env.payer2,
      (e) => (e.payTo = env.payTo.address),
    );
    const r2 = await app.get('/v1/resolve/tamper', elsewhere);
    expect(r2.status).toBe(402);
    expect(r2.body.code).toBe('PAYMENT_INVALID');
    expect(handlerCalls.get('tamper')).toBeUndefined();
    expect(await balance()).toBe(before);
  });

  it('a payment for another network, or a transaction that does not decode → 402 with the code', async () => {
    const payment = await stockPayment(app, '/v1/resolve/bad-net', env.payer2);
    const json = decodeBase64Json(payment[X402_HEADERS.payment]!) as any;
    const reencode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
    const wrongNet = { ...json, accepted: { ...json.accepted, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' } };
    const r1 = await app.get('/v1/resolve/bad-net', { [X402_HEADERS.payment]: reencode(wrongNet) });
    expect(r1.status).toBe(402);
    expect(r1.body.code).toBe('PAYMENT_NETWORK_UNSUPPORTED');
    const garbage = { ...json, payload: { transaction: 'AAAA' } };
    const r2 = await app.get('/v1/resolve/bad-net', { [X402_HEADERS.payment]: reencode(garbage) });
    expect(r2.status).toBe(402);
    expect(r2.body.code).toBe('PAYMENT_PAYLOAD_INVALID');
  });
});

describeEachDialect('x402 facilitator rail: one payment, one response, across instances', (ctx) => {
  let one: X402App;
  let two: X402App;
  let secondHandle: DatabaseHandle;
  beforeAll(async () => {
    // Two service instances on one database, each through its own connection (its own SQLite handle / pg pool),
    // as two replicas would be.
    secondHandle = createDatabase({ url: ctx.url });
    one = await startX402App(env, {
      dialect: ctx.dialect,
      database: ctx.database,
      vars: railVars(rail.facilitator.url),
    });
    two = await startX402App(env, {
      dialect: ctx.dialect,
      database: { ...ctx.database, db: secondHandle.db },
      vars: railVars(rail.facilitator.url),
    });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await secondHandle?.close();
  });

  it('a payment served by one instance is refused by the other (402 PAYMENT_ALREADY_USED), for any request', async () => {
    const sent: Headers[] = [];
    const spy = (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      sent.push(request.headers);
      return fetch(request);
    };
    const client = new x402Client().register('solana:*', new ExactSvmScheme(env.payer1, { rpcUrl: env.chain.url }));
    const path = `/v1/resolve/dup-${ctx.dialect}`;
    const res = await wrapFetchWithPayment(spy, client)(one.base + path);
    expect(res.status).toBe(200);
    const header = sent.at(-1)!.get(X402_HEADERS.payment)!;
    const before = await balance();
    for (const [app, target] of [
      [two, path],
      [one, path],
      [two, `/v1/resolve/other-${ctx.dialect}`],
    ] as const) {
      const r = await app.get(target, { [X402_HEADERS.payment]: header });
      expect(r.status).toBe(402);
      expect(r.body).toMatchObject({ code: 'PAYMENT_ALREADY_USED' });
    }
    expect(await balance()).toBe(before);
  });

  it('the same payment sent to both instances at once: one 200, the other refused; charged once', async () => {
    const path = `/v1/resolve/slow-race-${ctx.dialect}`;
    const payment = await stockPayment(one, path, env.payer2);
    const before = await balance();
    const answers = await Promise.all([one.get(path, payment), two.get(path, payment)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses[0]).toBe(200);
    expect([402, 409]).toContain(statuses[1]);
    expect(answers.find((a) => a.status !== 200)!.body.code).toBe('PAYMENT_ALREADY_USED');
    expect(await balanceMoved(before)).toBe(before + PRICE_RESOLVE);
  });
});
