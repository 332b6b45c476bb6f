// What the portal's backend refuses or never passes on: only the Connect operations and the portal's procedures
// reach the service; a client's key or bearer header is never forwarded; the portal key is the only key used.
import { describe, expect, it } from 'vitest';
import { TEST_PORTAL_DOMAIN } from '../support/keyed-app';
import { portalConnect, portalTrpc, show, usePortalService } from './support';

const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

const portal = usePortalService();

/** A fetch that records what would have gone upstream and answers 200 `{}`. */
function recordingFetch() {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return Response.json({});
  }) as unknown as typeof fetch;
  return { calls, fetchImpl };
}

describe('portal Connect proxy', () => {
  it('answers 404 NOT_FOUND for any other operation, without calling the service', async () => {
    const { calls, fetchImpl } = recordingFetch();
    for (const op of ['keys', 'verify-anything', '..', 'constructor', '__proto__']) {
      const res = await portalConnect(portal.config, op, { method: 'POST', body: {} }, fetchImpl);
      expect(res.status, show(res)).toBe(404);
      expect(res.body).toStrictEqual({ code: 'NOT_FOUND', message: `unsupported operation: ${op}` });
    }
    expect(calls).toStrictEqual([]);
  });

  it('answers 400 BAD_REQUEST for a body that is not a JSON object', async () => {
    const { calls, fetchImpl } = recordingFetch();
    for (const body of ['[]', 'null', '"wallet"', '42', '{"wallet":', '']) {
      const res = await portalConnect(portal.config, 'challenge', { method: 'POST', body }, fetchImpl);
      expect(res.status, `${JSON.stringify(body)} → ${show(res)}`).toBe(400);
      expect(res.body).toStrictEqual({ code: 'BAD_REQUEST', message: 'request body must be a JSON object' });
    }
    expect(calls).toStrictEqual([]);
  });

  it('drops the client key header and attaches the portal key (the audience stays the portal domain)', async () => {
    const res = await portalConnect(portal.config, 'challenge', {
      method: 'POST',
      body: { wallet: WALLET },
      headers: { 'x-api-key': portal.app.key.secret, authorization: 'Bearer forged' },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.audience).toBe(TEST_PORTAL_DOMAIN);

    const { calls, fetchImpl } = recordingFetch();
    await portalConnect(
      portal.config,
      'challenge',
      { method: 'POST', body: { wallet: WALLET }, headers: { 'x-api-key': portal.app.key.secret, cookie: 'a=b' } },
      fetchImpl,
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe(`${portal.app.base}/v1/auth/challenge`);
    expect(calls[0]!.init.headers).toStrictEqual({
      'x-api-key': portal.app.portal.secret,
      'content-type': 'application/json',
    });
  });

  it('reads the session only from the portal cookie, never from a client Authorization header', async () => {
    const res = await portalConnect(portal.config, 'session', {
      headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' },
    });
    expect(res.status, show(res)).toBe(401);
    expect(res.body.code).toBe('INVALID_SESSION');
  });

  it('refuses the wrong method, a missing portal key and an unreachable service with clear codes', async () => {
    const wrongMethod = await portalConnect(portal.config, 'verify');
    expect(wrongMethod.status, show(wrongMethod)).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect(wrongMethod.body).toStrictEqual({ code: 'METHOD_NOT_ALLOWED', message: 'verify accepts POST only' });

    const unconfigured = await portalConnect({ ...portal.config, portalKey: undefined }, 'challenge', {
      method: 'POST',
      body: { wallet: WALLET },
    });
    expect(unconfigured.status, show(unconfigured)).toBe(503);
    expect(unconfigured.body.code).toBe('PORTAL_NOT_CONFIGURED');

    const down = await portalConnect({ ...portal.config, apiBase: 'http://127.0.0.1:1' }, 'challenge', {
      method: 'POST',
      body: { wallet: WALLET },
    });
    expect(down.status, show(down)).toBe(502);
    expect(down.body).toStrictEqual({
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'the Sigil service did not answer; try again',
    });
  });

  it('sets no cookie when verify fails', async () => {
    const res = await portalConnect(portal.config, 'verify', {
      method: 'POST',
      body: { nonce: 'n_missing', signature: '1'.repeat(64), signer: WALLET },
    });
    expect(res.status, show(res)).toBeGreaterThanOrEqual(400);
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});

describe('portal tRPC proxy', () => {
  it('forwards only the portal procedures: connect.*, health.*, keyed oidc.* and unknown paths are 404 without a service call', async () => {
    const { calls, fetchImpl } = recordingFetch();
    for (const path of [
      'connect.challenge',
      'connect.session',
      'health.health',
      'oidc.logout',
      'oidc.revokeWalletSessions',
      'keys',
      'resolve.resolve,connect.challenge',
      'keys.list/../connect.verify',
    ]) {
      const res = await portalTrpc(portal.config, path, { input: {} }, fetchImpl);
      expect(res.status, `${path} → ${show(res)}`).toBe(404);
      expect(res.body).toStrictEqual({
        error: {
          message: 'no such procedure on the portal',
          code: -32004,
          data: { code: 'NOT_FOUND', httpStatus: 404, errorCode: 'NOT_FOUND' },
        },
      });
    }
    expect(calls).toStrictEqual([]);
  });

  it('sends the session cookie as the bearer only for keys procedures, and never a client Authorization header', async () => {
    const { calls, fetchImpl } = recordingFetch();
    const cookie = 'sigil_portal_session=aaa.bbb.ccc';
    await portalTrpc(
      portal.config,
      'resolve.resolve',
      { input: { name: 'alice' }, cookie, headers: { authorization: 'Bearer x', 'x-api-key': 'sigil_sk_x' } },
      fetchImpl,
    );
    await portalTrpc(
      portal.config,
      'keys.list',
      { input: {}, cookie, headers: { authorization: 'Bearer x' } },
      fetchImpl,
    );
    expect(calls.map((c) => [c.url, c.init.headers])).toStrictEqual([
      [`${portal.app.base}/trpc/resolve.resolve?input=%7B%22name%22%3A%22alice%22%7D`, { accept: 'application/json' }],
      [
        `${portal.app.base}/trpc/keys.list?input=%7B%7D`,
        { accept: 'application/json', authorization: 'Bearer aaa.bbb.ccc' },
      ],
    ]);
  });

  it('without a session the keys procedures answer INVALID_SESSION from the service', async () => {
    const res = await portalTrpc(portal.config, 'keys.list', { input: {}, headers: { authorization: `Bearer x` } });
    expect(res.status, show(res)).toBe(401);
    expect(res.body.error.data.errorCode).toBe('INVALID_SESSION');
  });

  it('ignores a cookie value that is not a token', async () => {
    const { calls, fetchImpl } = recordingFetch();
    for (const cookie of [
      'sigil_portal_session="a b"',
      'sigil_portal_session=a,b',
      'sigil_portal_session=',
      'other_session=aaa.bbb.ccc',
    ]) {
      await portalTrpc(portal.config, 'keys.list', { input: {}, cookie }, fetchImpl);
    }
    expect(calls.map((c) => c.init.headers)).toStrictEqual(Array(4).fill({ accept: 'application/json' }));
  });
});
