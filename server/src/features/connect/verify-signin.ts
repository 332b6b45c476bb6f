// POST /v1/auth/verify-signin: a sign-in-with-Solana message for an address-control challenge.
import type { VerifySigninRequest } from '@sigil/contract/connect';
import { ApiError } from '@sigil/contract/errors';
import type { ConnectDeps } from './deps';
import { consume, decodeSig, openChallenge, proofInvalid, walletSession, type SessionMaker } from './proof-steps';
import { verifySigninProof } from './siws';

/**
 * `domains`: the hosts the message may name for this call; default the deployment's allowlist
 * (SIGIL_SIGNIN_DOMAINS). A sign-in message does not name the audience, so a caller that signs users in for one
 * site only (the OpenID Connect page, on the issuer's host) narrows it to that site: a message signed for another
 * allowed site then cannot be replayed there.
 */
export async function verifySiwsProof<R>(
  deps: ConnectDeps,
  make: SessionMaker<R>,
  audience: string,
  request: VerifySigninRequest,
  domains: readonly string[] = deps.signinDomains,
): Promise<R> {
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
    allowedDomains: domains,
    nowMs: deps.now(),
  });
  if (!result.ok) throw proofInvalid(`${result.reason}: ${result.detail}`);
  await consume(deps, row);
  return walletSession(deps, make, audience, row.wallet!);
}
