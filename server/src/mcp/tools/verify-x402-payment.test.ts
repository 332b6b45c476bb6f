// verify_x402_payment against an x402-enabled service on the real local chain: PAYMENT_NOT_FINALIZED before
// finality, ok after, nothing consumed (the service then serves the same payment), and the codes of payments that
// do not match their challenge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { signRedeemMessage } from '@sigil/client-sdk/x402';
import { type X402Challenge } from '@sigil/contract/x402';
import { runTool, signAndSend, toolDeps } from '@sigil/test/support/mcp-prepare';
import { startX402App, startX402Chain, type X402App, type X402Chain } from '@sigil/test/support/x402-app';
import type { ToolDeps } from '../tool';
import { prepareX402PaymentTool } from './prepare-x402-payment';
import { verifyX402PaymentTool as tool } from './verify-x402-payment';

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

/** challenge → prepared by the tool → signed and sent (confirmed, not finalized). */
async function paidButNotFinal(path: string, payer: KeyPairSigner) {
  const { challenge } = await app.challenge(path, payer.address);
  const prepared = await runTool(prepareX402PaymentTool, { challenge, payer: payer.address }, deps);
  if (!prepared.ok) throw new Error(JSON.stringify(prepared));
  const signature = await signAndSend(env.chain, prepared.value.transaction.base64, [payer]);
  return { challenge, signature, redeemMessage: prepared.value.redeemMessage };
}

describe('verify_x402_payment', () => {
  it('declares its annotations: idempotent (it consumes nothing)', () => {
    expect(tool.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
  });

  it('PAYMENT_NOT_FINALIZED before finality, ok after; consumes nothing: the service then serves the payment', async () => {
    const payer = env.payer1;
    const path = '/v1/resolve/alice';
    const { challenge, signature, redeemMessage } = await paidButNotFinal(path, payer);
    const args = { challenge, signature, payer: payer.address, request: { method: 'GET', url: path } };

    const early = await runTool(tool, args, deps);
    expect(early).toMatchObject({
      ok: true,
      value: { ok: false, code: 'PAYMENT_NOT_FINALIZED', retryable: true, finalized: false },
    });

    await app.finalize();
    const payerSig = await signRedeemMessage(payer, redeemMessage);
    for (let i = 0; i < 2; i++) {
      const late = await runTool(tool, { ...args, payerSig }, deps);
      if (!late.ok) throw new Error(JSON.stringify(late));
      expect(late.value).toMatchObject({ ok: true, code: 'ok', finalized: true, serviceChecked: true });
      expect(late.value.payment).toMatchObject({ signature, amount: '7000', credited: '7000' });
      expect(Object.keys(late.value.retryHeaders ?? {})).toEqual(['X-Payer', 'PAYMENT-SIGNATURE']);
    }
    // Nothing was consumed: the identical request with the retry headers is served.
    const late = await runTool(tool, { ...args, payerSig }, deps);
    const served = await app.get(path, late.ok ? late.value.retryHeaders : {});
    expect(served.status, JSON.stringify(served.body)).toBe(200);

    // Now it is spent, and the service says so.
    const after = await runTool(tool, args, deps);
    expect(after).toMatchObject({ ok: true, value: { ok: false, code: 'PAYMENT_ALREADY_USED', serviceChecked: true } });
  });

  it('reports the code of a payment that does not match its challenge', async () => {
    const payer = env.payer2;
    const path = '/v1/resolve/bob';
    const { challenge, signature, redeemMessage } = await paidButNotFinal(path, payer);
    await app.finalize();
    const base = { challenge, signature, payer: payer.address, request: { method: 'GET', url: path } };
    const edit = (change: (c: X402Challenge) => void) => {
      const copy = structuredClone(challenge);
      change(copy);
      return copy;
    };
    const elsewhere = (await generateKeyPairSigner()).address;
    const cases: [Parameters<typeof tool.run>[0], string][] = [
      [{ ...base, challenge: edit((c) => (c.accepts[0]!.payTo = elsewhere)) }, 'PAYMENT_WRONG_DESTINATION'],
      [{ ...base, challenge: edit((c) => (c.accepts[0]!.amount = '7001')) }, 'PAYMENT_AMOUNT_TOO_LOW'],
      [{ ...base, challenge: edit((c) => (c.accepts[0]!.asset = env.usdx)) }, 'PAYMENT_WRONG_ASSET'],
      [{ ...base, request: { method: 'GET', url: '/v1/resolve/other' } }, 'REFERENCE_MISMATCH'],
      [{ ...base, request: { method: 'POST', url: path, body: '{}' } }, 'REFERENCE_MISMATCH'],
      [{ ...base, payerSig: await signRedeemMessage(env.payer1, redeemMessage) }, 'REDEEM_SIGNATURE_INVALID'],
      [{ ...base, challenge: (await app.get(path)).body }, 'PAYER_REQUIRED'],
      [{ ...base, payer: env.payer1.address }, 'PAYER_MISMATCH'],
      [{ ...base, signature: '1'.repeat(64) }, 'PAYMENT_NOT_FINALIZED'],
    ];
    for (const [args, code] of cases) {
      const outcome = await runTool(tool, args, deps);
      expect(outcome, code).toMatchObject({ ok: true, value: { ok: false, code } });
    }
    // And the untouched challenge is still ok: none of the above consumed anything. An absolute URL of the service
    // is the same request; one elsewhere is judged on chain only (this server fetches nothing but its service).
    expect(await runTool(tool, base, deps)).toMatchObject({ ok: true, value: { ok: true, code: 'ok' } });
    const absolute = { ...base, request: { method: 'GET', url: app.base + path } };
    expect(await runTool(tool, absolute, deps)).toMatchObject({ value: { ok: true, serviceChecked: true } });
    const elsewhereUrl = { ...base, request: { method: 'GET', url: 'https://other.example' + path } };
    expect(await runTool(tool, elsewhereUrl, deps)).toMatchObject({ value: { ok: true, serviceChecked: false } });
  });

  it('tool errors for arguments it cannot judge', async () => {
    const { challenge } = await app.challenge('/v1/resolve/carol', env.payer1.address);
    const base = {
      challenge,
      signature: '1'.repeat(88),
      payer: env.payer1.address,
      request: { method: 'GET', url: '/v1/resolve/carol' },
    };
    expect(await runTool(tool, { ...base, signature: 'abc' }, deps)).toMatchObject({ ok: false, code: 'BAD_REQUEST' });
    expect(await runTool(tool, { ...base, payer: 'x' }, deps)).toMatchObject({ ok: false, code: 'INVALID_WALLET' });
    expect(await runTool(tool, { ...base, challenge: {} }, deps)).toMatchObject({ ok: false, code: 'BAD_REQUEST' });
  });
});
