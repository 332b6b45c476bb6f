// Signed decisions (docs/gate.md "Signed decisions"): a check with `sign: true` also returns the decision as a
// compact JWS (a JWT, EdDSA over Ed25519) so an integrator can pass the proof on; the public key is published as a
// JWKS at /.well-known/jwks.json, its `kid` the RFC 7638 thumbprint.
import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, SignJWT, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import type { GateDecision } from '@sigil/contract/gate';
import { ensureKv, type Database } from '../../platform/db/index';
import { prefixedId } from '../../platform/ids';

/** kv key of the generated seed when SIGIL_GATE_SIGNING_KEY is unset (development and tests). */
export const GATE_SIGNING_KV_KEY = 'gate.signing_seed';
/** The JWS `typ`: a verifier checks it so a decision cannot pass for another kind of token of ours. */
export const DECISION_JWT_TYPE = 'sigil-gate-decision+jwt';

interface SigningKey {
  privateKey: KeyObject;
  publicJwk: JWK;
}

export interface DecisionSigner {
  /** The JWKS document: the one public key, or none when signing is off. */
  jwks(): Promise<{ keys: JWK[] }>;
  /**
   * The decision as a compact JWS for `audience` (the API key id that asked: its `aud`), with an id of its own (`jti`),
   * so a decision minted for one integrator does not pass another's check; 501 NOT_CONFIGURED when signing is off.
   */
  sign(decision: GateDecision, audience: string): Promise<string>;
}

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

async function keyFromSeed(seed: Buffer): Promise<SigningKey> {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const { kty, crv, x } = createPublicKey(privateKey).export({ format: 'jwk' });
  const jwk: JWK = { kty, crv, x };
  const kid = await calculateJwkThumbprint(jwk);
  return { privateKey, publicJwk: { ...jwk, kid, alg: 'EdDSA', use: 'sig' } };
}

export function createDecisionSigner(opts: {
  db: Kysely<Database>;
  seed?: string;
  production: boolean;
  issuer: string;
}): DecisionSigner {
  let key: Promise<SigningKey | null> | undefined;
  const load = () => {
    key ??= (async () => {
      if (opts.seed) return keyFromSeed(Buffer.from(opts.seed, 'base64url'));
      // A production deployment signs only with a key it was given: a generated one would change with the database.
      if (opts.production) return null;
      const stored = await ensureKv(opts.db, GATE_SIGNING_KV_KEY, randomBytes(32).toString('base64url'));
      return keyFromSeed(Buffer.from(stored, 'base64url'));
    })().catch((err: unknown) => {
      key = undefined; // retry on the next call
      throw err;
    });
    return key;
  };
  return {
    async jwks() {
      const loaded = await load();
      return { keys: loaded ? [loaded.publicJwk] : [] };
    },
    async sign(decision, audience) {
      const loaded = await load();
      if (!loaded) {
        throw new ApiError('NOT_CONFIGURED', 'signed decisions are off: SIGIL_GATE_SIGNING_KEY is not set');
      }
      return new SignJWT({ ...decision })
        .setProtectedHeader({ alg: 'EdDSA', kid: loaded.publicJwk.kid, typ: DECISION_JWT_TYPE })
        .setIssuer(opts.issuer)
        .setAudience(audience)
        .setJti(prefixedId('gd_'))
        .setIssuedAt(decision.evaluatedAt)
        .setExpirationTime(decision.validUntil)
        .sign(loaded.privateKey);
    },
  };
}
