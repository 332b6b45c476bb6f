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

function readCookie(request: Request, cookie: string, pattern: RegExp): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === cookie) {
      const value = rest.join('=');
      return pattern.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** The session token from the request's cookies, if any. A JWT holds only base64url and dots. */
export function readSessionCookie(request: Request): string | undefined {
  return readCookie(request, SESSION_COOKIE, /^[A-Za-z0-9_.-]{1,4096}$/);
}

/**
 * The API key the user handed the portal for managing webhooks (pay webhooks are managed with an API key of the
 * account, not with the session). Kept like the session: httpOnly, SameSite=Strict, never readable by page scripts,
 * for the browser session only (no Max-Age), forgotten at sign-out.
 */
export const API_KEY_COOKIE = 'sigil_portal_api_key';

/** `Set-Cookie` value holding `secret` (already checked to look like a key). */
export function apiKeyCookie(secret: string, options: { secure: boolean }): string {
  return `${API_KEY_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}

/** `Set-Cookie` value that removes the webhook key. */
export function clearedApiKeyCookie(options: { secure: boolean }): string {
  return `${API_KEY_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}

/** The webhook key from the request's cookies, if any: a `sigil_sk_` secret (base58 after the prefix). */
export function readApiKeyCookie(request: Request): string | undefined {
  return readCookie(request, API_KEY_COOKIE, /^sigil_sk_[1-9A-HJ-NP-Za-km-z]{20,80}$/);
}

/** Secure cookies over HTTPS (or behind a proxy that says so); plain http://localhost keeps working in dev. */
export function isSecureRequest(request: Request): boolean {
  return new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
}
