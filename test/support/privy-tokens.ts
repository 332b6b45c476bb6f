// Privy-shaped identity tokens for tests: a locally generated ES256 key stands in for Privy's, and tokens carry
// Privy's claims (iss privy.io, aud the app id, sub a did:privy DID, linked_accounts as a JSON string).
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

export const PRIVY_TEST_APP_ID = 'clprivytestapp000000000000';
export const PRIVY_TEST_USER = 'did:privy:clprivytestuser0000000000';

export interface PrivyIssuer {
  /** The PEM (SPKI) to configure as SIGIL_PRIVY_VERIFICATION_KEY. */
  publicPem: string;
  /** The env that configures the service for this issuer. */
  env: Record<string, string>;
  /** A token: Privy's claims, overridden by `claims`; signed with this issuer's key unless `key` is given. */
  token(claims?: Record<string, unknown>, options?: { key?: CryptoKey; expiresIn?: string | number }): Promise<string>;
}

/** A Solana wallet entry of `linked_accounts`, as Privy lists an embedded one. */
export function solanaWallet(address: string, embedded = true): Record<string, unknown> {
  return {
    type: 'wallet',
    address,
    chain_type: 'solana',
    wallet_client_type: embedded ? 'privy' : 'phantom',
    connector_type: embedded ? 'embedded' : 'solana_adapter',
  };
}

export async function privyIssuer(): Promise<PrivyIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicPem = await exportSPKI(publicKey);
  return {
    publicPem,
    env: { SIGIL_PRIVY_APP_ID: PRIVY_TEST_APP_ID, SIGIL_PRIVY_VERIFICATION_KEY: publicPem },
    async token(claims = {}, options = {}) {
      const { linked_accounts, ...rest } = claims;
      return new SignJWT({
        linked_accounts: JSON.stringify(linked_accounts ?? []),
        ...rest,
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: 'privy' })
        .setIssuer(typeof rest.iss === 'string' ? rest.iss : 'privy.io')
        .setAudience(typeof rest.aud === 'string' ? rest.aud : PRIVY_TEST_APP_ID)
        .setSubject(PRIVY_TEST_USER)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '1h')
        .sign(options.key ?? privateKey);
    },
  };
}
