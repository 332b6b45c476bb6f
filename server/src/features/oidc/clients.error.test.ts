// The client registration routes (PUT/GET/DELETE /v1/keys/{id}/oidc, and the account's list GET /v1/oidc/clients):
// who may manage which key, what a registration may contain, and what the secret looks like.
import { generateKeyPairSigner } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { portalSession, show } from '@sigil/test/support/connect-world';
import { fixedAuthorizationUrl, registerClient, useOidcWorld } from '@sigil/test/support/oidc-world';

const world = useOidcWorld();

async function ownerWithKey() {
  const owner = await generateKeyPairSigner();
  const { token } = await portalSession(world.app, owner);
  const created = await world.app.call('POST', '/v1/keys', { bearer: token, body: { name: 'app' } });
  return { keyId: created.body.key.id as string, bearer: token, account: owner.address };
}

const put = (keyId: string, bearer: string, body: unknown) =>
  world.app.call('PUT', `/v1/keys/${keyId}/oidc`, { bearer, body });

describe('PUT /v1/keys/{id}/oidc', () => {
  it('confidential: the secret once (sigil_cs_ + base58), kept on update, replaced on rotate_secret', async () => {
    const { keyId, bearer } = await ownerWithKey();
    const created = await put(keyId, bearer, { type: 'confidential', redirect_uris: ['https://app.example/cb'] });
    expect(created.status, show(created)).toBe(200);
    expect(created.body.client_secret).toMatch(/^sigil_cs_[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    expect(created.body.client).toMatchObject({
      client_id: keyId,
      type: 'confidential',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: ['https://app.example/cb'],
      post_logout_redirect_uris: [],
      scopes: ['openid', 'offline_access', 'profile', 'wallet', 'attestations'],
      backchannel_logout_uri: null,
      issuer: world.app.base,
    });
    const updated = await put(keyId, bearer, { type: 'confidential', redirect_uris: ['https://app.example/cb2'] });
    expect(updated.body).not.toHaveProperty('client_secret');
    const rotated = await put(keyId, bearer, {
      type: 'confidential',
      redirect_uris: ['https://app.example/cb2'],
      rotate_secret: true,
    });
    expect(rotated.body.client_secret).toMatch(/^sigil_cs_/);
    expect(rotated.body.client_secret).not.toBe(created.body.client_secret);
    const read = await world.app.call('GET', `/v1/keys/${keyId}/oidc`, { bearer });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ client: rotated.body.client });
  });

  it('public: no secret, auth method none; scopes always include openid', async () => {
    const { keyId, bearer } = await ownerWithKey();
    const res = await put(keyId, bearer, {
      type: 'public',
      redirect_uris: ['http://127.0.0.1:3000/cb'],
      scopes: ['profile'],
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).not.toHaveProperty('client_secret');
    expect(res.body.client).toMatchObject({ token_endpoint_auth_method: 'none', scopes: ['openid', 'profile'] });
  });

  it.each([
    ['http on a public host', { type: 'public', redirect_uris: ['http://app.example/cb'] }],
    ['a fragment', { type: 'public', redirect_uris: ['https://app.example/cb#x'] }],
    ['a bare trailing #', { type: 'public', redirect_uris: ['https://app.example/cb#'] }],
    [
      'a bare trailing # in a post-logout URI',
      {
        type: 'public',
        redirect_uris: ['https://app.example/cb'],
        post_logout_redirect_uris: ['https://app.example/#'],
      },
    ],
    ['credentials', { type: 'public', redirect_uris: ['https://u:p@app.example/cb'] }],
    ['not a URL', { type: 'public', redirect_uris: ['/cb'] }],
    ['no redirect URI', { type: 'public', redirect_uris: [] }],
    ['an unknown scope', { type: 'public', redirect_uris: ['https://app.example/cb'], scopes: ['email'] }],
    ['an unknown type', { type: 'spa', redirect_uris: ['https://app.example/cb'] }],
    ['an unknown field', { type: 'public', redirect_uris: ['https://app.example/cb'], grant_types: ['implicit'] }],
    [
      'an http back-channel URI',
      { type: 'public', redirect_uris: ['https://a.example/cb'], backchannel_logout_uri: 'http://a.example/b' },
    ],
    [
      'an http back-channel URI on loopback (logout tokens go out over https only)',
      { type: 'public', redirect_uris: ['https://a.example/cb'], backchannel_logout_uri: 'http://127.0.0.1:9/bcl' },
    ],
  ])('refuses %s with 400', async (_what, body) => {
    const { keyId, bearer } = await ownerWithKey();
    const res = await put(keyId, bearer, body);
    expect(res.status, show(res)).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });

  it('over tRPC (the portal), a refused URI is named in the message with what is wrong with it', async () => {
    const { keyId, bearer } = await ownerWithKey();
    const res = await world.app.call('POST', '/trpc/oidc.putClient', {
      bearer,
      body: { id: keyId, type: 'public', redirect_uris: ['https://app.example/cb', 'http://app.example/cb'] },
    });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.message).toBe(
      'invalid input: redirect_uris.1: http://app.example/cb must be https (http only on 127.0.0.1, localhost or [::1])',
    );
    expect(res.body.error.data.errorCode).toBe('BAD_REQUEST');
  });

  it('a registration the provider itself would refuse is 400 with its reason, and nothing is stored', async () => {
    const { keyId, bearer, account } = await ownerWithKey();
    // Past the contract's checks (as a contract rule missing one of the library's would let it through): the
    // library's own schema refuses the client as a whole.
    const refused = world.app.app.services.oidc.putClient(account, {
      id: keyId,
      type: 'public',
      redirect_uris: ['https://app.example/cb#'],
      post_logout_redirect_uris: [],
      scopes: ['openid'],
      backchannel_logout_uri: null,
      rotate_secret: false,
    });
    await expect(refused).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'invalid client: redirect_uris must not contain fragments',
    });
    const read = await world.app.call('GET', `/v1/keys/${keyId}/oidc`, { bearer });
    expect(read.status, show(read)).toBe(404);
  });

  it('another account’s key, or a revoked key: 404 KEY_NOT_FOUND; no session: 401', async () => {
    const mine = await ownerWithKey();
    const theirs = await ownerWithKey();
    const body = { type: 'public', redirect_uris: ['https://app.example/cb'] };
    const res = await put(theirs.keyId, mine.bearer, body);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('KEY_NOT_FOUND');
    expect((await world.app.call('DELETE', `/v1/keys/${mine.keyId}`, { bearer: mine.bearer })).status).toBe(200);
    const revoked = await put(mine.keyId, mine.bearer, body);
    expect(revoked.status).toBe(404);
    const anonymous = await world.app.call('PUT', `/v1/keys/${theirs.keyId}/oidc`, { body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('INVALID_SESSION');
  });
});

