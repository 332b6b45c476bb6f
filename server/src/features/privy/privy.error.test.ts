// POST /privy/wallet refusals: each reason a Privy identity token is refused has its own answer, and a service with
// no Privy app configured answers 501.
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { privyIssuer, solanaWallet, type PrivyIssuer } from '@sigil/test/support/privy-tokens';

let app: KeyedApp;
let bare: KeyedApp;
let privy: PrivyIssuer;
beforeAll(async () => {
  privy = await privyIssuer();
  app = await startKeyedApp({ dialect: 'sqlite', env: privy.env });
  bare = await startKeyedApp({ dialect: 'sqlite', chain: app.chain });
}, 60_000);
afterAll(async () => {
  await bare?.close();
  await app?.close();
});

const WALLET = 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T';
const post = (a: KeyedApp, body: unknown) => a.call('POST', '/privy/wallet', { body });

describe('POST /privy/wallet refusals', () => {
  const linked = { linked_accounts: [solanaWallet(WALLET)] };
  it.each([
    ['another app', () => privy.token({ ...linked, aud: 'clsomeotherapp' }), 401, 'privy token for another app'],
    [
      'another issuer',
      () => privy.token({ ...linked, iss: 'evil.example' }),
      401,
      'privy token not issued by privy.io',
    ],
    [
      'expired',
      () => privy.token(linked, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      401,
      'privy token expired',
    ],
    [
      'signed by another key',
      async () => privy.token(linked, { key: (await generateKeyPair('ES256')).privateKey }),
      401,
      'invalid privy token',
    ],
    ['not a JWT', async () => 'not.a.jwt', 401, 'invalid privy token'],
    [
      'no Solana wallet',
      () => privy.token({ linked_accounts: [{ type: 'wallet', address: '0xabc', chain_type: 'ethereum' }] }),
      422,
      'no solana wallet linked',
    ],
    [
      'a Solana wallet that is no address',
      () => privy.token({ linked_accounts: [solanaWallet('not-base58-0OIl')] }),
      422,
      'no solana wallet linked',
    ],
  ])('%s', async (_what, token, status, error) => {
    const res = await post(app, { identityToken: await token() });
    expect(res.status, res.text).toBe(status);
    expect(res.body).toEqual({ error });
  });

  it.each([
    ['no token', {}],
    ['an empty token', { identityToken: '' }],
    ['a token over 16384 characters', { identityToken: 'a'.repeat(16_385) }],
    ['another field', { identityToken: 'x', extra: 1 }],
  ])('%s → 400 bad request', async (_what, body) => {
    const res = await post(app, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'bad request' });
  });

  it('no Privy app configured → 501 not configured, even for a good token', async () => {
    const res = await post(bare, { identityToken: await privy.token(linked) });
    expect(res.status, res.text).toBe(501);
    expect(res.body).toEqual({ error: 'not configured' });
  });

  it('the chain unreachable → 502 rpc unreachable', async () => {
    const identityToken = await privy.token(linked);
    app.chain.faults.set({ unreachable: true });
    try {
      const res = await post(app, { identityToken });
      expect(res.status, res.text).toBe(502);
      expect(res.body).toEqual({ error: 'rpc unreachable' });
    } finally {
      app.chain.faults.clear();
    }
  });
});
