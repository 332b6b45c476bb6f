// The service's session signing key as a test needs it: to sign its own expired or unknown-jti tokens with the
// genuine key (so only the rule under test refuses them), and the public half for algorithm-confusion attempts.
import { importJWK, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../../server/src/platform/db/index';
import { loadSigningJwks, publicJwk, SIGNING_ALG } from '../../server/src/platform/crypto/signing-keys';

export async function sessionSigningKey(
  db: Kysely<Database>,
): Promise<{ alg: typeof SIGNING_ALG; key: CryptoKey; kid: string; publicJwk: JWK }> {
  const [first] = (await loadSigningJwks(db)).keys;
  return {
    alg: SIGNING_ALG,
    key: (await importJWK(first!, SIGNING_ALG)) as CryptoKey,
    kid: first!.kid!,
    publicJwk: publicJwk(first!),
  };
}
