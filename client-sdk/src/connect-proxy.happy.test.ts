// The integrator proxy against the real server (local chain, fresh SQLite): only the five Connect operations pass,
// the client's key header is dropped, the real key is attached.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { demoWallet } from '../../server/src/localchain/scenario';
import { signChallenge } from './connect';
import { connectProxyNodeHandler, createConnectProxy } from './connect-proxy';

let app: KeyedApp;
let proxyServer: http.Server;
let proxyBase: string;

beforeAll(async () => {
  app = await startKeyedApp({ dialect: 'sqlite' });
  const proxy = createConnectProxy({ baseUrl: app.base, apiKey: app.key.secret });
  proxyServer = http.createServer(connectProxyNodeHandler(proxy, { prefix: '/api/sigil' }));
  await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
  proxyBase = `http://127.0.0.1:${(proxyServer.address() as { port: number }).port}/api/sigil`;
});
afterAll(async () => {
  await new Promise((resolve) => proxyServer?.close(resolve));
  await app?.close();
});

const call = async (method: string, op: string, opts: { body?: string; headers?: Record<string, string> } = {}) => {
  const res = await fetch(`${proxyBase}/${op}`, {
    method,
    body: opts.body,
    headers: { 'content-type': 'application/json', ...opts.headers },
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
};

describe('connect proxy', () => {
  it('a full sign-in through the proxy, with the real key attached and the client’s key header dropped', async () => {
    const heidi = await demoWallet('heidi');
    // A browser that sends some other key (or a stolen one) changes nothing: the proxy's key is used.
    const spoof = { 'x-api-key': app.otherKey.secret };
    const c = await call('POST', 'challenge', { body: JSON.stringify({ wallet: heidi.address }), headers: spoof });
    expect(c.status).toBe(200);
    expect(c.body.audience).toBe(app.key.key.id);
    expect(c.headers.get('x-ratelimit-limit')).toBe('300');
    const v = await call('POST', 'verify', {
      body: JSON.stringify(await signChallenge(c.body, heidi, app.key.key.id)),
      headers: spoof,
    });
    expect(v.status).toBe(200);
    const s = await call('GET', 'session', { headers: { authorization: `Bearer ${v.body.token}`, ...spoof } });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ address: heidi.address, source: 'wallet', handle: null });
  });

  it('errors from Sigil pass through with their status and body', async () => {
    const res = await call('POST', 'verify', {
      body: JSON.stringify({ nonce: 'nope', signature: '1'.repeat(64), signer: (await demoWallet('heidi')).address }),
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('CHALLENGE_NOT_FOUND');
  });

  it('any other operation or method → 404 NOT_FOUND (keys, usage, webhooks never pass)', async () => {
    for (const [method, op] of [
      ['POST', 'keys'],
      ['GET', 'usage'],
      ['POST', 'session'],
      ['GET', 'challenge'],
      ['POST', '../keys'],
      ['POST', 'constructor'],
    ] as const) {
      const res = await call(method, op, method === 'POST' ? { body: '{}' } : {});
      expect(res.status, `${method} ${op}`).toBe(404);
      expect(res.body).toStrictEqual({ code: 'NOT_FOUND', message: 'unsupported operation' });
    }
  });

  it('a body that is not a JSON object → 400 BAD_REQUEST', async () => {
    for (const body of ['[1]', '"x"', 'null', '{not json', '']) {
      const res = await call('POST', 'challenge', { body });
      expect(res.status, body).toBe(400);
      expect(res.body).toStrictEqual({ code: 'BAD_REQUEST', message: 'the body must be a JSON object' });
    }
  });
});
