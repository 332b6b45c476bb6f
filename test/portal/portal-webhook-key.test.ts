// The portal's backend pieces for the webhook pages and the pages' session read, against the real service:
// /api/webhook-key (the API key the webhook pages use, in an httpOnly cookie), the tRPC proxy attaching it as
// X-API-Key to the payWebhooks.* procedures only, /api/session (200 {session: null} when signed out), and the
// server-side lookup.
import { describe, expect, it } from 'vitest';
import { handleWebhookKey } from '../../web-portal/lib/webhook-key';
import { readPortalSession } from '../../web-portal/lib/session-read';
import { lookup } from '../../web-portal/lib/lookup';
import { forwardTrpc } from '../../web-portal/lib/trpc-proxy';
import { API_KEY_COOKIE, SESSION_COOKIE } from '../../web-portal/lib/session-cookie';
import { PORTAL_ORIGIN, usePortalService } from './support';

const portal = usePortalService();

const call = (method: string, body?: unknown, cookie?: string) =>
  handleWebhookKey(
    new Request(`${PORTAL_ORIGIN}/api/webhook-key`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(cookie ? { cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    portal.config,
  );

describe('/api/webhook-key', () => {
  it('checks the key with the service, stores it httpOnly and answers only its display prefix', async () => {
    const secret = portal.app.key.secret;
    const set = await call('POST', { secret });
    expect(set.status).toBe(200);
    expect(await set.json()).toStrictEqual({ set: true, prefix: secret.slice(0, 13) });
    expect(set.headers.get('set-cookie')).toBe(`${API_KEY_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict`);

    const read = await call('GET', undefined, `${API_KEY_COOKIE}=${secret}`);
    expect(await read.json()).toStrictEqual({ set: true, prefix: secret.slice(0, 13) });
    const none = await call('GET');
    expect(await none.json()).toStrictEqual({ set: false, prefix: null });

    const cleared = await call('DELETE', undefined, `${API_KEY_COOKIE}=${secret}`);
    expect(cleared.status).toBe(204);
    expect(cleared.headers.get('set-cookie')).toBe(`${API_KEY_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`);
  });

  it('refuses a malformed secret (400) and a key the service does not accept (401), setting no cookie', async () => {
    for (const body of [{}, { secret: 42 }, { secret: 'not a key' }, { secret: 'sigil_sk_0OIl' }]) {
      const res = await call('POST', body);
      expect(res.status).toBe(400);
      expect(await res.json()).toStrictEqual({
        code: 'BAD_REQUEST',
        message: 'expected an API key secret (sigil_sk_…)',
      });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const unknown = await call('POST', { secret: `sigil_sk_${'1'.repeat(44)}` });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toStrictEqual({
      code: 'INVALID_KEY',
      message: 'the service does not accept this key (unknown or revoked)',
    });
    expect(unknown.headers.get('set-cookie')).toBeNull();
    const put = await call('PUT', {});
    expect(put.status).toBe(405);
  });
});

describe('the tRPC proxy and the webhook key', () => {
  /** What the proxy sends upstream for `procedure`, with both cookies present. */
  async function upstreamHeaders(procedure: string): Promise<Record<string, string>> {
    let seen: Record<string, string> = {};
    const fetchImpl = (async (_url: string, init: RequestInit) => {
      seen = init.headers as Record<string, string>;
      return Response.json({});
    }) as unknown as typeof fetch;
    await forwardTrpc(
      procedure,
      new Request(`${PORTAL_ORIGIN}/api/trpc/${procedure}`, {
        headers: {
          cookie: `${SESSION_COOKIE}=a.b.c; ${API_KEY_COOKIE}=${portal.app.key.secret}`,
          'x-api-key': 'forged',
        },
      }),
      portal.config,
      fetchImpl,
    );
    return seen;
  }

  it('attaches the webhook key to payWebhooks.* only, the session to keys.*, usageHistory.*, ownerWebhooks.* and the owner’s oidc.* only', async () => {
    expect(await upstreamHeaders('payWebhooks.list')).toStrictEqual({
      accept: 'application/json',
      'x-api-key': portal.app.key.secret,
    });
    for (const procedure of [
      'keys.list',
      'keys.rename',
      'usageHistory.history',
      'ownerWebhooks.list',
      'ownerWebhooks.edit',
      'oidc.putClient',
      'oidc.keySessions',
      'oidc.revokeKeySession',
    ])
      expect(await upstreamHeaders(procedure)).toStrictEqual({
        accept: 'application/json',
        authorization: 'Bearer a.b.c',
      });
    expect(await upstreamHeaders('resolve.resolve')).toStrictEqual({ accept: 'application/json' });
    expect(await upstreamHeaders('ownerWebhooks.catalog')).toStrictEqual({ accept: 'application/json' });
  });

  it('lists a webhook account over the real service with the cookie key', async () => {
    const res = await forwardTrpc(
      'payWebhooks.list',
      new Request(`${PORTAL_ORIGIN}/api/trpc/payWebhooks.list?input=${encodeURIComponent('{}')}`, {
        headers: { cookie: `${API_KEY_COOKIE}=${portal.app.key.secret}` },
      }),
      portal.config,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ result: { data: { webhooks: [] } } });
  });
});

describe('/api/session', () => {
  it('answers 200 {session: null} without a cookie, and clears a cookie the service refuses', async () => {
    const none = await readPortalSession(new Request(`${PORTAL_ORIGIN}/api/session`), portal.config);
    expect(none.status).toBe(200);
    expect(await none.json()).toStrictEqual({ session: null });
    const refused = await readPortalSession(
      new Request(`${PORTAL_ORIGIN}/api/session`, { headers: { cookie: `${SESSION_COOKIE}=a.b.c` } }),
      portal.config,
    );
    expect(refused.status).toBe(200);
    expect(await refused.json()).toStrictEqual({ session: null });
    expect(refused.headers.get('set-cookie')).toBe(`${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`);
  });
});

describe('the lookup (server side)', () => {
  it('a handle: the public answer, its address records (portal key) and no agent; errors in the spec’s text', async () => {
    const alice = await lookup('@alice', portal.config);
    expect(alice.kind).toBe('resolution');
    if (alice.kind !== 'resolution') return;
    expect(alice.resolution).toMatchObject({ name: 'alice', namespace: 'handle', verification: 'owner' });
    expect(alice.records?.addresses.map((a) => a.chain)).toStrictEqual(['BTC', 'ETH', 'SOL', 'X1']);
    expect(alice.agent).toBeNull();
    expect(alice.level).toBeNull();
    expect(alice.problems).toStrictEqual([]);
    expect(await lookup('nobodyhere', portal.config)).toStrictEqual({
      kind: 'error',
      query: 'nobodyhere',
      text: 'handle not registered',
    });
    const reverse = await lookup(portal.app.chain.scenario!.reverse.plainWithPrimary, portal.config);
    expect(reverse).toMatchObject({ kind: 'reverse', handle: 'alice' });
    const unkeyed = await lookup('@alice', { ...portal.config, portalKey: undefined });
    expect(unkeyed).toMatchObject({
      records: null,
      problems: ['address records and agent manifests need the portal key (SIGIL_PORTAL_KEY)'],
    });
  });

  it('an agent whose manifest this service cannot fetch: no manifest, but its level (L0) and why L1 failed', async () => {
    // This service does not trust the demo agent host's CA, so the manifest is unreachable: the level says so.
    const scout = await lookup('@scout', portal.config);
    expect(scout.kind).toBe('resolution');
    if (scout.kind !== 'resolution') return;
    expect(scout.agent).toBeNull();
    expect(scout.level).toMatchObject({
      handle: 'scout',
      level: 'L0',
      next: { level: 'L1', reason: 'manifest-unreachable' },
    });
    expect(scout.problems).toHaveLength(1);
    expect(scout.problems[0]).toMatch(/^agent: manifest https:\/\/.+ is unreachable: .+ \(MANIFEST_UNREACHABLE\)$/);
  });
});
