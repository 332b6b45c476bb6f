// The OpenID Connect account is the Connect session a grant was signed in with (oidc_logins): `sub` is its
// wallet address, and the claims are read LIVE through Connect's session read (handle authority, attestations),
// so a revoked Connect session, or a handle that changed hands, ends the tokens of that sign-in on every replica
// at once (refresh → invalid_grant, userinfo → invalid_token). docs/oidc.md "Claims".
import type { Account, FindAccount } from 'oidc-provider';
import { ApiError } from '@sigil/contract/errors';
import type { ProviderDeps } from './deps';
import { findLogin } from './queries';

type TokenLike = Parameters<FindAccount>[2];

/** True while the grant's Connect session is active, for this client and this wallet. */
export async function loginStillValid(
  deps: Pick<ProviderDeps, 'db' | 'sessions' | 'now'>,
  grantId: string,
  clientId: string,
  accountId: string | undefined,
): Promise<boolean> {
  const login = await findLogin(deps.db, grantId);
  if (!login) return false;
  const session = await deps.sessions.find(login.session_jti, deps.now());
  return !!session && session.audience === clientId && session.address === accountId;
}

export async function findAccountFor(
  deps: Pick<ProviderDeps, 'db' | 'sessions' | 'connect' | 'now'>,
  sub: string,
  token: TokenLike,
): Promise<Account | undefined> {
  const grantId = token && 'grantId' in token ? token.grantId : undefined;
  // Without a token (the authorization endpoint loading the browser session) only the subject is needed.
  if (!grantId) return { accountId: sub, claims: () => ({ sub }) };
  const login = await findLogin(deps.db, grantId);
  if (!login) return undefined;
  const session = await deps.sessions.find(login.session_jti, deps.now());
  if (!session || session.address !== sub) return undefined;
  let live;
  try {
    live = await deps.connect.readSession(session);
  } catch (error) {
    // The handle no longer answers to this wallet: Connect revoked the session; so does the account.
    if (error instanceof ApiError && error.code === 'INVALID_SESSION') return undefined;
    throw error;
  }
  return {
    accountId: sub,
    claims: () => ({
      sub,
      ...(live.handle ? { preferred_username: live.handle } : {}),
      wallet: live.address,
      sigil_source: live.source,
      sigil_verified: live.verified,
    }),
  };
}