describe('GET and DELETE /v1/keys/{id}/oidc', () => {
  it('no registration: 404 OIDC_CLIENT_NOT_FOUND; after DELETE the provider no longer knows the client', async () => {
    const { keyId, bearer } = await ownerWithKey();
    const none = await world.app.call('GET', `/v1/keys/${keyId}/oidc`, { bearer });
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('OIDC_CLIENT_NOT_FOUND');
    const registered = await registerClient(world.app, { type: 'public' });
    const del = await world.app.call('DELETE', `/v1/keys/${registered.clientId}/oidc`, {
      bearer: registered.ownerBearer,
    });
    expect(del.status, show(del)).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    const auth = fixedAuthorizationUrl(world.app, registered, 'openid');
    const res = await fetch(auth, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid_client');
    const again = await world.app.call('DELETE', `/v1/keys/${registered.clientId}/oidc`, {
      bearer: registered.ownerBearer,
    });
    expect(again.status).toBe(404);
  });
});

describe('GET /v1/oidc/clients', () => {
  it('lists the registrations of the caller’s active keys only, never a secret; no session: 401', async () => {
    const mine = await ownerWithKey();
    const other = await world.app.call('POST', '/v1/keys', { bearer: mine.bearer, body: { name: 'not a client' } });
    const theirs = await ownerWithKey();
    expect((await world.app.call('GET', '/v1/oidc/clients', { bearer: mine.bearer })).body).toEqual({ clients: [] });
    const registered = await put(mine.keyId, mine.bearer, {
      type: 'confidential',
      redirect_uris: ['https://app.example/cb'],
    });
    await put(theirs.keyId, theirs.bearer, { type: 'public', redirect_uris: ['https://them.example/cb'] });
    const list = await world.app.call('GET', '/v1/oidc/clients', { bearer: mine.bearer });
    expect(list.status, show(list)).toBe(200);
    expect(list.body).toEqual({ clients: [registered.body.client] });
    expect(list.text).not.toContain('sigil_cs_');
    expect(list.body.clients.map((c: { client_id: string }) => c.client_id)).not.toContain(other.body.key.id);
    // A revoked key's client is gone from the list, as it is for the provider.
    expect((await world.app.call('DELETE', `/v1/keys/${mine.keyId}`, { bearer: mine.bearer })).status).toBe(200);
    expect((await world.app.call('GET', '/v1/oidc/clients', { bearer: mine.bearer })).body).toEqual({ clients: [] });
    const anonymous = await world.app.call('GET', '/v1/oidc/clients');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('INVALID_SESSION');
  });
});
