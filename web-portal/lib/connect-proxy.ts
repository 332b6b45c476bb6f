// The integrator's backend proxy from the spec, as the portal's own backend: the browser never holds an API key.
// It forwards only the four sign-in operations and the session read to the service's REST paths, builds the
// upstream headers from scratch (so any key header the client sent is dropped) and attaches the portal key.
// Unsupported operation → 404 NOT_FOUND; a body that is not a JSON object → 400 BAD_REQUEST (the spec's codes).
//
// Portal choice: a successful verify stores the session token in an httpOnly cookie and the browser receives the
// session object WITHOUT `token`/`token_type` — page scripts never see the bearer token either.
import { API_KEY_HEADER, REQUEST_ID_HEADER, RETRY_AFTER_HEADER } from '@sigil/contract/http-headers';
import { CONNECT_ROUTES, type ConnectOperation } from '@sigil/contract/routes';
import type { PortalServerConfig } from './server-config';
import { isSecureRequest, readSessionCookie, sessionCookie } from './session-cookie';

const VERIFY_OPERATIONS: ReadonlySet<string> = new Set(['verify', 'verify-tx', 'verify-signin']);
/** Bounds one upstream call: a stuck service must not hang the browser's request. */
export const UPSTREAM_TIMEOUT_MS = 10_000;
/** The service limits bodies to 64 KiB; refuse larger ones here before forwarding. */
const MAX_BODY_BYTES = 64 * 1024;

export function jsonError(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ code, message }, { status, headers: { 'cache-control': 'no-store', ...headers } });
}

function isConnectOperation(op: string): op is ConnectOperation {
  return Object.hasOwn(CONNECT_ROUTES, op);
}

export async function forwardConnect(
  op: string,
  request: Request,
  config: PortalServerConfig,
  fetchImpl: typeof fetch = fetch,
): Promise<Response> {
  if (!isConnectOperation(op)) return jsonError(404, 'NOT_FOUND', `unsupported operation: ${op.slice(0, 64)}`);
  const { method, path } = CONNECT_ROUTES[op];
  if (request.method !== method) {
    return jsonError(405, 'METHOD_NOT_ALLOWED', `${op} accepts ${method} only`, { allow: method });
  }
  if (!config.portalKey) {
    return jsonError(
      503,
      'PORTAL_NOT_CONFIGURED',
      'the portal server has no SIGIL_PORTAL_KEY; set it and restart the portal',
    );
  }

  const headers: Record<string, string> = {
    accept: 'application/json',
    [API_KEY_HEADER.toLowerCase()]: config.portalKey,
  };
  let body: string | undefined;
  if (method === 'POST') {
    body = await request.text();
    if (body.length > MAX_BODY_BYTES) return jsonError(413, 'PAYLOAD_TOO_LARGE', 'request body over 64 KiB');
    if (!isJsonObject(body)) return jsonError(400, 'BAD_REQUEST', 'request body must be a JSON object');
    headers['content-type'] = 'application/json';
  } else {
    const token = readSessionCookie(request);
    if (token) headers.authorization = `Bearer ${token}`;
  }

  let upstream: Response;
  try {
    upstream = await fetchImpl(`${config.apiBase}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      cache: 'no-store',
    });
  } catch {
    return jsonError(502, 'UPSTREAM_UNAVAILABLE', 'the Sigil service did not answer; try again');
  }

  const text = await upstream.text();
  const responseHeaders: Record<string, string> = {
    'content-type': upstream.headers.get('content-type') ?? 'application/json',
    'cache-control': 'no-store',
  };
  const requestId = upstream.headers.get(REQUEST_ID_HEADER);
  if (requestId) responseHeaders[REQUEST_ID_HEADER] = requestId;
  const retryAfter = upstream.headers.get(RETRY_AFTER_HEADER);
  if (retryAfter) responseHeaders[RETRY_AFTER_HEADER] = retryAfter;

  if (upstream.ok && VERIFY_OPERATIONS.has(op)) {
    const { token, token_type: _tokenType, ...visible } = parseObject(text) ?? {};
    if (typeof token !== 'string' || typeof visible.expires_at !== 'number') {
      return jsonError(502, 'UPSTREAM_INVALID', 'the Sigil service answered verify without a session');
    }
    const cookie = sessionCookie(token, visible.expires_at, { secure: isSecureRequest(request) });
    return Response.json(visible, { status: upstream.status, headers: { ...responseHeaders, 'set-cookie': cookie } });
  }
  return new Response(text, { status: upstream.status, headers: responseHeaders });
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isJsonObject(text: string): boolean {
  return parseObject(text) !== undefined;
}
