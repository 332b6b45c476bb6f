// Same-origin tRPC for the browser: the service sends no CORS headers, so the portal's backend forwards the few
// procedures the portal uses to the service's /trpc, and turns the session cookie into the Bearer header the
// keys and webhook procedures need, and the webhook-key cookie into the X-API-Key the event log (and the keyed
// webhook procedures) need.
// Anything else (connect.*, future procedures) is not reachable through the portal.
import { API_KEY_HEADER, REQUEST_ID_HEADER } from '@sigil/contract/http-headers';
import { UPSTREAM_TIMEOUT_MS } from './connect-proxy';
import type { PortalServerConfig } from './server-config';
import { readApiKeyCookie, readSessionCookie } from './session-cookie';

/**
 * Procedure → the credential the portal attaches: none (public), the signed-in session (Bearer), or the API key the
 * user chose for webhooks (X-API-Key: webhooks of both streams belong to the account of the key that manages them;
 * the identity-event log is a keyed read).
 */
export const PORTAL_PROCEDURES: Readonly<Record<string, { auth: 'none' | 'session' | 'apiKey' }>> = {
  'resolve.resolve': { auth: 'none' },
  'resolve.reverse': { auth: 'none' },
  'keys.list': { auth: 'session' },
  'keys.create': { auth: 'session' },
  'keys.rename': { auth: 'session' },
  'keys.revoke': { auth: 'session' },
  'keys.usage': { auth: 'session' },
  'oidc.listClients': { auth: 'session' },
  'oidc.putClient': { auth: 'session' },
  'oidc.deleteClient': { auth: 'session' },
  'oidc.keySessions': { auth: 'session' },
  'oidc.revokeKeySession': { auth: 'session' },
  'oidc.revokeKeyWalletSessions': { auth: 'session' },
  'usageHistory.history': { auth: 'session' },
  'usageHistory.requests': { auth: 'session' },
  'ownerWebhooks.list': { auth: 'session' },
  'ownerWebhooks.get': { auth: 'session' },
  'ownerWebhooks.payChallenge': { auth: 'session' },
  'ownerWebhooks.payRegister': { auth: 'session' },
  'ownerWebhooks.identityCreate': { auth: 'session' },
  'ownerWebhooks.urlChallenge': { auth: 'session' },
  'ownerWebhooks.edit': { auth: 'session' },
  'ownerWebhooks.remove': { auth: 'session' },
  'ownerWebhooks.disable': { auth: 'session' },
  'ownerWebhooks.enable': { auth: 'session' },
  'ownerWebhooks.resume': { auth: 'session' },
  'ownerWebhooks.rotateSecret': { auth: 'session' },
  'ownerWebhooks.recover': { auth: 'session' },
  'ownerWebhooks.deliveries': { auth: 'session' },
  'ownerWebhooks.delivery': { auth: 'session' },
  'ownerWebhooks.attempts': { auth: 'session' },
  'ownerWebhooks.redeliver': { auth: 'session' },
  'ownerWebhooks.sendTest': { auth: 'session' },
  'ownerWebhooks.catalog': { auth: 'none' },
  'payWebhooks.challenge': { auth: 'apiKey' },
  'payWebhooks.register': { auth: 'apiKey' },
  'payWebhooks.list': { auth: 'apiKey' },
  'payWebhooks.get': { auth: 'apiKey' },
  'payWebhooks.deliveries': { auth: 'apiKey' },
  'payWebhooks.rotateSecret': { auth: 'apiKey' },
  'payWebhooks.resume': { auth: 'apiKey' },
  'payWebhooks.remove': { auth: 'apiKey' },
  'payWebhooks.redeliver': { auth: 'apiKey' },
  'payWebhooks.sendTest': { auth: 'apiKey' },
  'payWebhooks.recover': { auth: 'apiKey' },
  'identityEvents.create': { auth: 'apiKey' },
  'identityEvents.list': { auth: 'apiKey' },
  'identityEvents.get': { auth: 'apiKey' },
  'identityEvents.deliveries': { auth: 'apiKey' },
  'identityEvents.rotateSecret': { auth: 'apiKey' },
  'identityEvents.resume': { auth: 'apiKey' },
  'identityEvents.remove': { auth: 'apiKey' },
  'identityEvents.redeliver': { auth: 'apiKey' },
  'identityEvents.sendTest': { auth: 'apiKey' },
  'identityEvents.recover': { auth: 'apiKey' },
  'identityEvents.events': { auth: 'apiKey' },
};

const MAX_BODY_BYTES = 64 * 1024;

/** tRPC's JSON-RPC numbers for the errors the proxy itself answers (so the tRPC client parses them). */
const TRPC_CODES = {
  NOT_FOUND: -32004,
  METHOD_NOT_SUPPORTED: -32005,
  PAYLOAD_TOO_LARGE: -32013,
  BAD_GATEWAY: -32603,
} as const;

/** An error in tRPC's envelope, with our code in `data.errorCode` like the service's own errors. */
export function trpcError(
  status: number,
  code: keyof typeof TRPC_CODES,
  errorCode: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const body = { error: { message, code: TRPC_CODES[code], data: { code, httpStatus: status, errorCode } } };
  return Response.json(body, { status, headers: { 'cache-control': 'no-store', ...headers } });
}

/** `path` is the procedure path after /trpc/ (a batch joins several with commas). */
export async function forwardTrpc(
  path: string,
  request: Request,
  config: PortalServerConfig,
  fetchImpl: typeof fetch = fetch,
): Promise<Response> {
  const procedures = path.split(',');
  if (procedures.length > 10 || !procedures.every((p) => Object.hasOwn(PORTAL_PROCEDURES, p))) {
    return trpcError(404, 'NOT_FOUND', 'NOT_FOUND', 'no such procedure on the portal');
  }
  if (request.method !== 'GET' && request.method !== 'POST') {
    return trpcError(405, 'METHOD_NOT_SUPPORTED', 'METHOD_NOT_ALLOWED', 'tRPC uses GET and POST', {
      allow: 'GET, POST',
    });
  }

  const headers: Record<string, string> = { accept: 'application/json' };
  if (procedures.some((p) => PORTAL_PROCEDURES[p]!.auth === 'session')) {
    const token = readSessionCookie(request);
    if (token) headers.authorization = `Bearer ${token}`;
  }
  if (procedures.some((p) => PORTAL_PROCEDURES[p]!.auth === 'apiKey')) {
    const key = readApiKeyCookie(request);
    if (key) headers[API_KEY_HEADER.toLowerCase()] = key;
  }
  let body: string | undefined;
  if (request.method === 'POST') {
    body = await request.text();
    if (body.length > MAX_BODY_BYTES)
      return trpcError(413, 'PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_LARGE', 'request body over 64 KiB');
    headers['content-type'] = 'application/json';
  }

  const search = new URL(request.url).search;
  let upstream: Response;
  try {
    upstream = await fetchImpl(`${config.apiBase}/trpc/${path}${search}`, {
      method: request.method,
      headers,
      body,
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      cache: 'no-store',
    });
  } catch {
    return trpcError(502, 'BAD_GATEWAY', 'UPSTREAM_UNAVAILABLE', 'the Sigil service did not answer; try again');
  }
  const responseHeaders: Record<string, string> = {
    'content-type': upstream.headers.get('content-type') ?? 'application/json',
    'cache-control': 'no-store',
  };
  const requestId = upstream.headers.get(REQUEST_ID_HEADER);
  if (requestId) responseHeaders[REQUEST_ID_HEADER] = requestId;
  return new Response(await upstream.text(), { status: upstream.status, headers: responseHeaders });
}
