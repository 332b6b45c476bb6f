// The service's asymmetric signing keys: ES256 (P-256) private JWKs, generated once and kept in the kv table, so
// every replica sharing the database signs with the same key. The OpenID Connect provider signs id tokens and
// logout tokens with them and publishes their public halves at /oidc/jwks; Connect signs its session tokens with
// the same key, so an integrator may verify a session token offline against that JWKS (docs/connect.md
// "Sessions"). Rotation (docs/oidc.md "Tokens, keys, lifetimes"): put a new key FIRST in the stored set; the first
// key signs, every stored key is published and accepted until the tokens it signed have expired, then it is
// removed.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { ensureKv, type Database } from '../db/index';

export const SIGNING_JWKS_KV_KEY = 'oidc.jwks';
export const SIGNING_ALG = 'ES256';

async function newSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: SIGNING_ALG, use: 'sig' };
}

/** The stored private JWKs (the first one signs), generating the first one if there is none yet. */
export async function loadSigningJwks(db: Kysely<Database>): Promise<{ keys: JWK[] }> {
  return JSON.parse(await ensureKv(db, SIGNING_JWKS_KV_KEY, JSON.stringify({ keys: [await newSigningJwk()] })));
}

/** A private JWK's public half, as published in the JWKS. */
export function publicJwk(jwk: JWK): JWK {
  const { kty, crv, x, y, kid, alg, use } = jwk;
  return { kty, crv, x, y, kid, alg, use };
}
