/**
 * The shared auth suite: every keyed route's test calls it with a request factory, so that every route proves the
 * same rules (spec: Authentication, Limits):
 *
 *   X-API-Key routes (`apiKeyAuthSuite`): missing key → 401 API_KEY_REQUIRED; unknown / malformed key → 401
 *   INVALID_KEY; revoked key → 401 INVALID_KEY; the four X-RateLimit-* headers present and integers on a keyed
 *   response; over the limit → 429 RATE_LIMITED with Retry-After (and the headers).
 *
 *   Portal routes (`portalSessionAuthSuite`): no / malformed / forged / `alg: none` / expired / revoked bearer, or a
 *   session issued through another key than the portal's → 401 INVALID_SESSION.
 *
 *   apiKeyAuthSuite('POST /v1/auth/challenge', () => app, (app, auth) =>
 *     app.call('POST', '/v1/auth/challenge', { ...auth, body: { wallet } }));
 */
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { SignJWT, UnsecuredJWT } from 'jose';
import { expect, it } from 'vitest';
import { setUsage } from './ratelimit-usage';
import { createKey, revokeKey } from '../../server/src/features/keys/service';
import { RATE_LIMIT_HEADERS } from '@sigil/contract/http-headers';
import { TIER_LIMITS } from '@sigil/contract/keys';
import type { CallOptions, KeyedApp, KeyedResponse } from './keyed-app';
import { sessionSigningKey } from './session-keys';

export type AuthOptions = Pick<CallOptions, 'key' | 'bearer'>;
/** Sends the route's request with these credentials (and a valid body). May be called several times. */
export type RouteRequest = (app: KeyedApp, auth: AuthOptions) => Promise<KeyedResponse>;

/** Lowercase, as `expectRateHeaders` keys the values it returns. */
const RATE_HEADERS = Object.values(RATE_LIMIT_HEADERS).map((name) => name.toLowerCase());

const show = (res: KeyedResponse) => `${res.status} ${res.text}`;

export function expectRateHeaders(res: KeyedResponse): Record<string, number> {
  const values: Record<string, number> = {};
  for (const name of RATE_HEADERS) {
    const value = res.headers.get(name);
    expect(value, `${name} on ${show(res)}`).toMatch(/^\d+$/);
    values[name] = Number(value);
  }
  return values;
}

/**
 * `extra` auth merged into every call: e.g. the session route passes a valid bearer for the key under test via
 * `bearerFor` (called with the key's secret and id), so only the key varies.
 */
