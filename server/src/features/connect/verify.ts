// POST /v1/auth/verify: a wallet signature over the challenge string (raw bytes or an off-chain envelope).
import {
  handleControlStatement,
  handleControlString,
  walletControlString,
  type VerifyRequest,
} from '@sigil/contract/connect';
import { ApiError } from '@sigil/contract/errors';
import { verifyWalletMessage, verifyWalletMessageAsync } from '../../platform/crypto/wallet-signature';
import type { ChallengeRow, ConnectDeps } from './deps';
import { controlOf, liveHandleAndSlugs } from './handle-reads';
import { consume, decodeSig, openChallenge, proofInvalid, walletSession, type SessionMaker } from './proof-steps';

export async function verifyProof<R>(
  deps: ConnectDeps,
  make: SessionMaker<R>,
  audience: string,
  request: VerifyRequest,
): Promise<R> {
  const signature = decodeSig(request.signature, false);
  const row = await openChallenge(deps, audience, request.nonce);
  const signer = request.signer ?? row.wallet;
  if (!signer) throw new ApiError('BAD_REQUEST', 'signer: required for a challenge created from {handle}');
  if (row.wallet !== null && signer !== row.wallet) throw proofInvalid('the signer is not the challenged wallet');

  // The server re-derives the bytes from the presenting key (audience) and the stored challenge.
  const expected =
    row.kind === 'handle'
      ? handleControlString(audience, row.handle!, BigInt(row.epoch!), row.nonce)
      : walletControlString(audience, signer, row.nonce);
  const checked = await verifyWalletMessageAsync({ message: expected, signature, signer });
  if (!checked.ok) throw proofInvalid(explainMismatch(row, signer, signature));

  if (row.kind === 'wallet') {
    await consume(deps, row);
    // No mode: address control was chosen because the wallet had no trusted primary at issue time (≤ the
    // challenge lifetime ago); the session read re-reads it live, so skip a chain round trip here.
    return row.mode === null
      ? make(deps, { audience, address: signer, handle: null, source: 'wallet' })
      : walletSession(deps, make, audience, signer);
  }
  // Handle control is checked live: same registration, and the signer is its current authority.
  const { handle, verified } = await liveHandleAndSlugs(deps, row.handle!);
  if (!handle || handle.registrationEpoch.toString() !== row.epoch) {
    throw proofInvalid(`@${row.handle} was released or re-registered since the challenge was issued`);
  }
  const source = await controlOf(deps, handle, signer);
  if (!source) {
    const why = `the signer is not the current authority of @${row.handle} (owner, or NFT holder when tokenized)`;
    throw proofInvalid(why);
  }
  await consume(deps, row);
  return make(deps, { audience, address: signer, handle, source, known: verified });
}

/** Why a /verify signature failed, when it is one of the refused older forms (diagnostics only; still 401). */
function explainMismatch(row: ChallengeRow, signer: string, signature: Uint8Array): string {
  const unbound =
    row.kind === 'handle'
      ? [handleControlStatement(row.handle!, BigInt(row.epoch!), row.nonce)]
      : [`sigil-connect:v1:wallet-control:${signer}:${row.nonce}`];
  if (unbound.some((message) => verifyWalletMessage({ message, signature, signer }).ok)) {
    return 'the signature is over an unbound v1 string; sign the v2 audience-bound `challenge` exactly';
  }
  return 'the signature does not verify over this challenge for this signer';
}
