// The provider's asymmetric signing keys and cookie keys, generated once and kept in the kv table so every
// replica sharing the database signs with the same key and verifies the same cookies (like the session secret,
// docs/connect.md). Rotation (docs/oidc.md): put a new key FIRST in the stored set; the first key signs, every
// key stays published in the JWKS until the tokens it signed have expired, then it is removed.
import { randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { ensureKv, type Database } from '../../platform/db/index';

export const OIDC_JWKS_KV_KEY = 'oidc.jwks';
export const OIDC_COOKIE_KEYS_KV_KEY = 'oidc.cookie_keys';
export const OIDC_SIGNING_ALG = 'ES256';

async function newSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(OIDC_SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: OIDC_SIGNING_ALG, use: 'sig' };
}

export interface ProviderKeys {
  jwks: { keys: JWK[] };
  cookieKeys: string[];
}

export async function loadProviderKeys(db: Kysely<Database>): Promise<ProviderKeys> {
  const jwks = JSON.parse(await ensureKv(db, OIDC_JWKS_KV_KEY, JSON.stringify({ keys: [await newSigningJwk()] })));
  const cookieKeys = JSON.parse(
    await ensureKv(db, OIDC_COOKIE_KEYS_KV_KEY, JSON.stringify([randomBytes(32).toString('base64url')])),
  );
  return { jwks, cookieKeys };
}
