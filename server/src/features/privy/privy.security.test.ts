// POST /privy/wallet against forged tokens: only ES256 under the configured key passes. `alg: none`, an HS256 token
// keyed with the public key's PEM (algorithm confusion), a token with the signature stripped or its claims swapped
// after signing, and an access token of another app are all refused; and nothing in the answer opens a session.
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { privyIssuer, solanaWallet, PRIVY_TEST_APP_ID, type PrivyIssuer } from '@sigil/test/support/privy-tokens';

let app: KeyedApp;
let privy: PrivyIssuer;
beforeAll(async () => {
  privy = await privyIssuer();
  app = await startKeyedApp({ dialect: 'sqlite', env: privy.env });
}, 60_000);
afterAll(() => app?.close());

const WALLET = 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T';
const claims = {
  iss: 'privy.io',
  aud: PRIVY_TEST_APP_ID,
  sub: 'did:privy:x',
  linked_accounts: JSON.stringify([solanaWallet(WALLET)]),
};
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('forged Privy tokens', () => {
  it.each([
    ['alg none', async () => new UnsecuredJWT(claims).setIssuedAt().setExpirationTime('1h').encode()],
    [
      'HS256 keyed with the public PEM',
      async () =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode(privy.publicPem)),
    ],
    [
      'the signature stripped',
      async () => (await privy.token({ linked_accounts: [solanaWallet(WALLET)] })).replace(/\.[^.]+$/, '.'),
    ],
    [
      'claims swapped after signing',
      async () => {
        const [header, , signature] = (await privy.token({ linked_accounts: [] })).split('.');
        const now = Math.floor(Date.now() / 1000);
        return `${header}.${b64({ ...claims, iat: now, exp: now + 3600 })}.${signature}`;
      },
    ],
  ])('%s → 401 invalid privy token', async (_what, token) => {
    const res = await app.call('POST', '/privy/wallet', { body: { identityToken: await token() } });
    expect(res.status, res.text).toBe(401);
    expect(res.body).toEqual({ error: 'invalid privy token' });
  });

  it('a good token opens no session: the answer carries no token or cookie', async () => {
    const identityToken = await privy.token({ linked_accounts: [solanaWallet(WALLET)] });
    const res = await app.call('POST', '/privy/wallet', { body: { identityToken } });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(Object.keys(res.body).sort()).toEqual(['slot', 'user', 'wallets']);
    expect(res.text).not.toContain(identityToken.split('.')[2]!);
  });
});
