// The x402 payer under the client's default retry policy, against the real x402 test app on the local chain: every
// answer the spec says consumed nothing (PAYMENT_NOT_FINALIZED, VERIFIER_UNAVAILABLE, METERING_UNAVAILABLE, a 502, no
// answer) is followed by a redemption of the SAME payment, never by a second payment. Each test counts what payTo
// received on chain (one price = one payment) and lists the service's answers in order. A payment that can no longer
// buy anything (it failed on chain, or was dropped and its blockhash expired) is not kept: the retry pays anew.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  generateKeyPairSigner,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type RpcTransport,
  type Signature,
} from '@solana/kit';
import { createSigilClient, type SigilResult } from '@sigil/client-sdk';
import {
  createX402Fetch,
  sendInstructions,
  waitForFinalized,
  wrapNativeInstructions,
  wrappedNativeAccount,
  type PayOptions,
} from '@sigil/client-sdk/x402';
import { X402_HEADERS } from '@sigil/contract/x402';
import { BLOCKHASH_VALIDITY_SLOTS } from '../../server/src/localchain/ledger';
import {
  handlerCalls,
  PRICE_RESOLVE,
  startX402App,
  startX402Chain,
  type X402App,
  type X402Chain,
} from '../support/x402-app';

let env: X402Chain;
let app: X402App;
let seq = 0;

beforeAll(async () => {
  env = await startX402Chain();
  app = await startX402App(env, { dialect: 'sqlite' });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await env?.close();
});
afterEach(() => env.chain.faults.clear());

const show = (r: SigilResult<unknown>) => JSON.stringify(r.ok ? { status: r.status, data: r.data } : r);

/** What payTo holds in wrapped native tokens: the difference over a call is what that call paid. */
async function received(): Promise<bigint> {
  const account = await wrappedNativeAccount(env.payTo.address);
  return BigInt((await env.chain.rpc.getTokenAccountBalance(account).send()).value.amount);
}

interface Sent {
  redeem: boolean;
  /** The service's status and code, or 'no answer'. */
  answer: string;
}

/**
 * The client as docs/sdk.md sets it up (`createSigilClient({baseUrl, fetch: createX402Fetch(…)})`, default retry),
 * paying with payer1. `around` sees each request the payer sends (redeem: it carries a payment) and may answer it in
 * place of the service (a gateway), or act after the service answered; `sent` lists what happened, in order.
 */
function payingClient(
  around: {
    before?: (redeem: boolean, n: number) => Response | undefined | Promise<Response | undefined>;
    after?: (response: Response) => void | Promise<void>;
  } = {},
  options: Partial<PayOptions> = {},
) {
  const sent: Sent[] = [];
  const recorded = async (url: string, init?: RequestInit): Promise<Response> => {
    const redeem = new Headers(init?.headers).has(X402_HEADERS.payment);
    const entry: Sent = { redeem, answer: 'no answer' };
    sent.push(entry);
    const response = (await around.before?.(redeem, sent.length)) ?? (await fetch(url, init));
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { code?: string } | null;
    entry.answer = `${response.status}${body?.code ? ` ${body.code}` : ''}`;
    await around.after?.(response);
    return response;
  };
  const pay = createX402Fetch({
    rpc: env.chain.rpc,
    payer: env.payer1,
    waitForFinality: (s) => env.chain.waitForFinalized(s),
    fetch: recorded,
    ...options,
  });
  const client = createSigilClient({ baseUrl: app.base, fetch: pay });
  const resolve = (name: string) => client.GET('/v1/resolve/{name}', { params: { path: { name } } });
  return { resolve, sent };
}

/** Whether the request being sent (already listed in `sent`) is the first one carrying a payment. */
const firstRedemption = (redeem: boolean, sent: Sent[]) => redeem && sent.filter((s) => s.redeem).length === 1;

