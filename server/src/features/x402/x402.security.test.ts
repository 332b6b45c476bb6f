// Single use, on both dialects: a payment and its reference buy exactly one success, sequentially (a later
// redeemer gets 402) and concurrently (the losers of the race get 409), decided by one atomic INSERT.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { X402_HEADERS } from '@sigil/contract/x402';
import { signRedeemMessage } from '@sigil/client-sdk/x402';
import { describeEachDialect } from '@sigil/test/support/db';
import { receiptOf, startX402App, startX402Chain, type X402App, type X402Chain } from '@sigil/test/support/x402-app';

let env: X402Chain;
beforeAll(async () => {
  env = await startX402Chain();
});
afterAll(async () => {
  await env?.close();
});

describeEachDialect('x402 single use', (ctx) => {
  let app: X402App;
  let seq = 0;
  const fresh = (label: string) => `/v1/resolve/${label}-${ctx.dialect}-${++seq}`;

  beforeAll(async () => {
    app = await startX402App(env, { dialect: ctx.dialect, database: ctx.database });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('sequential replay of a payment → 402 PAYMENT_ALREADY_USED (on the same or another request)', async () => {
    const path = fresh('replay');
    const { signature, payerSig } = await app.paid(path, env.payer1);
    const first = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(first.status).toBe(200);
    const again = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(again.status).toBe(402);
    expect(again.body).toMatchObject({ code: 'PAYMENT_ALREADY_USED', error: 'PAYMENT_ALREADY_USED' });
    const elsewhere = await app.redeem(fresh('replay-elsewhere'), { payer: env.payer1.address, signature, payerSig });
    expect(elsewhere.status).toBe(402);
    expect(elsewhere.body.code).toBe('PAYMENT_ALREADY_USED');
  });

  it('a second payment for an already redeemed reference → 402 REFERENCE_REUSED (by signature and by reference)', async () => {
    const path = fresh('reuse');
    const { entry, signature, payerSig } = await app.paid(path, env.payer1);
    expect((await app.redeem(path, { payer: env.payer1.address, signature, payerSig })).status).toBe(200);
    const second = await app.pay(entry, env.payer1, { computeUnitPrice: 2n });
    await app.finalize();
    const bySignature = await app.redeem(path, { payer: env.payer1.address, signature: second, payerSig });
    expect(bySignature.status).toBe(402);
    expect(bySignature.body.code).toBe('REFERENCE_REUSED');
    const byReference = await app.redeem(path, {
      payer: env.payer1.address,
      reference: entry.extra.reference,
      payerSig,
    });
    expect(byReference.status).toBe(402);
    expect(byReference.body.code).toBe('REFERENCE_REUSED');
  });

  it('concurrent redeemers of one payment: exactly one 200, every other 409 PAYMENT_ALREADY_USED', async () => {
    const path = fresh('slow-race');
    const { signature, payerSig } = await app.paid(path, env.payer1);
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => app.redeem(path, { payer: env.payer1.address, signature, payerSig })),
    );
    const winners = replies.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(receiptOf(winners[0]!)?.transaction).toBe(signature);
    for (const loser of replies.filter((r) => r.status !== 200)) {
      expect(loser.status).toBe(409);
      expect(loser.body).toEqual({
        code: 'PAYMENT_ALREADY_USED',
        message: 'a concurrent request redeemed this payment first; pay again',
      });
      expect(loser.headers.get(X402_HEADERS.response)).toBeNull();
    }
    const rows = await ctx.db.selectFrom('x402_payments').selectAll().where('signature', '=', signature).execute();
    expect(rows).toHaveLength(1);
  });

  it('two payments for one reference redeemed concurrently: one 200, the other 409 REFERENCE_REUSED', async () => {
    const path = fresh('slow-refrace');
    const { entry } = await app.challenge(path, env.payer1.address);
    const a = await app.pay(entry, env.payer1, { computeUnitPrice: 1n });
    const b = await app.pay(entry, env.payer1, { computeUnitPrice: 3n });
    await app.finalize();
    const payerSig = await signRedeemMessage(env.payer1, entry.extra.redeemMessage!);
    const [ra, rb] = await Promise.all([
      app.redeem(path, { payer: env.payer1.address, signature: a, payerSig }),
      app.redeem(path, { payer: env.payer1.address, signature: b, payerSig }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const loser = ra.status === 409 ? ra : rb;
    expect(loser.body).toEqual({
      code: 'REFERENCE_REUSED',
      message: 'a concurrent request redeemed this reference first; request a fresh challenge',
    });
    const rows = await ctx.db
      .selectFrom('x402_payments')
      .selectAll()
      .where('reference', '=', entry.extra.reference!)
      .execute();
    expect(rows).toHaveLength(1);
  });
});
