// POST /v1/auth/verify-signin: a sign-in-with-Solana message for an address-control challenge.
import type { Session, VerifySigninRequest } from '@sigil/contract/connect';
import { ApiError } from '@sigil/contract/errors';
import type { ConnectDeps } from './deps';
import { consume, decodeSig, openChallenge, proofInvalid, walletSession } from './proof-steps';
import { verifySigninProof } from './siws';

export async function verifySiwsProof(
  deps: ConnectDeps,
  audience: string,
  request: VerifySigninRequest,
): Promise<Session> {
  const signature = decodeSig(request.signature, true);
  const row = await openChallenge(deps, audience, request.nonce);
  if (row.kind === 'handle') {
    throw new ApiError(
      'SIGNIN_PATH_HANDLE_UNSUPPORTED',
      'this is a handle-control challenge; request it with {wallet, mode: "signin"} for sign-in-with-Solana',
    );
  }
  const result = verifySigninProof({
    signedMessage: request.signedMessage,
    signature,
    wallet: row.wallet!,
    nonce: row.nonce,
    allowedDomains: deps.signinDomains,
    nowMs: deps.now(),
  });
  if (!result.ok) throw proofInvalid(`${result.reason}: ${result.detail}`);
  await consume(deps, row);
  return walletSession(deps, audience, row.wallet!);
}
