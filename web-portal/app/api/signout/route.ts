// Sign out: forget the session cookie and the webhook key. The token itself expires on its own (24 h by default).
import { clearedApiKeyCookie, clearedSessionCookie, isSecureRequest } from '../../../lib/session-cookie';

export function POST(request: Request): Response {
  const secure = isSecureRequest(request);
  const headers = new Headers();
  headers.append('set-cookie', clearedSessionCookie({ secure }));
  headers.append('set-cookie', clearedApiKeyCookie({ secure }));
  return new Response(null, { status: 204, headers });
}
