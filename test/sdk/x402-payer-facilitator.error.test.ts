// The x402 payer on the facilitator rail under the client's default retry policy: a settlement past the service's
// deadline (502 X402_SETTLE_TIMEOUT, the response withheld) may still land, so the only safe repeat is the same
// payment, which the service resumes instead of settling again. The payer redeems that one transaction on every
// retry and on the next identical call; the payee is charged once. A real fault: the chain delays the facilitator's
// sendTransaction past SIGIL_X402_FACILITATOR_TIMEOUT_MS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigilClient } from '@sigil/client-sdk';
import { createX402Fetch } from '@sigil/client-sdk/x402';
import { X402_HEADERS } from '@sigil/contract/x402';
import { SOLANA_DEVNET_GENESIS_HASH } from '../../server/src/localchain/index';
import { startLocalFacilitatorRail, type LocalFacilitatorRail } from '../../server/src/localchain/facilitator';
import { PRICE_RESOLVE, startX402App, startX402Chain, type X402App, type X402Chain } from '../support/x402-app';
import { payeeBalance, payeeBalanceMoved } from '../support/facilitator-payee';

let env: X402Chain;
let rail: LocalFacilitatorRail;
let app: X402App;

beforeAll(async () => {
  // 100 ms slots: a blockhash stays valid ~15 s, longer than the slow settlement below (9 s).
  env = await startX402Chain({ autoAdvance: true, genesisHash: SOLANA_DEVNET_GENESIS_HASH, slotMs: 100 });
  rail = await startLocalFacilitatorRail(env.chain);
  app = await startX402App(env, {
    dialect: 'sqlite',
    vars: {
      SIGIL_X402_PAY_TO: rail.payTo,
      SIGIL_X402_ASSET: rail.asset,
      SIGIL_X402_FACILITATOR_URL: rail.facilitator.url,
      SIGIL_X402_FACILITATOR_TIMEOUT_MS: '3000',
    },
  });
}, 90_000);
afterAll(async () => {
  env?.chain.faults.clear();
  await app?.close();
  await rail?.close();
  await env?.close();
});

const balance = () => payeeBalance(env, rail);

const balanceMoved = (from: bigint) => payeeBalanceMoved(env, rail, from);

describe('facilitator rail: one payment per call', () => {
  it('502 X402_SETTLE_TIMEOUT: every retry and the next identical call send the same transaction; charged once', async () => {
    const answers: string[] = [];
    const payments = new Set<string>();
    const recorded = async (url: string, init?: RequestInit) => {
      const payment = new Headers(init?.headers).get(X402_HEADERS.payment);
      if (payment) payments.add(payment);
      const response = await fetch(url, init);
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as { code?: string } | null;
      answers.push(`${response.status}${body?.code ? ` ${body.code}` : ''}`);
      return response;
    };
    const pay = createX402Fetch({ rpc: env.chain.rpc, payer: env.payer1, rail: 'facilitator', fetch: recorded });
    const client = createSigilClient({ baseUrl: app.base, fetch: pay });
    const resolve = () => client.GET('/v1/resolve/{name}', { params: { path: { name: 'sdk-slow-settle' } } });

    const before = await balance();
    env.chain.faults.set({ delayMs: 9_000, methods: ['sendTransaction'] });
    const first = await resolve(); // three attempts, each answered before the delayed settlement lands
    expect(first, JSON.stringify(first)).toMatchObject({ ok: false, status: 502, code: 'X402_SETTLE_TIMEOUT' });
    const charged = await balanceMoved(before); // the first settlement lands after all
    expect(charged).toBe(before + PRICE_RESOLVE);
    env.chain.faults.clear();

    // Served as the resumed payment (found on chain, not settled again); until the service sees the landed
    // transaction it may answer 502 once more, and the client's retry redeems the same payment again.
    const again = await resolve();
    expect(again.ok && again.data, JSON.stringify(again)).toMatchObject({ name: 'sdk-slow-settle' });
    expect(await balance()).toBe(charged);
    expect(payments.size).toBe(1);
    // One challenge; then only redemptions of it: 502s until the landed settlement is seen, then the answer.
    expect(answers[0]).toBe('402');
    expect(answers.at(-1)).toBe('200');
    expect(new Set(answers.slice(1, -1))).toEqual(new Set(['502 X402_SETTLE_TIMEOUT']));
  }, 60_000);
});
