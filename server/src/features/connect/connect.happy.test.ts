// Connect over real HTTP against the local chain, signing with the scenario's wallets.
import { describe, expect, it } from 'vitest';
import { buildSignInMessage, signChallenge, signSignIn } from '@sigil/client-sdk/connect';
import { signMemoTransaction } from '@sigil/client-sdk/connect-tx';
import { base64 } from '@scure/base';
import { base58 } from '@scure/base';
import { TEST_PORTAL_DOMAIN } from '@sigil/test/support/keyed-app';
import { apiKeyAuthSuite } from '@sigil/test/support/auth-suite';
import { demoWallet } from '../../localchain/scenario';
import { signIn, show, useConnectWorld } from '@sigil/test/support/connect-world';

const DISCLAIMER =
  'Proves current control of this handle or wallet and the listed attestations only; it is not proof of legal identity, personhood or KYC.';

const world = useConnectWorld();

const challenge = (body: unknown, key = world.secret) => world.app.call('POST', '/v1/auth/challenge', { key, body });

describe('POST /v1/auth/challenge', () => {
  it('{handle} → a handle-control challenge with the exact v2 string, carrying the registration epoch', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await challenge({ handle: '@Alice' });
    expect(res.status, show(res)).toBe(200);
    const { nonce } = res.body;
    expect(nonce).toMatch(/^[1-9A-HJ-NP-Za-km-z]{20,24}$/);
    expect(res.body).toStrictEqual({
      nonce,
      handle: 'alice',
      challenge: `sigil-connect:v2:handle-control:${world.keyId}:sigil-handles:ctl:v1:alice:1:${nonce}`,
      audience: world.keyId,
      signature_encoding: 'base58',
      expires_at: res.body.expires_at,
      proves: 'wallet-control+attestations',
      disclaimer: DISCLAIMER,
    });
    expect(res.body.expires_at - before).toBeGreaterThanOrEqual(299);
    expect(res.body.expires_at - before).toBeLessThanOrEqual(301);
  });

  it('a re-registered handle carries its current epoch (phoenix: 2)', async () => {
    const res = await challenge({ handle: 'phoenix' });
    expect(res.body.challenge).toBe(
      `sigil-connect:v2:handle-control:${world.keyId}:sigil-handles:ctl:v1:phoenix:2:${res.body.nonce}`,
    );
  });

  it('{wallet} with a primary → handle-control for the primary; without → address control (handle null)', async () => {
    const alice = await demoWallet('alice');
    const withPrimary = await challenge({ wallet: alice.address });
    expect(withPrimary.body.handle).toBe('alice');
    expect(withPrimary.body.challenge).toBe(
      `sigil-connect:v2:handle-control:${world.keyId}:sigil-handles:ctl:v1:alice:1:${withPrimary.body.nonce}`,
    );

    const heidi = await demoWallet('heidi');
    const without = await challenge({ wallet: heidi.address });
    expect(without.status, show(without)).toBe(200);
    expect(without.body.handle).toBeNull();
    expect(without.body.challenge).toBe(
      `sigil-connect:v2:wallet-control:${world.keyId}:${heidi.address}:${without.body.nonce}`,
    );
    expect('memo' in without.body).toBe(false);
  });

  it('mode tx → address control plus the memo, even for a wallet with a primary; mode signin → address control', async () => {
    const alice = await demoWallet('alice');
    const tx = await challenge({ wallet: alice.address, mode: 'tx' });
    expect(tx.body.handle).toBeNull();
    expect(tx.body.challenge).toBe(`sigil-connect:v2:wallet-control:${world.keyId}:${alice.address}:${tx.body.nonce}`);
    expect(tx.body.memo).toBe(`sigil-verify:${world.keyId}:${tx.body.nonce}`);
    const signin = await challenge({ wallet: alice.address, mode: 'signin' });
    expect(signin.body.handle).toBeNull();
    expect('memo' in signin.body).toBe(false);
  });

  it('the portal key’s audience is the portal domain', async () => {
    const res = await challenge({ handle: 'alice' }, world.app.portal.secret);
    expect(res.body.audience).toBe(TEST_PORTAL_DOMAIN);
    expect(res.body.challenge).toBe(
      `sigil-connect:v2:handle-control:${TEST_PORTAL_DOMAIN}:sigil-handles:ctl:v1:alice:1:${res.body.nonce}`,
    );
  });
});