describe('retryable answers redeem the same payment: one payment per call', () => {
  it('503 METERING_UNAVAILABLE (store failed after the handler, response withheld): 402, 503, 200, one payment', async () => {
    const name = `withhold-${++seq}`; // the handler takes the payments table away, so consuming fails
    const { resolve, sent } = payingClient({
      after: async (response) => {
        if (response.status === 503) {
          await app.database.db.schema.alterTable('x402_payments_off').renameTo('x402_payments').execute();
        }
      },
    });
    const before = await received();
    const result = await resolve(name);
    expect(result.ok && result.data, show(result)).toEqual({ name, paidBy: env.payer1.address, keyId: null });
    expect(sent.map((s) => s.answer)).toEqual(['402', '503 METERING_UNAVAILABLE', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE); // two redemptions of one payment
    expect(handlerCalls.get(name)).toBe(2);
  });

  it('402 VERIFIER_UNAVAILABLE (the RPC down while verifying): the same payment is redeemed once it is back', async () => {
    const { resolve, sent } = payingClient({
      before: (redeem) => {
        if (firstRedemption(redeem, sent)) env.chain.faults.set({ unreachable: true });
        return undefined;
      },
      after: () => env.chain.faults.clear(),
    });
    const before = await received();
    const result = await resolve(`rpcdown-${++seq}`);
    expect(result.ok, show(result)).toBe(true);
    expect(sent.map((s) => s.answer)).toEqual(['402', '402 VERIFIER_UNAVAILABLE', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });

  it('402 PAYMENT_NOT_FINALIZED (redeemed while only confirmed): redeemed again after finality, not paid again', async () => {
    const { resolve, sent } = payingClient(
      {
        after: async (response) => {
          if (response.status === 402 && sent.at(-1)?.answer.endsWith('PAYMENT_NOT_FINALIZED')) {
            await env.chain.finalizeAll();
          }
        },
      },
      // A wait that returns too early: the payment is confirmed, not finalized, when it is redeemed.
      { waitForFinality: async () => void (await env.chain.advance(1)) },
    );
    const before = await received();
    const result = await resolve(`unfinal-${++seq}`);
    expect(result.ok, show(result)).toBe(true);
    expect(sent.map((s) => s.answer)).toEqual(['402', '402 PAYMENT_NOT_FINALIZED', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });

  it('a 502 (X402_UNAVAILABLE) in answer to the redemption: the retry redeems the same payment', async () => {
    // Stood in by the fetch (as a gateway would answer): the service reads its network once, so a fault cannot make
    // it answer X402_UNAVAILABLE to a redemption; any 502 is retryable, whoever sends it.
    const unavailable = () =>
      new Response(JSON.stringify({ code: 'X402_UNAVAILABLE', message: 'pay-per-call is not available now' }), {
        status: 502,
        headers: { 'content-type': 'application/json' },
      });
    const { resolve, sent } = payingClient({
      before: (redeem) => (firstRedemption(redeem, sent) ? unavailable() : undefined),
    });
    const before = await received();
    const result = await resolve(`gateway-${++seq}`);
    expect(result.ok, show(result)).toBe(true);
    expect(sent.map((s) => s.answer)).toEqual(['402', '502 X402_UNAVAILABLE', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });

  it('no answer to the redemption of a GET (connection lost): the retry redeems the same payment', async () => {
    const { resolve, sent } = payingClient({
      before: (redeem) => {
        if (firstRedemption(redeem, sent)) throw new TypeError('fetch failed');
        return undefined;
      },
    });
    const before = await received();
    const result = await resolve(`reset-${++seq}`);
    expect(result.ok, show(result)).toBe(true);
    expect(sent.map((s) => s.answer)).toEqual(['402', 'no answer', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });

  it('the wait for finality fails once: the retry waits for the same payment again and redeems it', async () => {
    let waits = 0;
    const { resolve, sent } = payingClient(
      {},
      {
        waitForFinality: async (s) => {
          if (++waits === 1) throw new Error(`transaction ${s} not finalized in time`);
          await env.chain.waitForFinalized(s);
        },
      },
    );
    const before = await received();
    const result = await resolve(`slowfinal-${++seq}`);
    expect(result.ok, show(result)).toBe(true);
    expect(waits).toBe(2);
    expect(sent.map((s) => s.answer)).toEqual(['402', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });
});

describe('what the payer keeps between calls', () => {
  it('a handler failure (404) consumes nothing: the next identical call redeems the same payment', async () => {
    const name = `flaky-${++seq}`; // 404 on the first call, then 200
    const { resolve, sent } = payingClient();
    const before = await received();
    const first = await resolve(name);
    expect(first, show(first)).toMatchObject({ ok: false, status: 404, code: 'NOT_FOUND' });
    const second = await resolve(name);
    expect(second.ok && second.data, show(second)).toEqual({ name, paidBy: env.payer1.address, keyId: null });
    expect(sent.map((s) => s.answer)).toEqual(['402', '404 NOT_FOUND', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });

  it('a consumed payment is never sent again, and another request pays its own challenge', async () => {
    const name = `twice-${++seq}`;
    const { resolve, sent } = payingClient();
    const before = await received();
    for (const target of [name, name, `${name}-other`]) {
      const result = await resolve(target);
      expect(result.ok, show(result)).toBe(true);
    }
    expect(sent.map((s) => s.answer)).toEqual(['402', '200', '402', '200', '402', '200']);
    expect(await received()).toBe(before + 3n * PRICE_RESOLVE);
  });
});

/** A sendTransaction call as the payer sends it: the base64 wire transaction and its config. */
interface SendCall {
  jsonrpc: '2.0';
  id: unknown;
  method: 'sendTransaction';
  params: [wire: Base64EncodedWireTransaction, config?: Record<string, unknown>];
}

/**
 * The local chain's RPC with each sendTransaction handed to `onSend`, which may forward it (changed or not) or answer
 * it itself. Every other call, the status and block-height reads included, is the real chain's.
 */
function rpcWithSends(onSend: (call: SendCall, forward: (call: SendCall) => Promise<unknown>) => Promise<unknown>) {
  const chain = createDefaultRpcTransport({ url: env.chain.url });
  const transport = (config: Parameters<RpcTransport>[0]) => {
    const call = config.payload as SendCall;
    if (call.method !== 'sendTransaction') return chain(config);
    return onSend(call, (changed) => chain({ ...config, payload: changed }));
  };
  return createSolanaRpcFromTransport(transport as RpcTransport);
}

/**
 * An RPC node that accepts the first transaction and never gets it to a leader: it answers its signature and sends
 * nothing (`dropped` keeps it, to deliver late). The local chain cannot lose a transaction it was sent, so this
 * stands in for the network; whatever the payer reads about the transaction afterwards is the real chain's.
 */
function droppingFirstSend() {
  const dropped = new Map<Signature, Base64EncodedWireTransaction>();
  const rpc = rpcWithSends(async (call, forward) => {
    if (dropped.size > 0) return forward(call);
    const wire = call.params[0];
    const signature = getSignatureFromTransaction(getTransactionDecoder().decode(getBase64Encoder().encode(wire)));
    dropped.set(signature, wire);
    return { jsonrpc: '2.0', id: call.id, result: signature };
  });
  return { rpc, dropped };
}

/** Sends every transaction without preflight, as a wallet may: a payment that cannot succeed lands, failed. */
const withoutPreflight = () =>
  rpcWithSends((call, forward) =>
    forward({ ...call, params: [call.params[0], { ...call.params[1], skipPreflight: true }] }),
  );

/** A payer holding 1 wrapped lamport, so that its payment fails on chain until `topUp`. */
async function poorPayer(): Promise<{ payer: KeyPairSigner; topUp: () => Promise<void> }> {
  const payer = await generateKeyPairSigner();
  await env.chain.airdrop(payer.address, 100_000_000n);
  const wrap = async (lamports: bigint) => {
    const account = await wrappedNativeAccount(payer.address);
    await sendInstructions(env.chain.rpc, payer, wrapNativeInstructions(payer, account, lamports));
  };
  await wrap(1n);
  return { payer, topUp: () => wrap(10n * PRICE_RESOLVE) };
}

/**
 * Slots after which a transaction sent now can no longer land: its blockhash's validity, plus a margin for the payer
 * reading the block height at `confirmed` (a slot behind on the local chain).
 */
const BLOCKHASH_EXPIRY_SLOTS = Number(BLOCKHASH_VALIDITY_SLOTS) + 5;

describe('a payment whose finality wait failed is kept only while it may still buy a response', () => {
  it('waitForFinalized throws for a transaction that failed on chain, though it is finalized', async () => {
    const { payer } = await poorPayer();
    const { entry } = await app.challenge(`/v1/resolve/failed-${++seq}`, payer.address);
    const signature = await app.pay(entry, payer, { skipPreflight: true });
    await app.finalize();
    await expect(waitForFinalized(env.chain.rpc, signature, { timeoutMs: 2_000 })).rejects.toThrow(
      `transaction ${signature} failed on chain`,
    );
  });

  it('a payment that failed on chain is dropped: the retry pays anew, and the call succeeds', async () => {
    const { payer, topUp } = await poorPayer();
    const { resolve, sent } = payingClient(
      {
        before: async (_redeem, n) => {
          if (n === 2) await topUp(); // the next payment is funded, once the first has failed on chain
          return undefined;
        },
      },
      {
        payer,
        rpc: withoutPreflight(),
        // The local chain advances by hand; then the SDK's own wait reads the status, as the default wait does.
        waitForFinality: async (s) => {
          await env.chain.waitForFinalized(s);
          await waitForFinalized(env.chain.rpc, s, { timeoutMs: 2_000 });
        },
      },
    );
    const before = await received();
    const result = await resolve(`failedpay-${++seq}`);
    expect(result.ok, show(result)).toBe(true);
    expect(sent.map((s) => s.answer)).toEqual(['402', '402', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });

  it('a dropped payment (never seen, its blockhash expired) is dropped: the retry pays anew instead of waiting again', async () => {
    const { rpc, dropped } = droppingFirstSend();
    let waits = 0;
    const { resolve, sent } = payingClient(
      {},
      {
        rpc,
        waitForFinality: async (s) => {
          waits++;
          // The wait outlives the blockhash, as the default 60 s poll does on a cluster, then fails: the local
          // chain's wait rejects a transaction it does not know.
          if (dropped.has(s)) await env.chain.advance(BLOCKHASH_EXPIRY_SLOTS);
          await env.chain.waitForFinalized(s);
        },
      },
    );
    const before = await received();
    const result = await resolve(`dropped-${++seq}`);
    expect(result.ok, show(result)).toBe(true);
    expect(waits).toBe(2); // the dropped payment's once, the new payment's once
    expect(sent.map((s) => s.answer)).toEqual(['402', '402', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });

  it('a payment not seen yet whose blockhash is valid is kept: redeemed once it lands late, never paid twice', async () => {
    const { rpc, dropped } = droppingFirstSend();
    let waits = 0;
    const { resolve, sent } = payingClient(
      {},
      {
        rpc,
        waitForFinality: async (s) => {
          // The first wait finds it nowhere; by the second the RPC's rebroadcast has delivered it.
          if (++waits === 2) await env.chain.rpc.sendTransaction(dropped.get(s)!, { encoding: 'base64' }).send();
          await env.chain.waitForFinalized(s);
        },
      },
    );
    const before = await received();
    const result = await resolve(`late-${++seq}`);
    expect(result.ok, show(result)).toBe(true);
    expect(waits).toBe(2);
    expect(sent.map((s) => s.answer)).toEqual(['402', '200']);
    expect(await received()).toBe(before + PRICE_RESOLVE);
  });
});
