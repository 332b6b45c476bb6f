// The steps the three Connect proofs share: open the challenge, consume it once, make the session (a signed token,
// or the row alone for a caller that hands out no token).
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

/** What a proof established, before it becomes a session. */
export interface Proven {
  audience: string;
  address: string;
  handle: HandleAccount | null;
  source: ConnectSource;
  /** The handle's live attestation slugs when the proof already read them. */
  known?: string[];
}

/** A session recorded without a token (ConnectService.proofs): what the OpenID Connect sign-in page keeps. */
export interface OpenedSession {
  jti: string;
  address: string;
  handle: string | null;
  source: ConnectSource;
  verified: string[];
  /** Unix seconds. */
  expires_at: number;
}

/** How a proof ends: a signed token for the REST answer, or the session row alone. */
export type SessionMaker<R> = (deps: ConnectDeps, proven: Proven) => Promise<R>;

const verifiedOf = async (deps: ConnectDeps, proven: Proven) =>
  proven.known ?? (proven.handle ? await verifiedSlugs(deps, proven.handle) : []);

const sessionInput = ({ audience, address, handle, source }: Proven) => ({
  audience,
  address,
  handle: handle?.name ?? null,
  source,
});

/** The REST verbs' ending: a signed session token (docs/connect.md). */
export const tokenSession: SessionMaker<Session> = async (deps, proven) => {
  const verified = await verifiedOf(deps, proven);
  const { token, claims } = await deps.sessions.issue(sessionInput(proven));
  return {
    token,
    token_type: 'Bearer',
    expires_at: claims.expiresAt,
    handle: claims.handle,
    address: proven.address,
    verified,
    source: proven.source,
    proves: PROVES,
    disclaimer: DISCLAIMER,
  };
};

/** The row alone: no token is signed that no one would receive. */
export const openedSession: SessionMaker<OpenedSession> = async (deps, proven) => {
  const verified = await verifiedOf(deps, proven);
  const claims = await deps.sessions.open(sessionInput(proven));
  const { jti, address, handle, source, expiresAt } = claims;
  return { jti, address, handle, source, verified, expires_at: expiresAt };
};

/** Address-control proofs end here: the session reports the wallet's primary (best-effort) and its attestations. */
export async function walletSession<R>(
  deps: ConnectDeps,
  make: SessionMaker<R>,
  audience: string,
  wallet: string,
): Promise<R> {
  let handle: HandleAccount | null = null;
  try {
    handle = await primaryOf(deps, wallet);
  } catch {
    handle = null; // the session read re-reads it; wallet control is proven either way
  }
  return make(deps, { audience, address: wallet, handle, source: 'wallet' });
}
