// Signed decisions: the key from config, a generated one kept in the db outside production, none in production; the
// JWKS entry checked against an independent Ed25519 derivation and a hand-built RFC 7638 thumbprint.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader, jwtVerify, createLocalJWKSet } from 'jose';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ApiError } from '@sigil/contract/errors';
import type { GateDecision } from '@sigil/contract/gate';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../platform/db/index';
import { createDecisionSigner, DECISION_JWT_TYPE, GATE_SIGNING_KV_KEY } from './signing';

const SEED = Buffer.alloc(32, 7);
const decision: GateDecision = {
  decision: 'allow',
  policyHash: 'a'.repeat(64),
  subject: { wallet: 'w', handle: 'h' },
  slot: 10,
  evaluatedAt: 1_800_000_000,
  validUntil: 1_800_000_060,
  reasons: [{ path: '/wallet.in', result: true, evidence: { wallet: 'w' } }],
};

let database: DatabaseHandle;
beforeAll(async () => {
  database = createDatabase({ sqliteFile: ':memory:' });
  await migrateToLatest(database.db);
});
afterAll(async () => {
  await database.close();
});

describe('decision signing', () => {
  it('the configured seed: the JWKS key is its Ed25519 public key, kid its RFC 7638 thumbprint', async () => {
    const signer = createDecisionSigner({
      db: database.db,
      seed: SEED.toString('base64url'),
      production: true,
      issuer: 'https://sigil.test',
    });
    const { keys } = await signer.jwks();
    const x = Buffer.from(ed25519.getPublicKey(SEED)).toString('base64url');
    const kid = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
    expect(keys).toStrictEqual([{ kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' }]);

    const jws = await signer.sign(decision, 'key_integrator');
    expect(decodeProtectedHeader(jws)).toStrictEqual({ alg: 'EdDSA', kid, typ: DECISION_JWT_TYPE });
    const [header, payload, signature] = jws.split('.') as [string, string, string];
    expect(
      ed25519.verify(
        Buffer.from(signature, 'base64url'),
        Buffer.from(`${header}.${payload}`),
        Buffer.from(x, 'base64url'),
      ),
    ).toBe(true);
    const { payload: claims } = await jwtVerify(jws, createLocalJWKSet({ keys }), {
      algorithms: ['EdDSA'],
      currentDate: new Date(decision.evaluatedAt * 1000),
    });
    expect(claims).toStrictEqual({
      ...decision,
      iss: 'https://sigil.test',
      aud: 'key_integrator',
      jti: expect.stringMatching(/^gd_[1-9A-HJ-NP-Za-km-z]{22}$/),
      iat: decision.evaluatedAt,
      exp: decision.validUntil,
    });
  });

  it('a decision names its audience (the key id that asked) and has an id of its own', async () => {
    const signer = createDecisionSigner({
      db: database.db,
      seed: SEED.toString('base64url'),
      production: true,
      issuer: 'i',
    });
    const jwks = createLocalJWKSet(await signer.jwks());
    const options = { algorithms: ['EdDSA'], currentDate: new Date(decision.evaluatedAt * 1000) };
    const jws = await signer.sign(decision, 'key_integrator');
    await expect(jwtVerify(jws, jwks, { ...options, audience: 'key_integrator' })).resolves.toBeDefined();
    // Another integrator that trusts the same JWKS refuses it, as docs/gate.md tells it to check.
    await expect(jwtVerify(jws, jwks, { ...options, audience: 'key_other' })).rejects.toMatchObject({
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'aud',
    });
    const again = await signer.sign(decision, 'key_integrator');
    expect(decodeJwt(again).jti).not.toBe(decodeJwt(jws).jti);
  });

  it('production without a seed: no key published, sign → 501 NOT_CONFIGURED', async () => {
    const signer = createDecisionSigner({ db: database.db, production: true, issuer: 'x' });
    expect(await signer.jwks()).toStrictEqual({ keys: [] });
    const err = await signer.sign(decision, 'key_integrator').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).toBody()).toStrictEqual({
      code: 'NOT_CONFIGURED',
      message: 'signed decisions are off: SIGIL_GATE_SIGNING_KEY is not set',
    });
  });

  it('development without a seed: one generated key, kept in the db and shared by every signer on it', async () => {
    const a = await createDecisionSigner({ db: database.db, production: false, issuer: 'x' }).jwks();
    const b = await createDecisionSigner({ db: database.db, production: false, issuer: 'x' }).jwks();
    expect(a.keys).toHaveLength(1);
    expect(b).toStrictEqual(a);
    const stored = await database.db
      .selectFrom('kv')
      .select('value')
      .where('key', '=', GATE_SIGNING_KV_KEY)
      .executeTakeFirstOrThrow();
    expect(Buffer.from(stored.value, 'base64url')).toHaveLength(32);
    expect(a.keys[0]!.x).toBe(
      Buffer.from(ed25519.getPublicKey(Buffer.from(stored.value, 'base64url'))).toString('base64url'),
    );
  });
});
