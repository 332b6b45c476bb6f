// The Connect session token lives in an httpOnly cookie set by the portal's own backend, so page scripts (and any
// injected script) never see it. SameSite=Strict: no other site can make the browser send it.

export const SESSION_COOKIE = 'sigil_portal_session';

/** `Set-Cookie` value for a session token that expires at `expiresAt` (unix seconds). */
export function sessionCookie(token: string, expiresAt: number, options: { secure: boolean; now?: number }): string {
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  const maxAge = Math.max(0, expiresAt - nowSeconds);
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}

/** `Set-Cookie` value that removes the session. */
export function clearedSessionCookie(options: { secure: boolean }): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}

/** The session token from the request's cookies, if any. A JWT holds only base64url and dots. */
export function readSessionCookie(request: Request): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) {
      const value = rest.join('=');
      return /^[A-Za-z0-9_.-]{1,4096}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** Secure cookies over HTTPS (or behind a proxy that says so); plain http://localhost keeps working in dev. */
export function isSecureRequest(request: Request): boolean {
  return new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
}
