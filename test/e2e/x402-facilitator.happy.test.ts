// The x402 facilitator rail with the x402 ecosystem's own clients, unmodified: `@x402/fetch` (x402 version 2) and
// `x402-fetch` (version 1), each given only a signer and the local RPC URL, pay for GET /v1/resolve/alice. Composed
// the way `npm start` composes it with SIGIL_LOCAL_FACILITATOR=true: the local chain presenting devnet's genesis
// hash, the local facilitator (x402's own facilitator code) and the service with SIGIL_X402_FACILITATOR_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createSigner, wrapFetchWithPayment as wrapFetchWithPaymentV1 } from 'x402-fetch';
import {
  X402_HEADERS,
  caip2FromGenesisHash,
  decodeBase64Json,
  decodeChallengeHeader,
  nativeEntryOf,
} from '@sigil/contract/x402';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { payAndFetch } from '@sigil/client-sdk/x402';
import { SOLANA_DEVNET_GENESIS_HASH } from '../../server/src/localchain/index';
import {
  DEVNET_USDC_MINT,
  startLocalFacilitatorRail,
  type LocalFacilitatorRail,
} from '../../server/src/localchain/facilitator';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';
import { startX402Chain, type X402Chain } from '../support/x402-app';

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const PRICE = 5_000n; // SIGIL_X402_PRICE_RESOLVE's default

let env: X402Chain;
let rail: LocalFacilitatorRail;
let app: KeyedApp;

beforeAll(async () => {
  // 100 ms slots: a blockhash stays valid ~15 s, however slow a shared machine is.
  env = await startX402Chain({ autoAdvance: true, genesisHash: SOLANA_DEVNET_GENESIS_HASH, slotMs: 100 });
  rail = await startLocalFacilitatorRail(env.chain);
  app = await startKeyedApp({
    dialect: 'sqlite',
    chain: env.chain,
    env: {
      SIGIL_X402_PAY_TO: rail.payTo,
      SIGIL_X402_ASSET: rail.asset,
      SIGIL_X402_FACILITATOR_URL: rail.facilitator.url,
    },
  });
}, 90_000);
afterAll(async () => {
  await app?.close();
  await rail?.close();
  await env?.close();
});

