// Every webhook error code of the spec's table, reached over real HTTP against the local chain (demo scenario),
// with the catalog's status and the `{code, message}` body: field validation, destination policy, challenge and
// signature rules, @name control (NOT_CONTROLLER, CONTROL_UNPROVEN with the NFT moved out of its ATA, NOT_FOUND),
// RPC_ERROR with the chain down (nonce kept), LIMIT_REACHED, WEBHOOK_NOT_FOUND / DELIVERY_NOT_FOUND,
// NOT_RESUMABLE, BAD_REQUEST limits, and PAY_WEBHOOKS_DISABLED on a deployment that turned the feature off.
// API_KEY_REQUIRED / INVALID_KEY / RATE_LIMITED: webhooks.security.test.ts (the shared auth suite, every route).
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  getInitializeAccount3Instruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V1_ERRORS } from '@sigil/contract/errors';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { ataOf, exec, seedWebhook, signRaw } from '../support/webhooks-world';
import { createKey } from '../../server/src/features/keys/service';
import type { KeyedResponse } from '../support/keyed-app';
import { registerOverHttp, scenarioSigner, startWebhookApp, type WebhookApp } from '../support/pay-webhooks';

let chain: LocalChain;
let env: WebhookApp;
let off: WebhookApp;
let alice: KeyPairSigner;
let bob: KeyPairSigner;
let dave: KeyPairSigner;
const url = 'https://hooks.example.com/pay';

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true, slotMs: 100 });
  // Loopback NOT allowed here: this is the production destination policy.
  env = await startWebhookApp({ chain, allowLoopback: false });
  off = await startWebhookApp({ chain, env: { SIGIL_PAY_WEBHOOKS: 'false' } });
  [alice, bob, dave] = await Promise.all(['alice', 'bob', 'dave'].map((n) => scenarioSigner(chain, n)));
}, 60_000);

afterAll(async () => {
  await env?.close();
  await off?.close();
  await chain?.close();
});

const show = (res: KeyedResponse) => `${res.status} ${res.text}`;
/** The answer carries `code` with the catalog's status, and a message. */
function expectCode(res: KeyedResponse, code: keyof typeof V1_ERRORS, status?: number): void {
  expect(res.body?.code, show(res)).toBe(code);
  expect(res.status, show(res)).toBe(status ?? V1_ERRORS[code]);
  expect(Object.keys(res.body).sort()).toEqual(['code', 'message']);
  expect(typeof res.body.message).toBe('string');
}

const challenge = (body: unknown, key = env.app.key.secret) =>
  env.app.call('POST', '/v1/pay/webhooks/challenge', { key, body });
const register = (body: unknown, key = env.app.key.secret) => env.app.call('POST', '/v1/pay/webhooks', { key, body });
async function signedChallenge(body: Record<string, unknown>, signer: KeyPairSigner, key = env.app.key.secret) {
  const c = await challenge(body, key);
  expect(c.status, show(c)).toBe(200);
  return { nonce: c.body.nonce as string, signature: await signRaw(signer, c.body.message) };
}