export function apiKeyAuthSuite(
  route: string,
  app: () => KeyedApp,
  request: RouteRequest,
  options: { bearerFor?: (app: KeyedApp, key: { secret: string; id: string }) => Promise<string> } = {},
): void {
  const withBearer = async (
    a: KeyedApp,
    key: { secret: string; id: string } | null,
    auth: AuthOptions,
  ): Promise<AuthOptions> => (options.bearerFor && key ? { ...auth, bearer: await options.bearerFor(a, key) } : auth);

  it(`${route}: no X-API-Key → 401 API_KEY_REQUIRED`, async () => {
    const res = await request(app(), {});
    expect(res.status, show(res)).toBe(401);
    expect(res.body).toStrictEqual({ code: 'API_KEY_REQUIRED', message: 'send your API key in the X-API-Key header' });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it(`${route}: empty X-API-Key → 401 API_KEY_REQUIRED`, async () => {
    const res = await request(app(), { key: '' });
    expect(res.status, show(res)).toBe(401);
    expect(res.body.code).toBe('API_KEY_REQUIRED');
  });

  it(`${route}: unknown or malformed key → 401 INVALID_KEY`, async () => {
    for (const key of [`sigil_sk_${base58.encode(randomBytes(32))}`, 'not-a-key', 'x'.repeat(300)]) {
      const res = await request(app(), { key });
      expect(res.status, show(res)).toBe(401);
      expect(res.body).toStrictEqual({ code: 'INVALID_KEY', message: 'the API key is not valid (unknown or revoked)' });
    }
  });

  it(`${route}: revoked key → 401 INVALID_KEY at once`, async () => {
    const a = app();
    const account = base58.encode(randomBytes(32));
    const { key, secret } = await createKey(a.database.db, { account });
    const auth = await withBearer(a, { secret, id: key.id }, { key: secret });
    const before = await request(a, auth);
    expect(['API_KEY_REQUIRED', 'INVALID_KEY'], show(before)).not.toContain(before.body?.code);
    await revokeKey(a.database.db, account, key.id);
    const after = await request(a, auth);
    expect(after.status, show(after)).toBe(401);
    expect(after.body.code).toBe('INVALID_KEY');
  });

  it(`${route}: keyed responses carry the four X-RateLimit-* integers, counting down`, async () => {
    const a = app();
    const { key, secret } = await createKey(a.database.db, { account: base58.encode(randomBytes(32)) });
    const auth = await withBearer(a, { secret, id: key.id }, { key: secret });
    const first = expectRateHeaders(await request(a, auth));
    const second = expectRateHeaders(await request(a, auth));
    expect(first['x-ratelimit-limit']).toBe(TIER_LIMITS.free.minute);
    expect(first['x-ratelimit-daily-limit']).toBe(TIER_LIMITS.free.day);
    // Same UTC day: the daily count strictly goes down (the minute may have rolled over in between).
    expect(second['x-ratelimit-daily-remaining']).toBeLessThan(first['x-ratelimit-daily-remaining']!);
  });

  it(`${route}: over the limit → 429 RATE_LIMITED with Retry-After and the headers`, async () => {
    const a = app();
    const { key, secret } = await createKey(a.database.db, { account: base58.encode(randomBytes(32)) });
    const auth = await withBearer(a, { secret, id: key.id }, { key: secret });
    // Use up today's window directly in the shared store (the limiter's own table), then ask once more over HTTP.
    await setUsage(a.database.db, key.id, { day: TIER_LIMITS.free.day });
    const res = await request(a, auth);
    expect(res.status, show(res)).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    const retryAfter = res.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(86_400);
    const headers = expectRateHeaders(res);
    expect(headers['x-ratelimit-daily-remaining']).toBe(0);
  });
}

/** Tokens that must never open a portal route. `portalSession()` makes a genuine portal session for the revocation case. */
export function portalSessionAuthSuite(
  route: string,
  app: () => KeyedApp,
  request: RouteRequest,
  sessions: {
    /** A valid session issued through the portal key: {token, jti}. */
    portalSession: (app: KeyedApp) => Promise<{ token: string; jti: string }>;
    /** A valid session issued through the integrator key (app.key). */
    integratorSession: (app: KeyedApp) => Promise<string>;
  },
): void {
  const expectInvalid = (res: KeyedResponse) => {
    expect(res.status, show(res)).toBe(401);
    expect(res.body.code, show(res)).toBe('INVALID_SESSION');
  };
  const claims = (a: KeyedApp) => ({ sub: a.key.key.account, handle: null, src: 'wallet' });

  it(`${route}: no bearer, malformed bearer, or an X-API-Key instead → 401 INVALID_SESSION`, async () => {
    const a = app();
    expectInvalid(await request(a, {}));
    expectInvalid(await request(a, { bearer: 'not.a.jwt' }));
    expectInvalid(await request(a, { key: a.portal.secret }));
  });

  it(`${route}: forged (another key), alg none and expired tokens → 401 INVALID_SESSION`, async () => {
    const a = app();
    const { jti } = await sessions.portalSession(a);
    const base = () =>
      new SignJWT(claims(a))
        .setIssuer('sigil')
        .setAudience(a.config.portalDomain)
        .setJti(jti)
        .setSubject(a.key.key.account);
    const forged = await base()
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
    const none = new UnsecuredJWT(claims(a))
      .setIssuer('sigil')
      .setAudience(a.config.portalDomain)
      .setJti(jti)
      .setSubject(a.key.key.account)
      .setIssuedAt()
      .setExpirationTime('1h')
      .encode();
    const now = Math.floor(Date.now() / 1000);
    const genuine = await sessionSigningKey(a.database.db);
    const expired = await base()
      .setProtectedHeader({ alg: genuine.alg, kid: genuine.kid })
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(genuine.key);
    for (const token of [forged, none, expired]) expectInvalid(await request(a, { bearer: token }));
  });

  it(`${route}: a revoked portal session → 401 INVALID_SESSION`, async () => {
    const a = app();
    const { token, jti } = await sessions.portalSession(a);
    const ok = await request(a, { bearer: token });
    expect(ok.body?.code, show(ok)).not.toBe('INVALID_SESSION');
    await a.app.services.sessions!.revoke(jti);
    expectInvalid(await request(a, { bearer: token }));
  });

  it(`${route}: a session issued through another key than the portal's → 401 INVALID_SESSION`, async () => {
    const a = app();
    expectInvalid(await request(a, { bearer: await sessions.integratorSession(a) }));
  });
}

/**
 * Keyless routes whose credential is a third party's signed token in the body (POST /privy/wallet): `token(claims)`
 * makes a genuine one; the suite proves that API keys and bearers neither replace nor disturb it, and that unsigned,
 * algorithm-confused and re-signed tokens answer the route's refusal (`refused`: status and public body).
 */
export function publicBodyTokenSuite(
  route: string,
  app: () => KeyedApp,
  request: (app: KeyedApp, token: string, auth: AuthOptions) => Promise<KeyedResponse>,
  tokens: {
    genuine: () => Promise<string>;
    /** The verification key's PEM (an HS256 token keyed with it must not pass). */
    publicPem: () => string;
    claims: () => Record<string, unknown>;
    refused: { status: number; body: unknown };
  },
): void {
  const expectRefused = (res: KeyedResponse) => {
    expect(res.status, show(res)).toBe(tokens.refused.status);
    expect(res.body, show(res)).toEqual(tokens.refused.body);
  };

  it(`${route}: keyless — a genuine token answers alike with no key, a bad key or a bearer, and no rate headers`, async () => {
    const a = app();
    const token = await tokens.genuine();
    const plain = await request(a, token, {});
    expect(plain.status, show(plain)).toBe(200);
    for (const auth of [{ key: 'sk_not_a_key' }, { key: a.key.secret }, { bearer: 'not.a.jwt' }]) {
      const res = await request(a, token, auth);
      expect(res.status, show(res)).toBe(200);
      expect({ ...res.body, slot: 0 }).toEqual({ ...plain.body, slot: 0 });
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it(`${route}: alg none, HS256 keyed with the public key, and a re-signed payload → refused`, async () => {
    const a = app();
    const none = new UnsecuredJWT(tokens.claims()).setIssuedAt().setExpirationTime('1h').encode();
    const confused = await new SignJWT(tokens.claims())
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(tokens.publicPem()));
    const [header, , signature] = (await tokens.genuine()).split('.');
    const now = Math.floor(Date.now() / 1000);
    const swapped = `${header}.${Buffer.from(JSON.stringify({ ...tokens.claims(), iat: now, exp: now + 3600, extra: 1 })).toString('base64url')}.${signature}`;
    for (const token of [none, confused, swapped]) expectRefused(await request(a, token, {}));
  });
}

/**
 * Keyless routes limited per client address (POST /gift/notify): API keys and bearers neither replace nor disturb the
 * answer, and no X-RateLimit-* header appears; over the address's minute (or day) → 429 `rate limited` with
 * Retry-After, decided before any chain read (with the RPC down the answer is still 429); another address is not
 * limited. `limitKey(ip)` is the route's key in the shared limiter table; `from(app, ip)` sends the route's request
 * as if from that address (in process).
 */
export function keylessAddressLimitSuite(
  route: string,
  app: () => KeyedApp,
  request: RouteRequest,
  limit: {
    limitKey: (ip: string) => string;
    perMinute: number;
    perDay: number;
    from: (app: KeyedApp, ip: string) => Promise<{ statusCode: number; body: string }>;
  },
): void {
  it(`${route}: keyless — answers alike with no key, a bad key, a good key or a bearer, and no rate headers`, async () => {
    const a = app();
    const plain = await request(a, {});
    expect(plain.status, show(plain)).toBeLessThan(500);
    for (const auth of [{ key: 'sk_not_a_key' }, { key: a.key.secret }, { bearer: 'not.a.jwt' }]) {
      const res = await request(a, auth);
      expect(res.status, show(res)).toBe(plain.status);
      expect(res.body).toEqual(plain.body);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it(`${route}: over the client address's minute or day → 429 with Retry-After, before any chain read`, async () => {
    const a = app();
    const key = limit.limitKey('127.0.0.1');
    for (const counts of [{ minute: limit.perMinute }, { day: limit.perDay }]) {
      await setUsage(a.database.db, key, counts);
      a.chain.faults.set({ unreachable: true });
      try {
        const res = await request(a, {});
        expect(res.status, show(res)).toBe(429);
        expect(res.body).toEqual({ error: 'rate limited' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      } finally {
        a.chain.faults.clear();
      }
      // Another client address has its own count.
      const other = await limit.from(a, '10.9.8.7');
      expect(other.statusCode, other.body).not.toBe(429);
      await setUsage(a.database.db, key, {});
    }
    const after = await request(a, {});
    expect(after.status, show(after)).not.toBe(429);
  });
}
