// Connect security rules over real HTTP: audience binding, refused v1/unbound strings, live authority, single use
// under real concurrency (SQLite and Postgres), and sessions that are bound, pinned and revocable.
import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signChallenge, signMessage } from '@sigil/client-sdk/connect';
import { signMemoTransaction } from '@sigil/client-sdk/connect-tx';
import { DIALECTS, postgresReachable } from '@sigil/test/support/db';
import { startKeyedApp } from '@sigil/test/support/keyed-app';
import { sessionSigningKey } from '@sigil/test/support/session-keys';
import { demoWallet } from '../../localchain/scenario';
import { jtiOf, show, signIn, useConnectWorld } from '@sigil/test/support/connect-world';

const world = useConnectWorld();

const post = (path: string, body: unknown, key = world.secret) => world.app.call('POST', path, { key, body });
const expectCode = (res: { status: number; body: any; text: string }, status: number, code: string) => {
  expect(res.status, `${res.status} ${res.text}`).toBe(status);
  expect(res.body.code, `${res.status} ${res.text}`).toBe(code);
};

describe('audience binding and old strings', () => {
  it('a challenge issued to key A, presented with key B → 401 CHALLENGE_AUDIENCE_MISMATCH', async () => {
    const alice = await demoWallet('alice');
    const c = await post('/v1/auth/challenge', { handle: 'alice' });
    const body = await signChallenge(c.body, alice, world.keyId);
    expectCode(await post('/v1/auth/verify', body, world.app.otherKey.secret), 401, 'CHALLENGE_AUDIENCE_MISMATCH');
    // and the challenge is still usable by its own key
    expect((await post('/v1/auth/verify', body)).status).toBe(200);
  });

  it('the v1 unbound wallet string, the bare handle statement and a string bound to another audience → 401 CONTROL_PROOF_INVALID', async () => {
    const alice = await demoWallet('alice');
    const heidi = await demoWallet('heidi');
    const other = world.app.otherKey.key.id;

    const w = await post('/v1/auth/challenge', { wallet: heidi.address });
    for (const message of [
      `sigil-connect:v1:wallet-control:${heidi.address}:${w.body.nonce}`,
      `sigil-connect:v2:wallet-control:${other}:${heidi.address}:${w.body.nonce}`,
    ]) {
      const res = await post('/v1/auth/verify', {
        nonce: w.body.nonce,
        signature: await signMessage(heidi, message),
        signer: heidi.address,
      });
      expectCode(res, 401, 'CONTROL_PROOF_INVALID');
    }
    const v1 = await post('/v1/auth/verify', {
      nonce: w.body.nonce,
      signature: await signMessage(heidi, `sigil-connect:v1:wallet-control:${heidi.address}:${w.body.nonce}`),
      signer: heidi.address,
    });
    expect(v1.body.message).toBe(
      'the signature is over an unbound v1 string; sign the v2 audience-bound `challenge` exactly',
    );

    const h = await post('/v1/auth/challenge', { handle: 'alice' });
    for (const message of [
      `sigil-handles:ctl:v1:alice:1:${h.body.nonce}`,
      `sigil-connect:v2:handle-control:${other}:sigil-handles:ctl:v1:alice:1:${h.body.nonce}`,
    ]) {
      const res = await post('/v1/auth/verify', {
        nonce: h.body.nonce,
        signature: await signMessage(alice, message),
        signer: alice.address,
      });
      expectCode(res, 401, 'CONTROL_PROOF_INVALID');
    }
  });

  it('the unbound v1 memo and a memo bound to another audience → 401 CONTROL_PROOF_INVALID', async () => {
    const heidi = await demoWallet('heidi');
    const c = await post('/v1/auth/challenge', { wallet: heidi.address, mode: 'tx' });
    const blockhash = world.chain.latestBlockhash().blockhash;
    for (const [memo, reason] of [
      [`sigil-verify:${c.body.nonce}`, 'memo-unbound-v1'],
      [`sigil-verify:${world.app.otherKey.key.id}:${c.body.nonce}`, 'memo-other-audience'],
    ] as const) {
      const res = await post('/v1/auth/verify-tx', {
        nonce: c.body.nonce,
        signedTransaction: await signMemoTransaction(memo, heidi, blockhash),
      });
      expectCode(res, 401, 'CONTROL_PROOF_INVALID');
      expect(res.body.message.startsWith(`${reason}:`)).toBe(true);
    }
  });
});

describe('live handle authority', () => {
  it('a valid signature by a wallet without authority → 401 CONTROL_PROOF_INVALID', async () => {
    // vault: recorded owner carol, NFT held by dave → carol has no authority. drift: transferred from grace to heidi.
    for (const [handle, name] of [
      ['vault', 'carol'],
      ['drift', 'grace'],
      ['alice', 'bob'],
    ] as const) {
      const wallet = await demoWallet(name);
      const c = await post('/v1/auth/challenge', { handle });
      const res = await post('/v1/auth/verify', await signChallenge(c.body, wallet, world.keyId));
      expectCode(res, 401, 'CONTROL_PROOF_INVALID');
      expect(res.body.message).toBe(
        `the signer is not the current authority of @${handle} (owner, or NFT holder when tokenized)`,
      );
    }
  });

  it('a {wallet} challenge verified with another signer → 401 CONTROL_PROOF_INVALID', async () => {
    const heidi = await demoWallet('heidi');
    const grace = await demoWallet('grace');
    const c = await post('/v1/auth/challenge', { wallet: heidi.address });
    const forged = {
      nonce: c.body.nonce,
      signature: await signMessage(grace, c.body.challenge),
      signer: grace.address,
    };
    const res = await post('/v1/auth/verify', forged);
    expectCode(res, 401, 'CONTROL_PROOF_INVALID');
    expect(res.body.message).toBe('the signer is not the challenged wallet');
  });
});