/** The owner's devnet-USDC balance (the asset the local facilitator rail sells in). */
const balanceOf = async (owner: string) => {
  const [ata] = await findAssociatedTokenPda({
    owner: owner as never,
    mint: DEVNET_USDC_MINT,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return BigInt((await env.chain.rpc.getTokenAccountBalance(ata).send()).value.amount);
};

describe('x402 facilitator rail with stock clients', () => {
  it('the local chain presents devnet: the challenge names solana:EtWTRABZ…, and /v1/health lists both rails', async () => {
    expect(caip2FromGenesisHash(env.chain.genesisHash)).toBe(DEVNET);
    expect(rail.asset).toBe(DEVNET_USDC_MINT);
    const health = await app.call('GET', '/v1/health');
    expect(health.body.rails).toEqual(['x1-native', 'x1-facilitator']);
  });

  it('the local facilitator: GET /supported lists its kinds and fee payer; a malformed body is a 400', async () => {
    const supported = await (await fetch(`${rail.facilitator.url}/supported`)).json();
    expect(supported.kinds).toContainEqual({
      x402Version: 2,
      scheme: 'exact',
      network: DEVNET,
      extra: { feePayer: rail.facilitator.feePayer },
    });
    expect(supported.kinds).toContainEqual({
      x402Version: 1,
      scheme: 'exact',
      network: 'solana-devnet',
      extra: { feePayer: rail.facilitator.feePayer },
    });
    for (const path of ['/verify', '/settle']) {
      const res = await fetch(`${rail.facilitator.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ paymentPayload: 'nope' }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(/^invalid body: /);
    }
  });

  it('the 402: header = version 2 (facilitator entry first, then native); body = version 1 (facilitator only)', async () => {
    const res = await app.call('GET', '/v1/resolve/alice');
    expect(res.status).toBe(402);
    const header = decodeBase64Json(res.headers.get(X402_HEADERS.required)!) as any;
    expect(header.x402Version).toBe(2);
    expect(header.resource).toEqual({
      url: `${app.config.publicUrl}/v1/resolve/alice`,
      description: 'Sigil resolve',
      mimeType: 'application/json',
    });
    expect(header.accepts).toHaveLength(2);
    expect(header.accepts[0]).toEqual({
      scheme: 'exact',
      network: DEVNET,
      asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      payTo: rail.payTo,
      maxAmountRequired: '5000',
      amount: '5000',
      maxTimeoutSeconds: 60,
      extra: { feePayer: rail.facilitator.feePayer },
    });
    expect(header.accepts[1]).toMatchObject({
      network: DEVNET,
      amount: '5000',
      extra: { requestHash: expect.any(String) },
    });
    expect(header.accepts[1].maxAmountRequired).toBeUndefined();
    expect(decodeChallengeHeader(res.headers.get(X402_HEADERS.required)!)).not.toBeNull();
    expect(res.body).toEqual({
      x402Version: 1,
      accepts: [
        {
          scheme: 'exact',
          network: 'solana-devnet',
          asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
          payTo: rail.payTo,
          maxAmountRequired: '5000',
          maxTimeoutSeconds: 60,
          resource: `${app.config.publicUrl}/v1/resolve/alice`,
          description: 'Sigil resolve',
          mimeType: 'application/json',
          extra: { feePayer: rail.facilitator.feePayer },
        },
      ],
    });
  });

  it('@x402/fetch (v2), unmodified, pays and gets 200 with the PAYMENT-RESPONSE receipt; charged exactly once', async () => {
    const before = await balanceOf(rail.payTo);
    const client = new x402Client().register('solana:*', new ExactSvmScheme(env.payer1, { rpcUrl: env.chain.url }));
    const res = await wrapFetchWithPayment(fetch, client)(`${app.base}/v1/resolve/alice`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ name: 'alice' });
    const receipt = res.headers.get(X402_HEADERS.response);
    expect(res.headers.get(X402_HEADERS.legacyResponse)).toBe(receipt);
    const decoded = decodeBase64Json(receipt!) as Record<string, string>;
    expect(decoded).toEqual({
      success: true,
      payer: env.payer1.address,
      transaction: expect.any(String),
      network: DEVNET,
      amount: '5000',
    });
    // Served only after settlement: the transaction is on chain (confirmed) when the response arrives.
    const status = await env.chain.rpc.getSignatureStatuses([decoded.transaction as never]).send();
    expect(status.value[0]?.err).toBeNull();
    expect(await balanceOf(rail.payTo)).toBe(before + PRICE);
  });

  it('x402-fetch (v1), unmodified, pays from the body challenge (X-PAYMENT) and gets 200 with X-PAYMENT-RESPONSE', async () => {
    const before = await balanceOf(rail.payTo);
    const signer = await createSigner('solana-devnet', env.chain.scenario!.wallets.payer2!.secretKey);
    const paidFetch = wrapFetchWithPaymentV1(fetch, signer, undefined, undefined, {
      svmConfig: { rpcUrl: env.chain.url },
    });
    const res = await paidFetch(`${app.base}/v1/resolve/alice`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ name: 'alice' });
    const receipt = decodeBase64Json(res.headers.get(X402_HEADERS.legacyResponse)!) as Record<string, string>;
    expect(receipt).toMatchObject({ success: true, payer: env.payer2.address, network: DEVNET, amount: '5000' });
    expect(await balanceOf(rail.payTo)).toBe(before + PRICE);
  });

  it("the SDK's payAndFetch pays on the facilitator rail with rail: 'facilitator' (no finality wait, no payerSig)", async () => {
    const before = await balanceOf(rail.payTo);
    const res = await payAndFetch(
      { url: `${app.base}/v1/resolve/alice` },
      { rpc: env.chain.rpc, payer: env.payer2, rail: 'facilitator' },
    );
    expect(res.response.status, await res.response.clone().text()).toBe(200);
    expect(res.receipt).toEqual({
      success: true,
      payer: env.payer2.address,
      transaction: expect.any(String),
      network: DEVNET,
      amount: '5000',
    });
    expect(await balanceOf(rail.payTo)).toBe(before + PRICE);
  });

  it("the SDK's native rail still works beside it (it picks the native entry)", async () => {
    const res = await payAndFetch(
      { url: `${app.base}/v1/resolve/alice` },
      { rpc: env.chain.rpc, payer: env.payer1, waitForFinality: (s) => env.chain.waitForFinalized(s) },
    );
    expect(res.response.status).toBe(200);
    expect(nativeEntryOf(res.challenge!)?.extra.reference).toEqual(expect.any(String));
  });
});
