// POST /v1/auth/challenge: a single-use, audience-bound challenge (docs/connect.md).
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import {
  DISCLAIMER,
  handleControlString,
  memoString,
  PROVES,
  SIGNATURE_ENCODING,
  walletControlString,
  type Challenge,
  type ParsedChallengeRequest,
} from '@sigil/contract/connect';
import { ApiError } from '@sigil/contract/errors';
import { insertChallenge } from './challenge.queries';
import type { ChallengeRow, ConnectDeps } from './deps';
import { liveHandle, primaryOf } from './handle-reads';

function newNonce(): string {
  return base58.encode(randomBytes(16)); // 128 bits, alphanumeric (SIWS nonces must be)
}

/**
 * `{handle}`, or `{wallet}` whose trusted primary makes it a handle-control challenge; `{wallet}` without one, or
 * any mode, an address-control challenge. Stored, then answered with the exact string to sign.
 */
export async function createChallenge(
  deps: ConnectDeps,
  audience: string,
  request: ParsedChallengeRequest,
): Promise<Challenge> {
  const issuedAt = deps.now();
  const expiresAt = issuedAt + deps.challengeTtlSeconds * 1000;
  const nonce = newNonce();
  const times = { created_at: issuedAt, expires_at: expiresAt, used_at: null };
  let row: ChallengeRow;
  if (request.kind === 'handle' || request.mode === null) {
    // {handle}, or {wallet} whose trusted primary makes it a handle-control challenge.
    const handle =
      request.kind === 'handle' ? await liveHandle(deps, request.handle) : await primaryOf(deps, request.wallet);
    if (request.kind === 'handle' && !handle) {
      throw new ApiError('HANDLE_NOT_REGISTERED', `handle @${request.handle} is not registered`);
    }
    const wallet = (request as { wallet: string }).wallet;
    row = handle
      ? {
          nonce,
          audience,
          kind: 'handle',
          handle: handle.name,
          epoch: handle.registrationEpoch.toString(),
          wallet: request.kind === 'wallet' ? request.wallet : null,
          mode: null,
          message: handleControlString(audience, handle.name, handle.registrationEpoch, nonce),
          ...times,
        }
      : {
          nonce,
          audience,
          kind: 'wallet',
          handle: null,
          epoch: null,
          wallet,
          mode: null,
          message: walletControlString(audience, wallet, nonce),
          ...times,
        };
  } else {
    // Modes prove wallet control even when the wallet has a primary handle.
    row = {
      nonce,
      audience,
      kind: 'wallet',
      handle: null,
      epoch: null,
      wallet: request.wallet,
      mode: request.mode,
      message: walletControlString(audience, request.wallet, nonce),
      ...times,
    };
  }
  await insertChallenge(deps.db, row);
  const challenge: Challenge = {
    nonce,
    handle: row.kind === 'handle' ? row.handle : null,
    challenge: row.message,
    audience,
    signature_encoding: SIGNATURE_ENCODING,
    expires_at: Math.floor(expiresAt / 1000),
    proves: PROVES,
    disclaimer: DISCLAIMER,
  };
  if (row.mode === 'tx') challenge.memo = memoString(audience, nonce);
  return challenge;
}
