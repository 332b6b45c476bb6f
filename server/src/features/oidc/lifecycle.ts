// The Connect session lifecycle (docs/oidc.md "Session lifecycle"): revoke the current session, revoke all of a
// wallet's sessions for a key, and, for the key's owner, list its sessions and revoke one or a wallet's. A revocation is a row update, so it holds on every replica
// at the next request; then every OpenID Connect client that signed in with a revoked session and registered a
// back-channel logout URI is told, through the SSRF-safe outbound client (provider.ts `fetch`).
import type Provider from 'oidc-provider';
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import type { Database } from '../../platform/db/index';
import type { Logger } from '../../platform/log';
import type { SessionService } from '../connect/index';
import type { KeysService } from '../keys/index';
import { findClientOrNone } from './clients';
import { loginsOfSessions, loginsToLogOut } from './queries';

export interface LifecycleDeps {
  db: Kysely<Database>;
  sessions: SessionService;
  keys: Pick<KeysService, 'own'>;
  provider: () => Promise<Provider>;
  log: Logger;
  now: () => number;
}

/**
 * Back-channel logout to every client that signed in with one of these sessions, once per browser-session sid, and
 * not for a sid a sign-in still active here holds (loginsToLogOut); failures are logged only.
 */
export async function notifyLogout(deps: LifecycleDeps, jtis: readonly string[]): Promise<void> {
  const logins = await loginsToLogOut(deps.db, jtis, deps.now());
  if (logins.length === 0) return;
  const provider = await deps.provider();
  await Promise.all(
    logins.map(async (login) => {
      const client = await findClientOrNone(provider, login.client_id);
      if (!client?.backchannelLogoutUri) return;
      try {
        // The library's Client method (absent from its type definitions): signs a logout token, POSTs it.
        const send = (client as unknown as { backchannelLogout(sub: string, sid: string): Promise<void> })
          .backchannelLogout;
        await send.call(client, login.address, login.sid!);
      } catch (error) {
        deps.log.warn({ err: error, clientId: login.client_id }, 'oidc back-channel logout failed');
      }
    }),
  );
}

/** The presented session (Bearer, issued through `audience`) is revoked. */
export async function logout(deps: LifecycleDeps, audience: string, authorization: string | undefined) {
  const session = await deps.sessions.verifyBearer(authorization, audience);
  const revoked = await deps.sessions.revoke(session.jti, deps.now());
  if (revoked) await notifyLogout(deps, [session.jti]);
  return { revoked };
}

/** Every active session of `wallet` issued through `audience` is revoked. */
export async function revokeWallet(deps: LifecycleDeps, audience: string, wallet: string) {
  const active = await deps.sessions.listActive(audience, wallet, 10_000, deps.now());
  const revoked = await deps.sessions.revokeAllFor(wallet, audience, deps.now());
  await notifyLogout(
    deps,
    active.map((s) => s.jti),
  );
  return { revoked };
}

/** The caller's key (active or revoked), or 404 KEY_NOT_FOUND (another account's key is not told apart). */
async function ownKey(deps: LifecycleDeps, account: string, keyId: string): Promise<void> {
  if (!(await deps.keys.own(account, keyId))) throw new ApiError('KEY_NOT_FOUND', `no key ${keyId} in your account`);
}

/** The active sessions of one of the caller's keys (the portal's list), each with its OpenID Connect proof path. */
export async function listKeySessions(deps: LifecycleDeps, account: string, keyId: string, wallet?: string) {
  await ownKey(deps, account, keyId);
  const rows = await deps.sessions.listActive(keyId, wallet, 500, deps.now());
  // A session is one OpenID Connect sign-in at most (one grant per sign-in), so one login row per jti.
  const logins = await loginsOfSessions(
    deps.db,
    rows.map((r) => r.jti),
  );
  const amr = new Map(logins.map((l) => [l.session_jti, l.amr]));
  return {
    sessions: rows.map((r) => ({
      jti: r.jti,
      address: r.address,
      handle: r.handle,
      source: r.source,
      created_at: r.created_at,
      expires_at: r.expires_at,
      amr: amr.get(r.jti) ?? null,
    })),
  };
}

/** The owner revokes one session of their key: only a session issued through that key, and only while active. */
export async function revokeKeySession(deps: LifecycleDeps, account: string, keyId: string, jti: string) {
  await ownKey(deps, account, keyId);
  const session = await deps.sessions.find(jti, deps.now());
  if (session?.audience !== keyId) return { revoked: false };
  const revoked = await deps.sessions.revoke(jti, deps.now());
  if (revoked) await notifyLogout(deps, [jti]);
  return { revoked };
}

/** The owner revokes every active session of `wallet` issued through their key. */
export async function revokeKeyWallet(deps: LifecycleDeps, account: string, keyId: string, wallet: string) {
  await ownKey(deps, account, keyId);
  return revokeWallet(deps, keyId, wallet);
}
