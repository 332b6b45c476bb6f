// The integrator's backend proxy from the spec, as the portal's own backend: the browser never holds an API key.
// The forwarding itself is the SDK's Connect proxy (`@sigil/client-sdk/connect-proxy`: only the four sign-in
// operations and the session read, upstream headers built from scratch so any client key header is dropped, the
// portal key attached). The portal adds its own edges around it: the method per operation (405), the portal key
// being configured (503), bodies over 64 KiB (413), an unreachable service (502), and the session cookie.
// Unsupported operation → 404 NOT_FOUND; a body that is not a JSON object → 400 BAD_REQUEST (the spec's codes).
//
// Portal choice: a successful verify stores the session token in an httpOnly cookie and the browser receives the
// session object WITHOUT `token`/`token_type` — page scripts never see the bearer token either.
import { createConnectProxy } from '@sigil/client-sdk/connect-proxy';
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
  const { method } = CONNECT_ROUTES[op];
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

  let body: unknown;
  let authorization: string | undefined;
  if (method === 'POST') {
    const text = await request.text();
    if (text.length > MAX_BODY_BYTES) return jsonError(413, 'PAYLOAD_TOO_LARGE', 'request body over 64 KiB');
    body = parseObject(text);
    if (body === undefined) return jsonError(400, 'BAD_REQUEST', 'request body must be a JSON object');
  } else {
    const token = readSessionCookie(request);
    if (token) authorization = `Bearer ${token}`;
  }

  const proxy = createConnectProxy({
    baseUrl: config.apiBase,
    apiKey: config.portalKey,
    fetch: fetchImpl,
    timeoutMs: UPSTREAM_TIMEOUT_MS,
  });
  let answer: Awaited<ReturnType<typeof proxy>>;
  try {
    answer = await proxy({ operation: op, method, body, authorization });
  } catch {
    return jsonError(502, 'UPSTREAM_UNAVAILABLE', 'the Sigil service did not answer; try again');
  }
  const responseHeaders: Record<string, string> = { ...answer.headers, 'cache-control': 'no-store' };

  if (answer.status >= 200 && answer.status < 300 && VERIFY_OPERATIONS.has(op)) {
    const session = answer.body as Record<string, unknown> | null;
    const { token, token_type: _tokenType, ...visible } = session ?? {};
    if (typeof token !== 'string' || typeof visible.expires_at !== 'number') {
      return jsonError(502, 'UPSTREAM_INVALID', 'the Sigil service answered verify without a session');
    }
    const cookie = sessionCookie(token, visible.expires_at, { secure: isSecureRequest(request) });
    return Response.json(visible, { status: answer.status, headers: { ...responseHeaders, 'set-cookie': cookie } });
  }
  return Response.json(answer.body, { status: answer.status, headers: responseHeaders });
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