describe('single use', () => {
  it('a replayed verify → 401 CHALLENGE_NOT_FOUND', async () => {
    const alice = await demoWallet('alice');
    const c = await post('/v1/auth/challenge', { handle: 'alice' });
    const body = await signChallenge(c.body, alice, world.keyId);
    expect((await post('/v1/auth/verify', body)).status).toBe(200);
    expectCode(await post('/v1/auth/verify', body), 401, 'CHALLENGE_NOT_FOUND');
  });

  for (const dialect of DIALECTS) {
    const run = dialect === 'postgres' && !postgresReachable ? it.skip : it;
    run(
      `[${dialect}] 12 concurrent verifies of one valid proof (mixed paths): exactly one session, the rest CHALLENGE_NOT_FOUND`,
      async () => {
        const own = await startKeyedApp({ dialect, chain: world.chain });
        try {
          const heidi = await demoWallet('heidi');
          for (let round = 0; round < 3; round++) {
            const c = await own.call('POST', '/v1/auth/challenge', {
              key: own.key.secret,
              body: { wallet: heidi.address, mode: 'tx' },
            });
            const verifyBody = await signChallenge(c.body, heidi, own.key.key.id);
            const txBody = {
              nonce: c.body.nonce,
              signedTransaction: await signMemoTransaction(c.body.memo, heidi, world.chain.latestBlockhash().blockhash),
            };
            const results = await Promise.all(
              Array.from({ length: 12 }, (_, i) =>
                i % 2 === 0
                  ? own.call('POST', '/v1/auth/verify', { key: own.key.secret, body: verifyBody })
                  : own.call('POST', '/v1/auth/verify-tx', { key: own.key.secret, body: txBody }),
              ),
            );
            const statuses = results.map((r) => `${r.status} ${r.body.code ?? 'session'}`).sort();
            expect(statuses, results.map(show).join('\n')).toStrictEqual([
              '200 session',
              ...Array(11).fill('401 CHALLENGE_NOT_FOUND'),
            ]);
          }
          const sessions = await own.database.db.selectFrom('connect_sessions').select('jti').execute();
          expect(sessions).toHaveLength(3);
        } finally {
          await own.close();
        }
      },
    );
  }
});

describe('sessions', () => {
  const read = (bearer: string, key = world.secret) => world.app.call('GET', '/v1/auth/session', { key, bearer });

  it('a session is valid only for the key that issued it', async () => {
    const v = await signIn(world.app, {
      keySecret: world.secret,
      audience: world.keyId,
      wallet: await demoWallet('heidi'),
    });
    expect((await read(v.body.token)).status).toBe(200);
    const res = await read(v.body.token, world.app.otherKey.secret);
    expectCode(res, 401, 'INVALID_SESSION');
    expect(res.body.message).toBe('the session was issued to another key');
  });

  it('alg none, HS256 keyed with our public key, another signing key, expired, or a well-signed token without a stored jti → 401 INVALID_SESSION', async () => {
    const heidi = await demoWallet('heidi');
    const v = await signIn(world.app, { keySecret: world.secret, audience: world.keyId, wallet: heidi });
    const jti = jtiOf(v.body.token);
    const claims = { handle: null, src: 'wallet' };
    const now = Math.floor(Date.now() / 1000);
    const genuine = await sessionSigningKey(world.app.database.db);
    const other = await generateKeyPair('ES256');
    const build = (jwtId = jti, iat = now, exp = now + 3600) =>
      new SignJWT(claims)
        .setIssuer('sigil')
        .setSubject(heidi.address)
        .setAudience(world.keyId)
        .setJti(jwtId)
        .setIssuedAt(iat)
        .setExpirationTime(exp);
    const signed = (jwtId = jti, iat = now, exp = now + 3600) =>
      build(jwtId, iat, exp).setProtectedHeader({ alg: 'ES256', kid: genuine.kid }).sign(genuine.key);
    const tokens = {
      none: new UnsecuredJWT(claims)
        .setIssuer('sigil')
        .setSubject(heidi.address)
        .setAudience(world.keyId)
        .setJti(jti)
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .encode(),
      // another key claiming our kid, and another key with no kid
      forged: await build().setProtectedHeader({ alg: 'ES256', kid: genuine.kid }).sign(other.privateKey),
      forgedNoKid: await build().setProtectedHeader({ alg: 'ES256' }).sign(other.privateKey),
      // algorithm confusion: HMAC keyed with our published key, a valid stored jti
      confused: await build()
        .setProtectedHeader({ alg: 'HS256', kid: genuine.kid })
        .sign(new TextEncoder().encode(JSON.stringify(genuine.publicJwk))),
      expired: await signed(jti, now - 7200, now - 3600),
      unknownJti: await signed('sess_madeup'),
      tampered: v.body.token.slice(0, -2) + (v.body.token.endsWith('AA') ? 'BB' : 'AA'),
    };
    for (const [name, token] of Object.entries(tokens)) {
      const res = await read(token);
      expect(res.status, `${name}: ${show(res)}`).toBe(401);
      expect(res.body.code, name).toBe('INVALID_SESSION');
    }
    // the genuine token still works
    expect((await read(v.body.token)).status).toBe(200);
  });

  it('a revoked session → 401 INVALID_SESSION at once', async () => {
    const v = await signIn(world.app, {
      keySecret: world.secret,
      audience: world.keyId,
      wallet: await demoWallet('heidi'),
    });
    expect(await world.app.app.services.sessions!.revoke(jtiOf(v.body.token))).toBe(true);
    const res = await read(v.body.token);
    expectCode(res, 401, 'INVALID_SESSION');
    expect(res.body.message).toBe('the session has been revoked');
  });
});
