// The OpenID Connect account is the Connect session a grant was signed in with (oidc_logins): `sub` is its
// wallet address, and the claims are read LIVE through Connect's session read (handle authority, attestations),
// so a revoked Connect session, or a handle that changed hands, ends the tokens of that sign-in on every replica
// at once (refresh → invalid_grant, userinfo → invalid_token). docs/oidc.md "Claims".
//
// One exception, bounded: the code exchange right after the sign-in. The sign-in itself read the handle's authority
// and attestations from the chain moments before (Connect's verify); reading them again for the id token would
// only repeat that. So a code exchanged within SIGNED_IN_CLAIMS_MS of the sign-in gets the claims the sign-in
// proved (kept in the login row); the session row is still read (a revoked session gets no tokens), and every
// later read (userinfo, refresh) is live.
import type { Account, FindAccount } from 'oidc-provider';
import { ApiError } from '@sigil/contract/errors';
import type { ConnectSource, SessionRead } from '@sigil/contract/connect';
import { CODE_TTL_SECONDS, type ProviderDeps } from './deps';
import { aheadKey } from './adapter';
import { findLoginSession, type LoginSessionRow } from './queries';
import { MISSED, take } from './request-scope';

type TokenLike = Parameters<FindAccount>[2];

/** How old a sign-in's own claims may be when its code is exchanged: the code's lifetime. */
export const SIGNED_IN_CLAIMS_MS = CODE_TTL_SECONDS * 1000;

/** What the sign-in proved, as kept in the login row (interaction.ts). */
export interface SignedInClaims {
  handle: string | null;
  source: ConnectSource;
  verified: string[];
}

/** The grant's login with its active Connect session: read ahead with the token in this request, else now. */
async function loginSession(deps: Pick<ProviderDeps, 'db' | 'now'>, grantId: string, now: number) {
  const kept = take<LoginSessionRow, typeof MISSED>(aheadKey('Login', grantId), MISSED);
  return kept === MISSED ? findLoginSession(deps.db, grantId, now) : kept;
}

/** True while the grant's Connect session is active, for this client and this wallet. */
export async function loginStillValid(
  deps: Pick<ProviderDeps, 'db' | 'now'>,
  grantId: string,
  clientId: string,
  accountId: string | undefined,
): Promise<boolean> {
  const login = await loginSession(deps, grantId, deps.now());
  return !!login && login.audience === clientId && login.address === accountId;
}

export async function findAccountFor(
  deps: Pick<ProviderDeps, 'db' | 'connect' | 'now'>,
  sub: string,
  token: TokenLike,
): Promise<Account | undefined> {
  const grantId = token && 'grantId' in token ? token.grantId : undefined;
  // Without a token (the authorization endpoint loading the browser session) only the subject is needed.
  if (!grantId) return { accountId: sub, claims: () => ({ sub }) };
  const now = deps.now();
  const login = await loginSession(deps, grantId, now);
  if (!login || login.address !== sub) return undefined;
  let live: Pick<SessionRead, 'handle' | 'address' | 'source' | 'verified'>;
  if (token!.kind === 'AuthorizationCode' && login.claims !== null && now - login.created_at <= SIGNED_IN_CLAIMS_MS) {
    live = { address: login.address, ...(JSON.parse(login.claims) as SignedInClaims) };
  } else {
    try {
      live = await deps.connect.readSession({
        jti: login.jti,
        audience: login.audience,
        address: login.address,
        handle: login.handle,
        source: login.source,
        expiresAt: Math.floor(login.expires_at / 1000),
      });
    } catch (error) {
      // The handle no longer answers to this wallet: Connect revoked the session; so does the account.
      if (error instanceof ApiError && error.code === 'INVALID_SESSION') return undefined;
      throw error;
    }
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
