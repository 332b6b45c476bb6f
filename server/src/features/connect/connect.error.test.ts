// Connect error paths over real HTTP: malformed requests answer our chosen codes, challenge states answer the
// spec's codes, proofs that do not hold answer CONTROL_PROOF_INVALID. Never a 500.
import { describe, expect, it } from 'vitest';
import { buildSignInMessage, signChallenge, signSignIn } from '@sigil/client-sdk/connect';
import { signMemoTransaction } from '@sigil/client-sdk/connect-tx';
import { startKeyedApp, TEST_PORTAL_DOMAIN } from '@sigil/test/support/keyed-app';
import { demoWallet } from '../../localchain/scenario';
import { show, useConnectWorld } from '@sigil/test/support/connect-world';

const world = useConnectWorld();

const post = (path: string, body: unknown) => world.app.call('POST', path, { key: world.secret, body });
const expectCode = (res: { status: number; body: any; text: string }, status: number, code: string) => {
  expect(res.status, show(res as never)).toBe(status);
  expect(res.body.code, show(res as never)).toBe(code);
  expect(Object.keys(res.body).sort()).toStrictEqual(['code', 'message']);
};

describe('malformed challenge requests (codes we chose, docs/connect.md)', () => {
  it.each([
    ['neither handle nor wallet', {}, 400, 'INVALID_CHALLENGE_REQUEST'],
    [
      'both handle and wallet',
      { handle: 'alice', wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' },
      400,
      'INVALID_CHALLENGE_REQUEST',
    ],
    ['mode with handle', { handle: 'alice', mode: 'tx' }, 400, 'INVALID_CHALLENGE_REQUEST'],
    ['mode without wallet', { mode: 'signin' }, 400, 'INVALID_CHALLENGE_REQUEST'],
    [
      'unknown mode',
      { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', mode: 'email' },
      400,
      'INVALID_CHALLENGE_REQUEST',
    ],
    ['bad base58 wallet', { wallet: '0OIl-not-base58' }, 400, 'INVALID_WALLET'],
    ['wallet of the wrong length', { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGY' }, 400, 'INVALID_WALLET'],
    ['handle of the wrong type', { handle: 42 }, 400, 'INVALID_HANDLE'],
    ['invalid handle', { handle: '@bad handle!' }, 400, 'INVALID_HANDLE'],
    ['unregistered handle', { handle: 'nobody' }, 404, 'HANDLE_NOT_REGISTERED'],
  ])('%s', async (_name, body, status, code) => {
    expectCode(await post('/v1/auth/challenge', body), status, code);
  });

  it('a non-object or non-JSON body → 400, never a 500', async () => {
    for (const body of ['[1,2]', '"alice"', '42', 'null']) {
      const res = await post('/v1/auth/challenge', body);
      expect(res.status, show(res)).toBe(400);
      expect(['INVALID_CHALLENGE_REQUEST', 'BAD_REQUEST']).toContain(res.body.code);
    }
    const res = await post('/v1/auth/challenge', '{not json');
    expectCode(res, 400, 'BAD_REQUEST');
  });
});

describe('challenge states', () => {
  it('unknown nonce → 401 CHALLENGE_NOT_FOUND on all three verify paths', async () => {
    expectCode(
      await post('/v1/auth/verify', { nonce: 'nope', signature: '1'.repeat(64), signer: keyIdWallet() }),
      401,
      'CHALLENGE_NOT_FOUND',
    );
    expectCode(
      await post('/v1/auth/verify-tx', { nonce: 'nope', signedTransaction: 'AA==' }),
      401,
      'CHALLENGE_NOT_FOUND',
    );
    expectCode(
      await post('/v1/auth/verify-signin', { nonce: 'nope', signedMessage: 'AA==', signature: '1'.repeat(64) }),
      401,
      'CHALLENGE_NOT_FOUND',
    );
  });

  it('past expires_at → 401 CHALLENGE_EXPIRED, even with a valid signature', async () => {
    const alice = await demoWallet('alice');
    const c = await post('/v1/auth/challenge', { handle: 'alice' });
    await world.app.database.db
      .updateTable('connect_challenges')
      .set({ expires_at: Date.now() - 1 })
      .where('nonce', '=', c.body.nonce)
      .execute();
    expectCode(
      await post('/v1/auth/verify', await signChallenge(c.body, alice, world.keyId)),
      401,
      'CHALLENGE_EXPIRED',
    );
  });

  it('SIGIL_CHALLENGE_TTL_SECONDS sets the lifetime', async () => {
    const short = await startKeyedApp({
      dialect: 'sqlite',
      chain: world.chain,
      env: { SIGIL_CHALLENGE_TTL_SECONDS: '60', SIGIL_SESSION_TTL_SECONDS: '3600' },
    });
    try {
      const heidi = await demoWallet('heidi');
      const now = Math.floor(Date.now() / 1000);
      const c = await short.call('POST', '/v1/auth/challenge', {
        key: short.key.secret,
        body: { wallet: heidi.address },
      });
      expect(c.body.expires_at - now).toBeGreaterThanOrEqual(59);
      expect(c.body.expires_at - now).toBeLessThanOrEqual(61);
      const v = await short.call('POST', '/v1/auth/verify', {
        key: short.key.secret,
        body: await signChallenge(c.body, heidi, short.key.key.id),
      });
      expect(v.body.expires_at - now).toBeGreaterThanOrEqual(3599);
      expect(v.body.expires_at - now).toBeLessThanOrEqual(3601);
    } finally {
      await short.close();
    }
  });
});

describe('verify', () => {
  it('a handle challenge without signer → 400 BAD_REQUEST; a malformed signer → 400 INVALID_WALLET', async () => {
    const alice = await demoWallet('alice');
    const c = await post('/v1/auth/challenge', { handle: 'alice' });
    const { signature } = await signChallenge(c.body, alice, world.keyId);
    expectCode(await post('/v1/auth/verify', { nonce: c.body.nonce, signature }), 400, 'BAD_REQUEST');
    expectCode(
      await post('/v1/auth/verify', { nonce: c.body.nonce, signature, signer: 'nope' }),
      400,
      'INVALID_WALLET',
    );
  });

  it('a signature that is not base58 or not 64 bytes → 400 INVALID_SIGNATURE_ENCODING', async () => {
    const c = await post('/v1/auth/challenge', { handle: 'alice' });
    const signer = (await demoWallet('alice')).address;
    expectCode(
      await post('/v1/auth/verify', { nonce: c.body.nonce, signature: '0OIl', signer }),
      400,
      'INVALID_SIGNATURE_ENCODING',
    );
    expectCode(
      await post('/v1/auth/verify', { nonce: c.body.nonce, signature: '1'.repeat(10), signer }),
      400,
      'INVALID_SIGNATURE_ENCODING',
    );
  });

  it('a failed proof does not burn the challenge: the right signature still works afterwards', async () => {
    const alice = await demoWallet('alice');
    const bob = await demoWallet('bob');
    const c = await post('/v1/auth/challenge', { handle: 'alice' });
    const wrong = await signChallenge(c.body, bob, world.keyId);
    expectCode(await post('/v1/auth/verify', { ...wrong, signer: alice.address }), 401, 'CONTROL_PROOF_INVALID');
    const right = await post('/v1/auth/verify', await signChallenge(c.body, alice, world.keyId));
    expect(right.status, show(right)).toBe(200);
  });
});

describe('verify-tx', () => {
  it('a challenge without mode tx → 401 CONTROL_PROOF_INVALID', async () => {
    const heidi = await demoWallet('heidi');
    const c = await post('/v1/auth/challenge', { wallet: heidi.address });
    const tx = await signMemoTransaction(
      `sigil-verify:${world.keyId}:${c.body.nonce}`,
      heidi,
      world.chain.latestBlockhash().blockhash,
    );
    const res = await post('/v1/auth/verify-tx', { nonce: c.body.nonce, signedTransaction: tx });
    expectCode(res, 401, 'CONTROL_PROOF_INVALID');
    expect(res.body.message).toBe('this challenge was not requested with mode `tx`');
  });

  it('undecodable transaction, wrong memo, or another wallet as signer → 401 CONTROL_PROOF_INVALID with the reason', async () => {
    const heidi = await demoWallet('heidi');
    const grace = await demoWallet('grace');
    const c = await post('/v1/auth/challenge', { wallet: heidi.address, mode: 'tx' });
    const blockhash = world.chain.latestBlockhash().blockhash;
    const cases: [string, string][] = [
      ['AAAA', 'undecodable'],
      [await signMemoTransaction(`sigil-verify:${world.keyId}:other`, heidi, blockhash), 'memo-mismatch'],
      [await signMemoTransaction(c.body.memo, grace, blockhash), 'fee-payer-mismatch'],
    ];
    for (const [signedTransaction, reason] of cases) {
      const res = await post('/v1/auth/verify-tx', { nonce: c.body.nonce, signedTransaction });
      expectCode(res, 401, 'CONTROL_PROOF_INVALID');
      expect(res.body.message.startsWith(`${reason}:`), show(res)).toBe(true);
    }
  });
});

describe('verify-signin', () => {
  it('a handle-control challenge → 400 SIGNIN_PATH_HANDLE_UNSUPPORTED', async () => {
    const alice = await demoWallet('alice');
    const c = await post('/v1/auth/challenge', { wallet: alice.address }); // primary alice → handle control
    const message = buildSignInMessage({ domain: TEST_PORTAL_DOMAIN, address: alice.address, nonce: c.body.nonce });
    expectCode(
      await post('/v1/auth/verify-signin', await signSignIn(c.body.nonce, message, alice)),
      400,
      'SIGNIN_PATH_HANDLE_UNSUPPORTED',
    );
  });

  it.each([
    ['a domain off the allowlist', { domain: 'evil.example' }, 'domain-not-allowed'],
    ['another nonce', { nonce: 'othernonce123' }, 'nonce-mismatch'],
    [
      'an expired Expiration Time',
      { issuedAt: '2020-01-01T00:00:00Z', expirationTime: '2020-01-01T00:05:00Z' },
      'expired',
    ],
    ['another wallet on line 2', { address: 'GrAkKfEpTKQuVHG2Y97Y2FF4i7y7Q5AHLK94JBy7Y5yv' }, 'address-mismatch'],
  ])('%s → 401 CONTROL_PROOF_INVALID (%s)', async (_name, override, reason) => {
    const heidi = await demoWallet('heidi');
    const c = await post('/v1/auth/challenge', { wallet: heidi.address, mode: 'signin' });
    const message = buildSignInMessage({
      domain: TEST_PORTAL_DOMAIN,
      address: heidi.address,
      nonce: c.body.nonce,
      ...override,
    });
    const res = await post('/v1/auth/verify-signin', await signSignIn(c.body.nonce, message, heidi));
    expectCode(res, 401, 'CONTROL_PROOF_INVALID');
    expect(res.body.message.startsWith(`${reason}:`), show(res)).toBe(true);
  });

  it('a bad signature encoding → 400 INVALID_SIGNATURE_ENCODING', async () => {
    const heidi = await demoWallet('heidi');
    const c = await post('/v1/auth/challenge', { wallet: heidi.address, mode: 'signin' });
    const message = buildSignInMessage({ domain: TEST_PORTAL_DOMAIN, address: heidi.address, nonce: c.body.nonce });
    const body = await signSignIn(c.body.nonce, message, heidi);
    expectCode(await post('/v1/auth/verify-signin', { ...body, signature: '!!!' }), 400, 'INVALID_SIGNATURE_ENCODING');
  });
});

describe('session read', () => {
  it('no bearer or a malformed one → 401 INVALID_SESSION', async () => {
    expectCode(await world.app.call('GET', '/v1/auth/session', { key: world.secret }), 401, 'INVALID_SESSION');
    expectCode(
      await world.app.call('GET', '/v1/auth/session', { key: world.secret, bearer: 'abc' }),
      401,
      'INVALID_SESSION',
    );
    expectCode(
      await world.app.call('GET', '/v1/auth/session', {
        key: world.secret,
        headers: { authorization: 'Basic Zm9vOmJhcg==' },
      }),
      401,
      'INVALID_SESSION',
    );
  });

  it('the chain RPC down → 502 RPC_ERROR on challenge (a chain read is needed), never a 500', async () => {
    world.chain.faults.set({ unreachable: true });
    try {
      expectCode(await post('/v1/auth/challenge', { handle: 'alice' }), 502, 'RPC_ERROR');
    } finally {
      world.chain.faults.clear();
    }
  });
});

function keyIdWallet(): string {
  return '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
}
