// Sign out: forget the session cookie. The token itself expires on its own (24 h by default).
import { clearedSessionCookie, isSecureRequest } from '../../../lib/session-cookie';

export function POST(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: { 'set-cookie': clearedSessionCookie({ secure: isSecureRequest(request) }) },
  });
}
