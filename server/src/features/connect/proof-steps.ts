// The steps the three Connect proofs share: open the challenge, consume it once, issue the session.
import { DISCLAIMER, PROVES, type ConnectSource, type Session } from '@sigil/contract/connect';
import { ApiError } from '@sigil/contract/errors';
import type { HandleAccount } from '../../platform/chain/types';
import { decodeSignature } from '../../platform/crypto/wallet-signature';
import { consumeChallenge, findChallenge } from './challenge.queries';
import type { ChallengeRow, ConnectDeps } from './deps';
import { primaryOf, verifiedSlugs } from './handle-reads';

export const proofInvalid = (why: string) => new ApiError('CONTROL_PROOF_INVALID', why);

export function decodeSig(signature: string, allowBase64: boolean): Uint8Array {
  const decoded = decodeSignature(signature, { allowBase64 });
  if (!decoded.ok) throw new ApiError('INVALID_SIGNATURE_ENCODING', decoded.message);
  return decoded.bytes;
}

/** Loads a challenge for a verify and applies the state rules, in the spec's order of precedence. */
export async function openChallenge(deps: ConnectDeps, audience: string, nonce: string): Promise<ChallengeRow> {
  const row = await findChallenge(deps.db, nonce);
  if (!row || row.used_at !== null) throw new ApiError('CHALLENGE_NOT_FOUND', 'unknown or already used challenge');
  if (row.audience !== audience) {
    throw new ApiError('CHALLENGE_AUDIENCE_MISMATCH', 'the challenge was issued to another API key');
  }
  if (row.expires_at <= deps.now()) {
    throw new ApiError('CHALLENGE_EXPIRED', 'the challenge has expired; request a new one');
  }
  return row;
}

/**
 * Consume-once: the single UPDATE whose row count decides the winner of concurrent verifies. A consumed nonce
 * must not come back after a power cut, so nothing is issued before it is on disk: on SQLite it commits without
 * its own fsync and then waits for the shared durability barrier (one fsync for every verify of that moment).
 */
export async function consume(deps: ConnectDeps, row: ChallengeRow): Promise<void> {
  if (!(await consumeChallenge(deps.db, row.nonce, deps.now()))) {
    throw new ApiError('CHALLENGE_NOT_FOUND', 'unknown or already used challenge');
  }
  await deps.durable();
}

export async function issueSession(
  deps: ConnectDeps,
  audience: string,
  address: string,
  handle: HandleAccount | null,
  source: ConnectSource,
  known?: string[],
): Promise<Session> {
  const verified = known ?? (handle ? await verifiedSlugs(deps, handle) : []);
  const handleName = handle?.name ?? null;
  const { token, claims } = await deps.sessions.issue({ audience, address, handle: handleName, source });
  return {
    token,
    token_type: 'Bearer',
    expires_at: claims.expiresAt,
    handle: handleName,
    address,
    verified,
    source,
    proves: PROVES,
    disclaimer: DISCLAIMER,
  };
}

/** Address-control proofs end here: the session reports the wallet's primary (best-effort) and its attestations. */
export async function walletSession(deps: ConnectDeps, audience: string, wallet: string): Promise<Session> {
  let handle: HandleAccount | null = null;
  try {
    handle = await primaryOf(deps, wallet);
  } catch {
    handle = null; // the session read re-reads it; wallet control is proven either way
  }
  return issueSession(deps, audience, wallet, handle, 'wallet');
}
