// /api/webhook-key: the API key the portal uses for the pay-webhook pages, kept in an httpOnly cookie
// (session-cookie.ts). Pay webhooks belong to the account of the key that manages them and their registration
// challenge names that key, so the portal manages them with one of the user's own keys, never with its own.
//   GET    → {set: boolean, prefix: string|null}   (the display prefix only; the secret never goes back)
//   POST   {secret} → the key is checked against the service (a keyed read) and stored; 400 / 401 otherwise
//   DELETE → forgotten
import { API_KEY_HEADER } from '@sigil/contract/http-headers';
import { jsonError, UPSTREAM_TIMEOUT_MS } from './connect-proxy';
import type { PortalServerConfig } from './server-config';
import { apiKeyCookie, clearedApiKeyCookie, isSecureRequest, readApiKeyCookie } from './session-cookie';

const SECRET_PATTERN = /^sigil_sk_[1-9A-HJ-NP-Za-km-z]{20,80}$/;
/** The first characters the service itself shows as a key's prefix (`sigil_sk_` + 4). */
const prefixOf = (secret: string) => secret.slice(0, 13);

export async function handleWebhookKey(
  request: Request,
  config: PortalServerConfig,
  fetchImpl: typeof fetch = fetch,
): Promise<Response> {
  const secure = isSecureRequest(request);
  const noStore = { 'cache-control': 'no-store' };
  if (request.method === 'GET') {
    const secret = readApiKeyCookie(request);
    return Response.json({ set: secret !== undefined, prefix: secret ? prefixOf(secret) : null }, { headers: noStore });
  }
  if (request.method === 'DELETE') {
    return new Response(null, { status: 204, headers: { 'set-cookie': clearedApiKeyCookie({ secure }) } });
  }
  if (request.method !== 'POST')
    return jsonError(405, 'METHOD_NOT_ALLOWED', 'GET, POST or DELETE', { allow: 'GET, POST, DELETE' });
  const body = (await request.json().catch(() => null)) as { secret?: unknown } | null;
  const secret = typeof body?.secret === 'string' ? body.secret.trim() : '';
  if (!SECRET_PATTERN.test(secret)) return jsonError(400, 'BAD_REQUEST', 'expected an API key secret (sigil_sk_…)');
  let status: number;
  try {
    const res = await fetchImpl(`${config.apiBase}/v1/pay/webhooks`, {
      headers: { accept: 'application/json', [API_KEY_HEADER.toLowerCase()]: secret },
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      cache: 'no-store',
    });
    status = res.status;
    await res.arrayBuffer();
  } catch {
    return jsonError(502, 'UPSTREAM_UNAVAILABLE', 'the Sigil service did not answer; try again');
  }
  if (status === 401) return jsonError(401, 'INVALID_KEY', 'the service does not accept this key (unknown or revoked)');
  return Response.json(
    { set: true, prefix: prefixOf(secret) },
    { headers: { ...noStore, 'set-cookie': apiKeyCookie(secret, { secure }) } },
  );
}
