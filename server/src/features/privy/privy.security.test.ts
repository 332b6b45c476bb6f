// POST /privy/wallet against forged tokens and stray credentials (the shared suite, test/support/auth-suite.ts), a
// stripped signature, and the rule that a Privy token opens no session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicBodyTokenSuite } from '@sigil/test/support/auth-suite';
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
const linked = { linked_accounts: [solanaWallet(WALLET)] };
const post = (a: KeyedApp, identityToken: string, auth: { key?: string; bearer?: string } = {}) =>
  a.call('POST', '/privy/wallet', { ...auth, body: { identityToken } });

describe('POST /privy/wallet: forged tokens and stray credentials', () => {
  publicBodyTokenSuite('POST /privy/wallet', () => app, post, {
    genuine: () => privy.token(linked),
    publicPem: () => privy.publicPem,
    claims: () => ({
      iss: 'privy.io',
      aud: PRIVY_TEST_APP_ID,
      sub: 'did:privy:x',
      linked_accounts: JSON.stringify(linked.linked_accounts),
    }),
    refused: { status: 401, body: { error: 'invalid privy token' } },
  });

  it('the signature stripped → 401 invalid privy token', async () => {
    const res = await post(app, (await privy.token(linked)).replace(/\.[^.]+$/, '.'));
    expect(res.status, res.text).toBe(401);
    expect(res.body).toEqual({ error: 'invalid privy token' });
  });

  it('a good token opens no session: the answer carries no token or cookie', async () => {
    const identityToken = await privy.token(linked);
    const res = await post(app, identityToken);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(Object.keys(res.body).sort()).toEqual(['slot', 'user', 'wallets']);
    expect(res.text).not.toContain(identityToken.split('.')[2]!);
  });
});
