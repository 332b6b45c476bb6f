// Every error row of the spec's x402 table, each produced by a real (mis)payment on the local chain or a real
// request over HTTP. Where the payment is still good (handler failure, bad payerSig, not finalized, RPC or store
// down), the test then proves nothing was consumed by redeeming the same payment successfully.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AccountRole,
  generateKeyPairSigner,
  getAddressEncoder,
  getU16Encoder,
  getU64Encoder,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { getAddMemoInstruction } from '@solana-program/memo';
import { X402_HEADERS, decodeBase64Json } from '@sigil/contract/x402';
import { awayFromMinuteEdge } from '@sigil/test/support/ratelimit-usage';
import {
  sendInstructions,
  signRedeemMessage,
  wrapNativeInstructions,
  wrappedNativeAccount,
  WRAPPED_NATIVE_MINT,
} from '@sigil/client-sdk/x402';
import {
  SPL_MEMO_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from '../../platform/chain/programs';
import {
  handlerCalls,
  PRICE_RESOLVE,
  receiptOf,
  startX402App,
  startX402Chain,
  type Reply,
  type X402App,
  type X402Chain,
} from '@sigil/test/support/x402-app';

const MEMO_PROGRAM = SPL_MEMO_PROGRAM_ADDRESS;

let env: X402Chain;
let app: X402App;
let seq = 0;
/** A fresh path per test: each test has its own request, reference and payment. */
const fresh = (label: string) => `/v1/resolve/${label}-${++seq}`;

beforeAll(async () => {
  env = await startX402Chain();
  app = await startX402App(env, { dialect: 'sqlite' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  env.chain.faults.clear();
});

/** A 402 rejection: code in both `error` and `code`, a message, and a fresh challenge in body and header. */
function expectRejection(r: Reply, code: string, status = 402) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.code).toBe(code);
  expect(r.body.error).toBe(code);
  expect(typeof r.body.message).toBe('string');
  expect(r.body.accepts).toHaveLength(1);
  expect(decodeBase64Json(r.headers.get(X402_HEADERS.required)!)).toEqual(r.body);
  expect(r.headers.get(X402_HEADERS.response)).toBeNull();
}

/** Pays `path` with payer1, reshaping the payment, and redeems it by signature. */
async function misPay(
  path: string,
  shape: Parameters<X402App['pay']>[2] & { entry?: (e: any) => any; by?: KeyPairSigner } = {},
): Promise<{ reply: Reply; signature: string; reference: string }> {
  const { entry } = await app.challenge(path, env.payer1.address);
  const paid = shape.entry ? shape.entry(entry) : entry;
  const signature = await app.pay(paid, shape.by ?? env.payer1, shape);
  await app.finalize();
  const payerSig = await signRedeemMessage(env.payer1, entry.extra.redeemMessage!);
  const reply = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
  return { reply, signature, reference: entry.extra.reference! };
}

const transferIndex = 2;
function withTransferAccounts(
  ixs: Instruction[],
  accounts: (list: NonNullable<Instruction['accounts']>) => NonNullable<Instruction['accounts']>,
) {
  const out = [...ixs];
  out[transferIndex] = { ...out[transferIndex]!, accounts: accounts(out[transferIndex]!.accounts!) };
  return out;
}

describe('request and payload errors', () => {
  it('PAYER_REQUIRED: redeeming without X-Payer', async () => {
    const path = fresh('no-payer');
    const { signature, payerSig } = await app.paid(path, env.payer1);
    const r = await app.redeem(path, { signature, payerSig });
    expectRejection(r, 'PAYER_REQUIRED');
    expect(r.body.accepts[0].extra.reference).toBeUndefined();
  });

  it('PAYMENT_PAYLOAD_INVALID: a header that is not base64 JSON with payload.signature or payload.reference', async () => {
    const path = fresh('payload');
    for (const rawHeader of [
      'not base64!!',
      Buffer.from('{"x402Version":2}').toString('base64'),
      Buffer.from('[1]').toString('base64'),
    ]) {
      const r = await app.redeem(path, { payer: env.payer1.address, rawHeader });
      expectRejection(r, 'PAYMENT_PAYLOAD_INVALID');
      expect(r.body.accepts[0].extra.reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    }
  });

  it('PAYMENT_NETWORK_UNSUPPORTED: a payload naming another network', async () => {
    const path = fresh('network');
    const { signature, payerSig } = await app.paid(path, env.payer1);
    const r = await app.redeem(path, {
      payer: env.payer1.address,
      signature,
      payerSig,
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    });
    expectRejection(r, 'PAYMENT_NETWORK_UNSUPPORTED');
    expect((await app.redeem(path, { payer: env.payer1.address, signature, payerSig })).status).toBe(200);
  });

  it('400 PAYMENT_HEADER_CONFLICT: both payment headers, different values', async () => {
    const path = fresh('conflict');
    const { signature, payerSig } = await app.paid(path, env.payer1);
    const r = await app.redeem(path, {
      payer: env.payer1.address,
      signature,
      payerSig,
      headers: { [X402_HEADERS.legacyPayment]: 'b3RoZXI=' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 'PAYMENT_HEADER_CONFLICT',
      message: 'PAYMENT-SIGNATURE and X-PAYMENT are both present and differ: send one',
    });
    expect((await app.redeem(path, { payer: env.payer1.address, signature, payerSig })).status).toBe(200);
  });

  it('429 RATE_LIMITED: too many unauthenticated payment requests from one address', async () => {
    const limited = await startX402App(env, { dialect: 'sqlite', vars: { SIGIL_X402_IP_LIMIT_PER_MINUTE: '3' } });
    try {
      await awayFromMinuteEdge(5_000); // the limiter's window is the UTC minute: four requests in one
      for (let i = 0; i < 3; i++) expect((await limited.get('/v1/resolve/alice')).status).toBe(402);
      const r = await limited.get('/v1/resolve/alice', { [X402_HEADERS.payer]: env.payer1.address });
      expect(r.status).toBe(429);
      expect(r.body.code).toBe('RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // A keyed request is not limited by it.
      expect((await limited.get('/v1/resolve/alice', { 'x-api-key': limited.keySecret })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('redeem signature', () => {
  it('REDEEM_SIGNATURE_REQUIRED: no payload.payerSig; the same payment then redeems (not consumed)', async () => {
    const path = fresh('nosig');
    const { entry, signature, payerSig } = await app.paid(path, env.payer1);
    const r = await app.redeem(path, { payer: env.payer1.address, signature });
    expectRejection(r, 'REDEEM_SIGNATURE_REQUIRED');
    // The challenge points at the same reference: sign it and resend the same payment.
    expect(r.body.accepts[0].extra.reference).toBe(entry.extra.reference);
    expect((await app.redeem(path, { payer: env.payer1.address, signature, payerSig })).status).toBe(200);
  });

  it('REDEEM_SIGNATURE_INVALID: another wallet, another message, or not a signature; then the right one works', async () => {
    const path = fresh('badsig');
    const { entry, signature, payerSig } = await app.paid(path, env.payer1);
    const wrong = [
      await signRedeemMessage(env.payer2, entry.extra.redeemMessage!),
      await signRedeemMessage(env.payer1, `${entry.extra.redeemMessage!}x`),
      'not-a-signature',
    ];
    for (const sig of wrong) {
      const r = await app.redeem(path, { payer: env.payer1.address, signature, payerSig: sig });
      expectRejection(r, 'REDEEM_SIGNATURE_INVALID');
    }
    expect((await app.redeem(path, { payer: env.payer1.address, signature, payerSig })).status).toBe(200);
  });
});

describe('payment transaction errors (real mispayments)', () => {
  it('PAYMENT_WRONG_ASSET: pays in another mint (USDX)', async () => {
    const { reply } = await misPay(fresh('mint'), { entry: (e) => ({ ...e, asset: env.usdx }) });
    expectRejection(reply, 'PAYMENT_WRONG_ASSET');
  });

  it("PAYMENT_WRONG_DESTINATION: pays to another wallet's token account", async () => {
    const { reply } = await misPay(fresh('dest'), { entry: (e) => ({ ...e, payTo: env.payer2.address }) });
    expectRejection(reply, 'PAYMENT_WRONG_DESTINATION');
  });

  it('PAYMENT_AMOUNT_TOO_LOW: one base unit short', async () => {
    const { reply } = await misPay(fresh('short'), { entry: (e) => ({ ...e, amount: String(PRICE_RESOLVE - 1n) }) });
    expectRejection(reply, 'PAYMENT_AMOUNT_TOO_LOW');
    expect(reply.body.message).toBe('payment transfers 6999, 7000 required');
  });

  it('PAYMENT_LAYOUT_INVALID: a memo instruction added', async () => {
    const { reply } = await misPay(fresh('memo'), {
      reshape: (ixs) => [...ixs, getAddMemoInstruction({ memo: 'hi' }, { programAddress: MEMO_PROGRAM })],
    });
    expectRejection(reply, 'PAYMENT_LAYOUT_INVALID');
    expect(reply.body.message).toBe(
      `only compute-budget and token instructions are allowed; found program ${MEMO_PROGRAM}`,
    );
  });

  it('PAYMENT_LAYOUT_INVALID: a second transfer to payTo', async () => {
    const [source] = await findAssociatedTokenPda({
      owner: env.payer1.address,
      mint: WRAPPED_NATIVE_MINT,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const destination = await wrappedNativeAccount(env.payTo.address);
    const { reply } = await misPay(fresh('second'), {
      reshape: (ixs) => [
        ...ixs,
        getTransferCheckedInstruction({
          source,
          mint: WRAPPED_NATIVE_MINT,
          destination,
          authority: env.payer1,
          amount: 1n,
          decimals: 9,
        }),
      ],
    });
    expectRejection(reply, 'PAYMENT_LAYOUT_INVALID');
    expect(reply.body.message).toBe(
      'expected exactly 3 instructions (SetComputeUnitLimit, SetComputeUnitPrice, TransferChecked), found 4',
    );
  });

  it('PAYMENT_LAYOUT_INVALID: compute-unit limit 40,001', async () => {
    const { reply } = await misPay(fresh('cu'), { computeUnitLimit: 40_001 });
    expectRejection(reply, 'PAYMENT_LAYOUT_INVALID');
    expect(reply.body.message).toBe('compute-unit limit 40001 is above 40000');
  });

  it('PAYMENT_LAYOUT_INVALID: compute-unit price over the 5,000,000 micro-lamport cap', async () => {
    const { reply } = await misPay(fresh('price'), { computeUnitPrice: 5_000_001n });
    expectRejection(reply, 'PAYMENT_LAYOUT_INVALID');
    expect(reply.body.message).toBe('compute-unit price 5000001 micro-lamports is above 5000000');
  });

  it('PAYMENT_FAILED: the payment landed with an error (insufficient wrapped balance)', async () => {
    const poor = await generateKeyPairSigner();
    await env.chain.airdrop(poor.address, 100_000_000n);
    await sendInstructions(
      env.chain.rpc,
      poor,
      wrapNativeInstructions(poor, await wrappedNativeAccount(poor.address), 1n),
    );
    const path = fresh('failed');
    const { entry } = await app.challenge(path, poor.address);
    const signature = await app.pay(entry, poor, { skipPreflight: true });
    await app.finalize();
    const tx = await env.chain.rpc
      .getTransaction(signature, { commitment: 'finalized', maxSupportedTransactionVersion: 0, encoding: 'json' })
      .send();
    expect(tx?.meta?.err).not.toBeNull();
    const r = await app.redeem(path, {
      payer: poor.address,
      signature,
      payerSig: await signRedeemMessage(poor, entry.extra.redeemMessage!),
    });
    expectRejection(r, 'PAYMENT_FAILED');
  });

  it('PAYER_MISMATCH: the payment is signed by another wallet than the one bound with X-Payer', async () => {
    const { reply } = await misPay(fresh('payer'), { by: env.payer2 });
    expectRejection(reply, 'PAYER_MISMATCH');
  });

  it('fee-mint shortfall → PAYMENT_AMOUNT_TOO_LOW: a Token-2022 transfer-fee mint leaves payTo short', async () => {
    const feeMint = await createTransferFeeMint(env, 1_000); // 10 %
    const feeApp = await startX402App(env, { dialect: 'sqlite', vars: { SIGIL_X402_ASSET: feeMint } });
    try {
      const path = '/v1/resolve/fee-mint';
      const { entry } = await feeApp.challenge(path, env.payer1.address);
      expect(entry.asset).toBe(feeMint);
      const signature = await feeApp.pay(entry, env.payer1);
      await feeApp.finalize();
      const r = await feeApp.redeem(path, {
        payer: env.payer1.address,
        signature,
        payerSig: await signRedeemMessage(env.payer1, entry.extra.redeemMessage!),
      });
      expectRejection(r, 'PAYMENT_AMOUNT_TOO_LOW');
      expect(r.body.message).toBe('payTo was credited 6300, 7000 required (transfer fees count)');
    } finally {
      await feeApp.close();
    }
  });
});

describe('reference errors', () => {
  it('REFERENCE_MISSING: no reference appended', async () => {
    const { reply } = await misPay(fresh('ref-none'), {
      reshape: (ixs) => withTransferAccounts(ixs, (a) => a.slice(0, 4)),
    });
    expectRejection(reply, 'REFERENCE_MISSING');
  });

  it('REFERENCE_MISSING: the reference appended writable', async () => {
    const { reply } = await misPay(fresh('ref-writable'), {
      reshape: (ixs) =>
        withTransferAccounts(ixs, (a) => [...a.slice(0, 4), { address: a[4]!.address, role: AccountRole.WRITABLE }]),
    });
    expectRejection(reply, 'REFERENCE_MISSING');
    expect(reply.body.message).toBe('reference must be read-only');
  });

  it('REFERENCE_MISSING: the reference appended twice', async () => {
    const { reply } = await misPay(fresh('ref-twice'), {
      reshape: (ixs) => withTransferAccounts(ixs, (a) => [...a, a[4]!]),
    });
    expectRejection(reply, 'REFERENCE_MISSING');
    expect(reply.body.message).toBe('reference is appended more than once');
  });

  // The reference is a SHA-256 output, not a public key anyone holds the secret of, so no real transaction can carry
  // it as a signer: that rule is proven on a signed-by-a-keypair stand-in in payment-tx.test.ts ("signer").

  it('REFERENCE_MISMATCH: a reference issued for another request', async () => {
    const other = await app.challenge(fresh('ref-other-a'), env.payer1.address);
    const path = fresh('ref-other-b');
    const { entry } = await app.challenge(path, env.payer1.address);
    const signature = await app.pay(other.entry, env.payer1);
    await app.finalize();
    const r = await app.redeem(path, {
      payer: env.payer1.address,
      signature,
      payerSig: await signRedeemMessage(env.payer1, entry.extra.redeemMessage!),
    });
    expectRejection(r, 'REFERENCE_MISMATCH');
    // Named directly by payload.reference, too.
    const byRef = await app.redeem(path, {
      payer: env.payer1.address,
      reference: other.entry.extra.reference,
      payerSig: await signRedeemMessage(env.payer1, other.entry.extra.redeemMessage!),
    });
    expectRejection(byRef, 'REFERENCE_MISMATCH');
  });

  it('REFERENCE_EXPIRED: redeemed after the 600 s window of the reference', async () => {
    const path = fresh('expired');
    const realNow = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(realNow - 601_000); // the challenge was issued 601 s ago
    const { entry } = await app.challenge(path, env.payer1.address);
    vi.restoreAllMocks();
    const signature = await app.pay(entry, env.payer1);
    await app.finalize();
    const r = await app.redeem(path, {
      payer: env.payer1.address,
      signature,
      payerSig: await signRedeemMessage(env.payer1, entry.extra.redeemMessage!),
    });
    expectRejection(r, 'REFERENCE_EXPIRED');
    expect(r.body.accepts[0].extra.reference).not.toBe(entry.extra.reference);
  });

  it('PAYMENT_STALE: the reference is live but the payment found for it is older than 600 s', async () => {
    const path = fresh('stale');
    const realNow = Date.now();
    // The server's clock runs 1,000 s ahead while issuing and redeeming; the chain's block time stays real.
    vi.spyOn(Date, 'now').mockReturnValue(realNow + 1_000_000);
    const { entry } = await app.challenge(path, env.payer1.address);
    vi.restoreAllMocks();
    const signature = await app.pay(entry, env.payer1);
    await app.finalize();
    const payerSig = await signRedeemMessage(env.payer1, entry.extra.redeemMessage!);
    vi.spyOn(Date, 'now').mockReturnValue(realNow + 1_005_000);
    const r = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    vi.restoreAllMocks();
    expectRejection(r, 'PAYMENT_STALE');
  });
});

describe('retryable: nothing is consumed', () => {
  it('PAYMENT_NOT_FINALIZED: redeemed while only confirmed; the identical retry after finality succeeds', async () => {
    const path = fresh('unfinal');
    const { entry } = await app.challenge(path, env.payer1.address);
    const signature = await app.pay(entry, env.payer1);
    await env.chain.advance(1); // confirmed, not finalized
    const payerSig = await signRedeemMessage(env.payer1, entry.extra.redeemMessage!);
    const r = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expectRejection(r, 'PAYMENT_NOT_FINALIZED');
    expect(r.body.accepts[0].extra.reference).toBe(entry.extra.reference);
    // By reference, too: no finalized transaction lists it yet.
    expectRejection(
      await app.redeem(path, { payer: env.payer1.address, reference: entry.extra.reference, payerSig }),
      'PAYMENT_NOT_FINALIZED',
    );
    await app.finalize();
    const ok = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(ok.status).toBe(200);
    expect(receiptOf(ok)?.transaction).toBe(signature);
  });

  it('handler 404 consumes nothing; a successful retry with the same payment then gets 200', async () => {
    const path = fresh('flaky');
    const { signature, payerSig } = await app.paid(path, env.payer1);
    const first = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(first.status).toBe(404);
    expect(first.body).toEqual({ code: 'NOT_FOUND', message: 'no such name' });
    expect(first.headers.get(X402_HEADERS.response)).toBeNull();
    const again = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(again.status).toBe(200);
    expect(receiptOf(again)?.transaction).toBe(signature);
  });

  it('402 VERIFIER_UNAVAILABLE when the RPC is down; the identical retry succeeds once it is back', async () => {
    const path = fresh('rpcdown');
    const { signature, payerSig } = await app.paid(path, env.payer1);
    env.chain.faults.set({ unreachable: true });
    const r = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expectRejection(r, 'VERIFIER_UNAVAILABLE');
    env.chain.faults.clear();
    expect((await app.redeem(path, { payer: env.payer1.address, signature, payerSig })).status).toBe(200);
  });

  it('503 METERING_UNAVAILABLE when the payment store fails before the handler; retry succeeds', async () => {
    const path = fresh('storedown');
    const { signature, payerSig } = await app.paid(path, env.payer1);
    const db = app.database.db;
    await db.schema.alterTable('x402_payments').renameTo('x402_payments_off').execute();
    try {
      const r = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
      expect(r.status).toBe(503);
      expect(r.body).toEqual({
        code: 'METERING_UNAVAILABLE',
        message: 'the payment store failed; retry the identical request (nothing was consumed)',
      });
      expect(handlerCalls.get(path.split('/').pop()!)).toBeUndefined();
    } finally {
      await db.schema.alterTable('x402_payments_off').renameTo('x402_payments').execute();
    }
    expect((await app.redeem(path, { payer: env.payer1.address, signature, payerSig })).status).toBe(200);
  });

  it('503 METERING_UNAVAILABLE when consuming fails after the handler: the response is withheld; retry succeeds', async () => {
    const name = `withhold-${++seq}`;
    const path = `/v1/resolve/${name}`;
    const { signature, payerSig } = await app.paid(path, env.payer1);
    const db = app.database.db;
    try {
      const r = await app.redeem(path, { payer: env.payer1.address, signature, payerSig }); // the handler takes the table away
      expect(handlerCalls.get(name)).toBe(1);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({
        code: 'METERING_UNAVAILABLE',
        message:
          'the payment store failed; the response is withheld; retry the identical request (nothing was consumed)',
      });
      expect(r.headers.get(X402_HEADERS.response)).toBeNull();
    } finally {
      await db.schema.alterTable('x402_payments_off').renameTo('x402_payments').execute();
    }
    const ok = await app.redeem(path, { payer: env.payer1.address, signature, payerSig });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ name, paidBy: env.payer1.address, keyId: null });
  });
});

/** A Token-2022 mint with a transfer fee of `bps`, payer1 funded with it, payTo holding an account for it. */
async function createTransferFeeMint(env: X402Chain, bps: number): Promise<Address> {
  const { chain, payer1, payTo } = env;
  const mint = await generateKeyPairSigner();
  const space = 278n; // base mint padded to 165 + account type + TransferFeeConfig TLV (4 + 108)
  const lamports = await chain.rpc.getMinimumBalanceForRentExemption(space).send();
  // Token-2022 TransferFeeExtension(26) / InitializeTransferFeeConfig(0): COption<Pubkey> ×2, u16 bps, u64 max fee.
  const data = new Uint8Array([
    26,
    0,
    1,
    ...getAddressEncoder().encode(payer1.address),
    0,
    ...getU16Encoder().encode(bps),
    ...getU64Encoder().encode(1_000_000_000n),
  ]);
  const initFee: Instruction = {
    programAddress: TOKEN_2022_PROGRAM_ADDRESS,
    accounts: [{ address: mint.address, role: AccountRole.WRITABLE }],
    data,
  };
  const [payerAta] = await findAssociatedTokenPda({
    owner: payer1.address,
    mint: mint.address,
    tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
  });
  const [payToAta] = await findAssociatedTokenPda({
    owner: payTo.address,
    mint: mint.address,
    tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
  });
  await sendInstructions(chain.rpc, payer1, [
    getCreateAccountInstruction({
      payer: payer1,
      newAccount: mint,
      lamports,
      space,
      programAddress: TOKEN_2022_PROGRAM_ADDRESS,
    }),
    initFee,
    getInitializeMint2Instruction(
      { mint: mint.address, decimals: 6, mintAuthority: payer1.address, freezeAuthority: null },
      { programAddress: TOKEN_2022_PROGRAM_ADDRESS },
    ),
    getCreateAssociatedTokenIdempotentInstruction({
      payer: payer1,
      ata: payerAta,
      owner: payer1.address,
      mint: mint.address,
      tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
    }),
    getCreateAssociatedTokenIdempotentInstruction({
      payer: payer1,
      ata: payToAta,
      owner: payTo.address,
      mint: mint.address,
      tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
    }),
    getMintToInstruction(
      { mint: mint.address, token: payerAta, mintAuthority: payer1, amount: 1_000_000n },
      { programAddress: TOKEN_2022_PROGRAM_ADDRESS },
    ),
  ]);
  await chain.finalizeAll();
  return mint.address;
}
