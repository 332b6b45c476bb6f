// GET /v1/auth/session: the live view of a verified session (handle authority and attestations re-read).
import { DISCLAIMER, PROVES, type SessionRead } from '@sigil/contract/connect';
import { ApiError } from '@sigil/contract/errors';
import type { ConnectDeps } from './deps';
import { controlOf, liveHandleAndSlugs, primaryOf, verifiedSlugs } from './handle-reads';
import type { SessionClaims } from './sessions';

export async function readSession(deps: ConnectDeps, session: SessionClaims): Promise<SessionRead> {
  const base = { address: session.address, proves: PROVES, disclaimer: DISCLAIMER } as const;
  if (session.source === 'wallet') {
    const handle = await primaryOf(deps, session.address);
    const verified = handle ? await verifiedSlugs(deps, handle) : [];
    return { ...base, handle: handle?.name ?? null, verified, source: 'wallet' };
  }
  // A handle session holds only while the wallet still controls the handle (same registration not required:
  // the signer may have re-registered it; what counts is control now).
  const { handle, verified } = session.handle
    ? await liveHandleAndSlugs(deps, session.handle)
    : { handle: null, verified: [] };
  const source = handle ? await controlOf(deps, handle, session.address) : null;
  if (!handle || !source) {
    await deps.sessions.revoke(session.jti);
    throw new ApiError('INVALID_SESSION', `the wallet no longer controls @${session.handle}`);
  }
  return { ...base, handle: handle.name, verified, source };
}
