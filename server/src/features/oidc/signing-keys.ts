// The provider's keys: the service's asymmetric signing keys (platform/crypto/signing-keys.ts, shared with Connect's
// session tokens) and the cookie keys, generated once and kept in the kv table so every replica sharing the
// database signs with the same key and verifies the same cookies.
import { randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import type { Kysely } from 'kysely';
import { ensureKv, type Database } from '../../platform/db/index';
import { loadSigningJwks, SIGNING_ALG } from '../../platform/crypto/signing-keys';

export const OIDC_COOKIE_KEYS_KV_KEY = 'oidc.cookie_keys';
export const OIDC_SIGNING_ALG = SIGNING_ALG;

export interface ProviderKeys {
  jwks: { keys: JWK[] };
  cookieKeys: string[];
}

export async function loadProviderKeys(db: Kysely<Database>): Promise<ProviderKeys> {
  const jwks = await loadSigningJwks(db);
  const cookieKeys = JSON.parse(
    await ensureKv(db, OIDC_COOKIE_KEYS_KV_KEY, JSON.stringify([randomBytes(32).toString('base64url')])),
  );
  return { jwks, cookieKeys };
}
