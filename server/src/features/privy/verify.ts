// Privy identity tokens, verified offline (docs/privy.md): ES256 under the configured verification key, issued by
// privy.io for the configured app, unexpired; then the Solana wallets its `linked_accounts` claim lists. Each way a
// token fails has its own answer, so an integrator can tell a misconfigured app id from an expired session.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { errors, jwtVerify } from 'jose';
import { PublicError } from '@sigil/contract/errors';
import { isBase58Address } from '@sigil/contract/names';

/** Privy's issuer claim, on every token it signs. */
export const PRIVY_ISSUER = 'privy.io';

export interface PrivyIdentity {
  /** The Privy user id (`sub`, `did:privy:…`). */
  user: string;
  /** Solana wallets the token lists, in its order, without duplicates. */
  wallets: { address: string; embedded: boolean }[];
}

export interface PrivyVerifier {
  verify(identityToken: string): Promise<PrivyIdentity>;
}

/** How jose's refusals map to our answers; anything else about the token (shape, signature, alg) is INVALID. */
function refusalOf(err: unknown): PublicError {
  if (err instanceof errors.JWTExpired) return new PublicError('PRIVY_TOKEN_EXPIRED');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return new PublicError('PRIVY_WRONG_AUDIENCE');
    if (err.claim === 'iss') return new PublicError('PRIVY_WRONG_ISSUER');
  }
  return new PublicError('PRIVY_TOKEN_INVALID');
}

/** `linked_accounts`: Privy writes it as a JSON string; an array is read the same. Anything else: none. */
function linkedAccounts(claim: unknown): unknown[] {
  if (Array.isArray(claim)) return claim;
  if (typeof claim !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(claim);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

function solanaWallets(claim: unknown): PrivyIdentity['wallets'] {
  const seen = new Set<string>();
  const wallets: PrivyIdentity['wallets'] = [];
  for (const account of linkedAccounts(claim)) {
    if (typeof account !== 'object' || account === null) continue;
    const a = account as Record<string, unknown>;
    if (a.type !== 'wallet' || a.chain_type !== 'solana' || typeof a.address !== 'string') continue;
    if (!isBase58Address(a.address) || seen.has(a.address)) continue;
    seen.add(a.address);
    wallets.push({ address: a.address, embedded: a.wallet_client_type === 'privy' || a.connector_type === 'embedded' });
  }
  return wallets;
}

export function createPrivyVerifier(settings: { appId: string; verificationKey: string }): PrivyVerifier {
  const key: KeyObject = createPublicKey(settings.verificationKey);
  return {
    async verify(identityToken) {
      let payload;
      try {
        ({ payload } = await jwtVerify(identityToken, key, {
          algorithms: ['ES256'],
          issuer: PRIVY_ISSUER,
          audience: settings.appId,
          requiredClaims: ['sub', 'exp', 'iat'],
        }));
      } catch (err) {
        throw refusalOf(err);
      }
      const wallets = solanaWallets(payload.linked_accounts);
      if (wallets.length === 0) throw new PublicError('PRIVY_NO_SOLANA_WALLET');
      return { user: payload.sub!, wallets };
    },
  };
}