describe('webhook errors over HTTP', () => {
  it('the statuses we chose (docs/webhooks.md)', () => {
    expect({
      INVALID_SCOPE: V1_ERRORS.INVALID_SCOPE,
      INVALID_WALLET: V1_ERRORS.INVALID_WALLET,
      INVALID_URL: V1_ERRORS.INVALID_URL,
      INVALID_EVENT_TYPES: V1_ERRORS.INVALID_EVENT_TYPES,
      WALLET_MISMATCH: V1_ERRORS.WALLET_MISMATCH,
      CHALLENGE_INVALID: V1_ERRORS.CHALLENGE_INVALID,
      SIGNATURE_INVALID: V1_ERRORS.SIGNATURE_INVALID,
      NOT_CONTROLLER: V1_ERRORS.NOT_CONTROLLER,
      CONTROL_UNPROVEN: V1_ERRORS.CONTROL_UNPROVEN,
      NOT_FOUND: V1_ERRORS.NOT_FOUND,
      URL_REJECTED: V1_ERRORS.URL_REJECTED,
      LIMIT_REACHED: V1_ERRORS.LIMIT_REACHED,
      WEBHOOK_NOT_FOUND: V1_ERRORS.WEBHOOK_NOT_FOUND,
      DELIVERY_NOT_FOUND: V1_ERRORS.DELIVERY_NOT_FOUND,
      NOT_RESUMABLE: V1_ERRORS.NOT_RESUMABLE,
      RATE_LIMITED: V1_ERRORS.RATE_LIMITED,
      API_KEY_REQUIRED: V1_ERRORS.API_KEY_REQUIRED,
      PAY_WEBHOOKS_DISABLED: V1_ERRORS.PAY_WEBHOOKS_DISABLED,
      RPC_ERROR: V1_ERRORS.RPC_ERROR,
    }).toEqual({
      INVALID_SCOPE: 400,
      INVALID_WALLET: 400,
      INVALID_URL: 400,
      INVALID_EVENT_TYPES: 400,
      WALLET_MISMATCH: 403,
      CHALLENGE_INVALID: 400,
      SIGNATURE_INVALID: 401,
      NOT_CONTROLLER: 403,
      CONTROL_UNPROVEN: 403,
      NOT_FOUND: 404,
      URL_REJECTED: 400,
      LIMIT_REACHED: 409,
      WEBHOOK_NOT_FOUND: 404,
      DELIVERY_NOT_FOUND: 404,
      NOT_RESUMABLE: 409,
      RATE_LIMITED: 429,
      API_KEY_REQUIRED: 401,
      PAY_WEBHOOKS_DISABLED: 503,
      RPC_ERROR: 502,
    });
  });

  it('field codes: INVALID_SCOPE, INVALID_WALLET, INVALID_URL, INVALID_EVENT_TYPES, WALLET_MISMATCH, BAD_REQUEST', async () => {
    expectCode(await challenge({ scope: '@alice.x1', url }), 'INVALID_SCOPE', 400);
    expect((await challenge({ scope: '@sub.alice', url })).body).toStrictEqual({
      code: 'INVALID_SCOPE',
      message: 'scope: only top-level @names are supported, not subnames or domains',
    });
    expectCode(await challenge({ scope: 'not-a-wallet', url }), 'INVALID_SCOPE', 400);
    expectCode(await challenge({ url }), 'INVALID_SCOPE', 400);
    expectCode(await challenge({ scope: '@alice', wallet: 'nope', url }), 'INVALID_WALLET', 400);
    expectCode(await challenge({ scope: '@alice', url: 'http://hooks.example.com/pay' }), 'INVALID_URL', 400);
    expectCode(await challenge({ scope: '@alice', url: 'https://hooks.example.com:8443/pay' }), 'INVALID_URL', 400);
    expectCode(await challenge({ scope: '@alice', url: 'https://user:pw@hooks.example.com/pay' }), 'INVALID_URL', 400);
    expectCode(await challenge({ scope: '@alice', url: 'not a url' }), 'INVALID_URL', 400);
    expectCode(await challenge({ scope: '@alice', url, event_types: ['payment.sent'] }), 'INVALID_EVENT_TYPES', 400);
    expectCode(await challenge({ scope: '@alice', url, event_types: 'payment' }), 'INVALID_EVENT_TYPES', 400);
    expect((await challenge({ scope: bob.address, wallet: alice.address, url })).body).toStrictEqual({
      code: 'WALLET_MISMATCH',
      message: 'wallet: for a wallet scope the signing wallet must be that wallet',
    });
    expectCode(await challenge({ scope: bob.address, wallet: alice.address, url }), 'WALLET_MISMATCH', 403);
    expectCode(await challenge({ scope: bob.address, url, description: 'line\u0001break' }), 'BAD_REQUEST', 400);
  });

  it('URL_REJECTED: loopback (not allowed on this deployment), metadata address, a name answering one private address, no answer', async () => {
    for (const bad of [
      'https://127.0.0.1/h',
      'https://localhost/h',
      'https://169.254.169.254/latest',
      'https://[::ffff:10.0.0.1]/h',
      'https://mixed.example.net/h',
      'https://nothing.invalid/h',
    ]) {
      expectCode(await challenge({ scope: bob.address, url: bad }), 'URL_REJECTED', 400);
    }
  });

  it('CHALLENGE_INVALID: unknown nonce, used nonce, nonce issued to another key of another account', async () => {
    expect((await register({ nonce: 'unknown', signature: await signRaw(bob, 'x') })).body).toStrictEqual({
      code: 'CHALLENGE_INVALID',
      message: 'nonce is unknown, used or expired',
    });
    const used = await signedChallenge({ scope: bob.address, url }, bob);
    expect((await register(used)).status).toBe(201);
    expectCode(await register(used), 'CHALLENGE_INVALID', 400);
    const foreign = await signedChallenge({ scope: bob.address, url }, bob, env.app.otherKey.secret);
    expectCode(await register(foreign), 'CHALLENGE_INVALID', 400);
    expectCode(await register({ signature: foreign.signature }), 'CHALLENGE_INVALID', 400);
  });

  it('SIGNATURE_INVALID: another wallet signed, undecodable signature; the nonce survives and then registers', async () => {
    const c = await challenge({ scope: bob.address, url });
    expectCode(
      await register({ nonce: c.body.nonce, signature: await signRaw(alice, c.body.message) }),
      'SIGNATURE_INVALID',
      401,
    );
    expectCode(await register({ nonce: c.body.nonce, signature: '0OIl' }), 'SIGNATURE_INVALID', 401);
    expectCode(await register({ nonce: c.body.nonce }), 'SIGNATURE_INVALID', 401);
    expect((await register({ nonce: c.body.nonce, signature: await signRaw(bob, c.body.message) })).status).toBe(201);
  });

  it('@name: NOT_FOUND (not registered), NOT_CONTROLLER (bob for @alice)', async () => {
    expect((await register(await signedChallenge({ scope: '@nobodyhere', url }, alice))).body).toStrictEqual({
      code: 'NOT_FOUND',
      message: '@nobodyhere is not registered',
    });
    expectCode(await register(await signedChallenge({ scope: '@nobodyhere', url }, alice)), 'NOT_FOUND', 404);
    expectCode(
      await register(await signedChallenge({ scope: '@alice', wallet: bob.address, url }, bob)),
      'NOT_CONTROLLER',
      403,
    );
  });

  it('RPC_ERROR when the chain is unreachable; the same nonce registers once it is back', async () => {
    const c = await signedChallenge({ scope: '@alice', url }, alice);
    chain.faults.set({ unreachable: true });
    try {
      expectCode(await register(c), 'RPC_ERROR', 502);
    } finally {
      chain.faults.clear();
    }
    expect((await register(c)).status).toBe(201);
  });

  it("CONTROL_UNPROVEN: @vault's NFT moved by its holder (dave) into a token account that is not an ATA", async () => {
    const mint = (await env.app.app.services.chain.getHandle('vault', 'finalized')).value!.mint!;
    const loose = await generateKeyPairSigner();
    const rent = await chain.rpc.getMinimumBalanceForRentExemption(165n).send();
    await exec(
      chain,
      dave,
      [
        getCreateAccountInstruction({
          payer: dave,
          newAccount: loose,
          lamports: rent,
          space: 165n,
          programAddress: TOKEN_PROGRAM_ADDRESS,
        }),
        getInitializeAccount3Instruction({ account: loose.address, mint, owner: dave.address }),
        getTransferCheckedInstruction({
          source: await ataOf(dave.address, mint, TOKEN_PROGRAM_ADDRESS),
          mint,
          destination: loose.address,
          authority: dave,
          amount: 1n,
          decimals: 0,
        }),
      ],
      [loose],
    );
    expectCode(
      await register(await signedChallenge({ scope: '@vault', wallet: dave.address, url }, dave)),
      'CONTROL_UNPROVEN',
      403,
    );
    expectCode(await register(await signedChallenge({ scope: '@vault', url }, dave)), 'CONTROL_UNPROVEN', 403);
  });

  it('LIMIT_REACHED at 25 webhooks per account: the challenge is refused', async () => {
    const { secret, key } = await createKey(env.app.database.db, { account: (await generateKeyPairSigner()).address });
    for (let i = 0; i < 25; i++) await seedWebhook(env.app.database.db, url, { account: key.account });
    expect((await challenge({ scope: bob.address, url }, secret)).body).toStrictEqual({
      code: 'LIMIT_REACHED',
      message: 'an account may hold at most 25 webhooks; delete one first',
    });
    expectCode(await challenge({ scope: bob.address, url }, secret), 'LIMIT_REACHED', 409);
  });

  it("WEBHOOK_NOT_FOUND on every id route for an unknown id and for another account's webhook; DELIVERY_NOT_FOUND; BAD_REQUEST limits; NOT_RESUMABLE", async () => {
    const hook = await registerOverHttp(env.app, env.app.key.secret, { scope: bob.address, url }, bob);
    const routes = (id: string): [string, string][] => [
      ['GET', `/v1/pay/webhooks/${id}`],
      ['GET', `/v1/pay/webhooks/${id}/deliveries`],
      ['POST', `/v1/pay/webhooks/${id}/rotate-secret`],
      ['POST', `/v1/pay/webhooks/${id}/resume`],
      ['POST', `/v1/pay/webhooks/${id}/test`],
      ['POST', `/v1/pay/webhooks/${id}/deliveries/whdel_x/redeliver`],
      ['DELETE', `/v1/pay/webhooks/${id}`],
    ];
    for (const [method, path] of [...routes(hook.id), ...routes('whsub_nope')]) {
      const res = await env.app.call(method, path, { key: env.app.otherKey.secret });
      expect(res.body, `${method} ${path}`).toStrictEqual({
        code: 'WEBHOOK_NOT_FOUND',
        message: 'no such webhook on this account',
      });
      expect(res.status).toBe(404);
    }
    const mine = (method: string, path: string) => env.app.call(method, path, { key: env.app.key.secret });
    expect((await mine('GET', `/v1/pay/webhooks/${hook.id}`)).status).toBe(200); // untouched by the other account
    expectCode(
      await mine('POST', `/v1/pay/webhooks/${hook.id}/deliveries/whdel_nope/redeliver`),
      'DELIVERY_NOT_FOUND',
      404,
    );
    for (const limit of ['0', '201', 'x', '1.5'])
      expectCode(await mine('GET', `/v1/pay/webhooks/${hook.id}/deliveries?limit=${limit}`), 'BAD_REQUEST', 400);
    expect((await mine('GET', `/v1/pay/webhooks/${hook.id}/deliveries?limit=200`)).status).toBe(200);

    expect((await mine('POST', `/v1/pay/webhooks/${hook.id}/resume`)).body).toStrictEqual({
      code: 'NOT_RESUMABLE',
      message: 'webhook is active, not auto-paused',
    });
    await env.app.database.db
      .updateTable('webhook_subscriptions')
      .set({ status: 'paused', paused_reason: 'scope_changed: @x changed owner' })
      .where('id', '=', hook.id)
      .execute();
    expectCode(await mine('POST', `/v1/pay/webhooks/${hook.id}/resume`), 'NOT_RESUMABLE', 409);
    await env.app.database.db
      .updateTable('webhook_subscriptions')
      .set({ paused_reason: 'auto-paused: 50 consecutive deliveries dead-lettered' })
      .where('id', '=', hook.id)
      .execute();
    const resumed = await mine('POST', `/v1/pay/webhooks/${hook.id}/resume`);
    expect(resumed.status, show(resumed)).toBe(200);
    expect(resumed.body).toMatchObject({ id: hook.id, status: 'active', paused_reason: null });
  });

  it('PAY_WEBHOOKS_DISABLED (503) on every route when SIGIL_PAY_WEBHOOKS=false', async () => {
    const key = off.app.key.secret;
    const calls: [string, string, unknown?][] = [
      ['POST', '/v1/pay/webhooks/challenge', { scope: bob.address, url }],
      ['POST', '/v1/pay/webhooks', { nonce: 'n', signature: 's' }],
      ['GET', '/v1/pay/webhooks'],
      ['GET', '/v1/pay/webhooks/whsub_x'],
      ['GET', '/v1/pay/webhooks/whsub_x/deliveries'],
      ['POST', '/v1/pay/webhooks/whsub_x/rotate-secret'],
      ['POST', '/v1/pay/webhooks/whsub_x/resume'],
      ['DELETE', '/v1/pay/webhooks/whsub_x'],
      ['POST', '/v1/pay/webhooks/whsub_x/deliveries/whdel_x/redeliver'],
      ['POST', '/v1/pay/webhooks/whsub_x/test'],
      ['POST', '/v1/pay/webhooks/whsub_x/recover', { since: 0 }],
    ];
    for (const [method, path, body] of calls) {
      const res = await off.app.call(method, path, { key, body });
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(503);
      expect(res.body).toStrictEqual({
        code: 'PAY_WEBHOOKS_DISABLED',
        message: 'pay webhooks are turned off on this deployment',
      });
    }
    expect(off.app.app.services.payWebhooks.enabled).toBe(false);
  });
});