describe('verify → session → session read', () => {
  it('handle control by the owner: source owner, live attestations, exact fields; session read re-reads them', async () => {
    const alice = await demoWallet('alice');
    const c = await challenge({ handle: 'alice' });
    const v = await world.app.call('POST', '/v1/auth/verify', {
      key: world.secret,
      body: await signChallenge(c.body, alice, world.keyId),
    });
    expect(v.status, show(v)).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    expect(v.body).toStrictEqual({
      token: v.body.token,
      token_type: 'Bearer',
      expires_at: v.body.expires_at,
      handle: 'alice',
      address: alice.address,
      verified: ['github', 'x'],
      source: 'owner',
      proves: 'wallet-control+attestations',
      disclaimer: DISCLAIMER,
    });
    expect(v.body.expires_at - now).toBeGreaterThanOrEqual(86_399);
    expect(v.body.expires_at - now).toBeLessThanOrEqual(86_401);
    expect(v.body.token.split('.')).toHaveLength(3);

    const s = await world.app.call('GET', '/v1/auth/session', { key: world.secret, bearer: v.body.token });
    expect(s.status, show(s)).toBe(200);
    expect(s.body).toStrictEqual({
      handle: 'alice',
      address: alice.address,
      verified: ['github', 'x'],
      source: 'owner',
      proves: 'wallet-control+attestations',
      disclaimer: DISCLAIMER,
    });
  });

  it('a tokenized handle is proved by the NFT holder: source nft-holder', async () => {
    const dave = await demoWallet('dave');
    const c = await challenge({ handle: 'vault' });
    const v = await world.app.call('POST', '/v1/auth/verify', {
      key: world.secret,
      body: await signChallenge(c.body, dave, world.keyId),
    });
    expect(v.status, show(v)).toBe(200);
    expect(v.body.source).toBe('nft-holder');
    expect(v.body.handle).toBe('vault');
    expect(v.body.address).toBe(dave.address);
  });

  it('revoked and expired attestations are not listed (bob)', async () => {
    const bob = await demoWallet('bob');
    const v = await signIn(world.app, { keySecret: world.secret, audience: world.keyId, wallet: bob });
    expect(v.status, show(v)).toBe(200);
    expect(v.body.handle).toBe('bob');
    expect(v.body.verified).toStrictEqual([]);
  });

  it('{wallet} with a primary: signer may be omitted; the handle is proved by that wallet', async () => {
    const alice = await demoWallet('alice');
    const c = await challenge({ wallet: alice.address });
    const { nonce, signature } = await signChallenge(c.body, alice, world.keyId);
    const v = await world.app.call('POST', '/v1/auth/verify', { key: world.secret, body: { nonce, signature } });
    expect(v.status, show(v)).toBe(200);
    expect(v.body.source).toBe('owner');
    expect(v.body.handle).toBe('alice');
  });

  it('address control without a primary: source wallet, handle null, verified []', async () => {
    const heidi = await demoWallet('heidi');
    const v = await signIn(world.app, { keySecret: world.secret, audience: world.keyId, wallet: heidi });
    expect(v.status, show(v)).toBe(200);
    expect(v.body).toMatchObject({ handle: null, address: heidi.address, verified: [], source: 'wallet' });
    const s = await world.app.call('GET', '/v1/auth/session', { key: world.secret, bearer: v.body.token });
    expect(s.body).toStrictEqual({
      handle: null,
      address: heidi.address,
      verified: [],
      source: 'wallet',
      proves: 'wallet-control+attestations',
      disclaimer: DISCLAIMER,
    });
  });

  it('verify-tx: a signed memo transaction (never broadcast) → wallet session that still reports the primary handle', async () => {
    const alice = await demoWallet('alice');
    const c = await challenge({ wallet: alice.address, mode: 'tx' });
    const signedTransaction = await signMemoTransaction(c.body.memo, alice, world.chain.latestBlockhash().blockhash);
    const slotBefore = world.chain.slot();
    const v = await world.app.call('POST', '/v1/auth/verify-tx', {
      key: world.secret,
      body: { nonce: c.body.nonce, signedTransaction },
    });
    expect(v.status, show(v)).toBe(200);
    expect(v.body).toMatchObject({
      handle: 'alice',
      address: alice.address,
      source: 'wallet',
      verified: ['github', 'x'],
    });
    // Never broadcast: the transaction's signature is unknown to the chain.
    const txSignature = base58.encode(base64.decode(signedTransaction).slice(1, 65));
    const status = await world.chain.rpc.getSignatureStatuses([txSignature as never]).send();
    expect(status.value[0]).toBeNull();
    expect(world.chain.slot()).toBeGreaterThanOrEqual(slotBefore);
  });

  it('verify-signin: a SIWS message for an allowed domain, signature in base58 and in base64', async () => {
    const heidi = await demoWallet('heidi');
    for (const encoding of ['base58', 'base64'] as const) {
      const c = await challenge({ wallet: heidi.address, mode: 'signin' });
      const message = buildSignInMessage({
        domain: 'app.partner.test',
        address: heidi.address,
        nonce: c.body.nonce,
        statement: 'Sign in to Partner',
        uri: 'https://app.partner.test/login',
      });
      const body = await signSignIn(c.body.nonce, message, heidi);
      if (encoding === 'base64') body.signature = base64.encode(base58.decode(body.signature));
      const v = await world.app.call('POST', '/v1/auth/verify-signin', { key: world.secret, body });
      expect(v.status, `${encoding}: ${show(v)}`).toBe(200);
      expect(v.body).toMatchObject({ handle: null, address: heidi.address, source: 'wallet' });
    }
  });

  it('verify-signin on an address-control challenge requested without a mode also works', async () => {
    const heidi = await demoWallet('heidi');
    const c = await challenge({ wallet: heidi.address });
    const message = buildSignInMessage({ domain: TEST_PORTAL_DOMAIN, address: heidi.address, nonce: c.body.nonce });
    const v = await world.app.call('POST', '/v1/auth/verify-signin', {
      key: world.secret,
      body: await signSignIn(c.body.nonce, message, heidi),
    });
    expect(v.status, show(v)).toBe(200);
  });

  it('the tRPC face serves the same procedures with the same headers', async () => {
    const res = await world.app.call('POST', '/trpc/connect.challenge', {
      key: world.secret,
      body: { handle: 'alice' },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.result.data.handle).toBe('alice');
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');
  });
});

describe('shared auth suite', () => {
  const heidiAddress = async () => (await demoWallet('heidi')).address;
  apiKeyAuthSuite(
    'POST /v1/auth/challenge',
    () => world.app,
    async (a, auth) => a.call('POST', '/v1/auth/challenge', { ...auth, body: { wallet: await heidiAddress() } }),
  );
  apiKeyAuthSuite(
    'POST /v1/auth/verify',
    () => world.app,
    (a, auth) => a.call('POST', '/v1/auth/verify', { ...auth, body: { nonce: 'unknown', signature: '1'.repeat(64) } }),
  );
  apiKeyAuthSuite(
    'POST /v1/auth/verify-tx',
    () => world.app,
    (a, auth) =>
      a.call('POST', '/v1/auth/verify-tx', { ...auth, body: { nonce: 'unknown', signedTransaction: 'AA==' } }),
  );
  apiKeyAuthSuite(
    'POST /v1/auth/verify-signin',
    () => world.app,
    (a, auth) =>
      a.call('POST', '/v1/auth/verify-signin', {
        ...auth,
        body: { nonce: 'unknown', signedMessage: 'AA==', signature: '1'.repeat(64) },
      }),
  );
  apiKeyAuthSuite(
    'GET /v1/auth/session',
    () => world.app,
    (a, auth) => a.call('GET', '/v1/auth/session', auth),
    {
      // A real session for the key under test, so only the key varies.
      bearerFor: async (a, key) =>
        (await signIn(a, { keySecret: key.secret, audience: key.id, wallet: await demoWallet('heidi') })).body.token,
    },
  );
});
