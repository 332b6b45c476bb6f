// GET /api/session: the signed-in session for the portal's own pages, always 200 `{session}` (null when signed
// out) so that a signed-out visit logs no failed request in the browser console. Signed in, it is the Connect
// session read (forwardConnect 'session', re-read live by the service); a session the service refuses (expired,
// revoked) clears the cookie. The spec's proxy route /api/connect/session keeps answering 401 as the service does.
import { forwardConnect } from './connect-proxy';
import type { PortalServerConfig } from './server-config';
import { clearedSessionCookie, isSecureRequest, readSessionCookie } from './session-cookie';

export async function readPortalSession(
  request: Request,
  config: PortalServerConfig,
  fetchImpl: typeof fetch = fetch,
): Promise<Response> {
  const headers = { 'cache-control': 'no-store' };
  if (!readSessionCookie(request)) return Response.json({ session: null }, { headers });
  const upstream = await forwardConnect('session', request, config, fetchImpl);
  if (upstream.status === 401) {
    return Response.json(
      { session: null },
      { headers: { ...headers, 'set-cookie': clearedSessionCookie({ secure: isSecureRequest(request) }) } },
    );
  }
  if (!upstream.ok) return upstream;
  return Response.json({ session: await upstream.json() }, { headers });
}
