// POST /v1/auth/verify-tx: a signed, never-broadcast memo transaction (challenges requested with mode `tx`).
import type { Session, VerifyTxRequest } from '@sigil/contract/connect';
import type { ConnectDeps } from './deps';
import { verifyMemoTransaction } from './memo-tx';
import { consume, openChallenge, proofInvalid, walletSession } from './proof-steps';

export async function verifyTxProof(deps: ConnectDeps, audience: string, request: VerifyTxRequest): Promise<Session> {
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
  return walletSession(deps, audience, row.wallet);
}
