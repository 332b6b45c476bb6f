// POST /v1/auth/verify-tx: a signed, never-broadcast memo transaction (challenges requested with mode `tx`).
import type { VerifyTxRequest } from '@sigil/contract/connect';
import type { ConnectDeps } from './deps';
import { verifyMemoTransaction } from './memo-tx';
import { consume, openChallenge, proofInvalid, walletSession, type SessionMaker } from './proof-steps';

export async function verifyTxProof<R>(
  deps: ConnectDeps,
  make: SessionMaker<R>,
  audience: string,
  request: VerifyTxRequest,
): Promise<R> {
  const row = await openChallenge(deps, audience, request.nonce);
  if (row.mode !== 'tx' || !row.wallet) throw proofInvalid('this challenge was not requested with mode `tx`');
  const result = verifyMemoTransaction({
    signedTransaction: request.signedTransaction,
    wallet: row.wallet,
    audience,
    nonce: row.nonce,
  });
  if (!result.ok) throw proofInvalid(`${result.reason}: ${result.detail}`);
  await consume(deps, row);
  return walletSession(deps, make, audience, row.wallet);
}
