// prepare_x402_payment against an x402-enabled service on the real local chain: the payer signs and sends the
// prepared payment, waits for finality, signs the redeem message, and the metered request is served with it —
// from a challenge object, and from a URL the tool fetched itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner } from '@solana/kit';
import { signRedeemMessage } from '@sigil/client-sdk/x402';
import { encodeBase64Json, type X402Challenge } from '@sigil/contract/x402';
import { runTool, signAndSend, toolDeps } from '@sigil/test/support/mcp-prepare';
import { receiptOf, startX402App, startX402Chain, type X402App, type X402Chain } from '@sigil/test/support/x402-app';
import type { ToolDeps } from '../tool';
import { prepareX402PaymentTool as tool } from './prepare-x402-payment';

let env: X402Chain;
let app: X402App;
let deps: ToolDeps;

beforeAll(async () => {
  env = await startX402Chain();
  app = await startX402App(env, { dialect: 'sqlite' });
  deps = toolDeps(env.chain, app.base);
});
afterAll(async () => {
  await deps.outbound.close();
  await app.close();
  await env.close();
});

describe('prepare_x402_payment', () => {
  it('declares its annotations', () => {
    expect(tool.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('from a URL: fetches the 402, prepares the fixed shape; signed, finalized and redeemed, the call is served', async () => {
    const payer = env.payer1;
    const outcome = await runTool(tool, { url: '/v1/resolve/alice', payer: payer.address }, deps);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    const value = outcome.value;
    expect(value).toMatchObject({ network: app.network, payTo: env.payTo.address, amount: '7000', decimals: 9 });
    expect(value.retry.url).toBe(`${app.base}/v1/resolve/alice`);
    expect(value.instructions.map((ix) => ix.programAddress)).toEqual([
      'ComputeBudget111111111111111111111111111111',
      'ComputeBudget111111111111111111111111111111',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    ]);
    expect(value.instructions[2]!.accounts.at(-1)).toMatchObject({
      name: 'reference',
      address: value.reference,
      role: 'readonly',
    });
    expect(value.transaction.signers).toEqual([payer.address]);

    await signAndSend(env.chain, value.transaction.base64, [payer]);
    await app.finalize();
    const payerSig = await signRedeemMessage(payer, value.redeemMessage);
    const payment = { ...value.retry.payment, payload: { ...value.retry.payment.payload, payerSig } };
    const res = await app.get('/v1/resolve/alice', {
      ...value.retry.headers,
      [value.retry.paymentHeader]: encodeBase64Json(payment),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'alice', paidBy: payer.address });
    expect(receiptOf(res)).toMatchObject({ success: true, payer: payer.address, amount: '7000' });
  });

  it('from a challenge object: the payment redeems by signature too', async () => {
    const payer = env.payer2;
    const { challenge } = await app.challenge('/v1/resolve/bob', payer.address);
    const outcome = await runTool(tool, { challenge, payer: payer.address }, deps);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.value.retry.url).toBeUndefined();
    const signature = await signAndSend(env.chain, outcome.value.transaction.base64, [payer]);
    await app.finalize();
    const payerSig = await signRedeemMessage(payer, outcome.value.redeemMessage);
    const res = await app.redeem('/v1/resolve/bob', { signature, payerSig, payer: payer.address });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('refuses what cannot become a payment, with its code', async () => {
    const payer = env.payer1;
    const { challenge } = await app.challenge('/v1/resolve/carol', payer.address);
    const plain = (await app.get('/v1/resolve/carol')).body as X402Challenge; // no X-Payer: no reference
    const stranger = (await generateKeyPairSigner()).address;
    const otherNetwork = structuredClone(challenge);
    otherNetwork.accepts[0]!.network = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
    const cases: [Parameters<typeof tool.run>[0], string][] = [
      [{ payer: payer.address }, 'BAD_REQUEST'],
      [{ challenge, url: '/v1/resolve/carol', payer: payer.address }, 'BAD_REQUEST'],
      [{ challenge: { x402Version: 2 }, payer: payer.address }, 'BAD_REQUEST'],
      [{ challenge, payer: 'not-a-wallet' }, 'INVALID_WALLET'],
      [{ challenge: plain, payer: payer.address }, 'PAYER_REQUIRED'],
      [{ challenge, payer: stranger }, 'PAYER_MISMATCH'],
      [{ challenge, payer: payer.address, acceptIndex: 3 }, 'BAD_REQUEST'],
      [{ challenge: otherNetwork, payer: payer.address }, 'PAYMENT_NETWORK_UNSUPPORTED'],
      [{ url: 'http://169.254.169.254/latest/meta-data', payer: payer.address }, 'URL_REJECTED'],
      [{ url: 'https://example.com/v1/resolve/alice', payer: payer.address }, 'URL_REJECTED'],
      [{ url: '/v1/health', payer: payer.address }, 'BAD_REQUEST'],
    ];
    for (const [args, code] of cases) {
      expect(await runTool(tool, args, deps), JSON.stringify(args).slice(0, 200)).toMatchObject({ ok: false, code });
    }
  });

  it("relays the service's own code when the URL does not answer a challenge", async () => {
    const outcome = await runTool(
      tool,
      { url: '/v1/resolve/alice', payer: env.payer1.address },
      {
        ...deps,
        fetch: async () => new Response(JSON.stringify({ code: 'API_KEY_REQUIRED', message: 'x' }), { status: 401 }),
      },
    );
    expect(outcome).toMatchObject({ ok: false, code: 'API_KEY_REQUIRED' });
    const down = await runTool(
      tool,
      { url: '/v1/resolve/alice', payer: env.payer1.address },
      {
        ...deps,
        fetch: async () => {
          throw new Error('ECONNREFUSED');
        },
      },
    );
    expect(down).toMatchObject({ ok: false, code: 'X402_UNAVAILABLE' });
  });
});
