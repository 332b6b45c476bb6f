// Clients kept built (built-clients.ts): with more clients in use than the library keeps (100 to 200), each is still built
// once; an edited registration is built again, a removed one is no client. Against the library itself, with its
// lookup reading registrations from a map as the adapter reads them from the database.
import { generateKeyPairSync } from 'node:crypto';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { OIDC_SCOPES } from '@sigil/contract/oidc';
import { keepBuiltClients } from './built-clients';
import { clientMetadata } from './clients';
import type { ClientRow } from './queries';
import { OIDC_SIGNING_ALG } from './signing-keys';

const row = (i: number, redirect = `https://app${i}.example/callback`): ClientRow => ({
  key_id: `key_${i}`,
  client_type: 'confidential',
  secret_hash: 'ab'.repeat(32),
  redirect_uris: JSON.stringify([redirect]),
  post_logout_redirect_uris: '[]',
  scopes: OIDC_SCOPES.join(' '),
  backchannel_logout_uri: null,
  created_at: 1_700_000_000_000,
  updated_at: 1_700_000_000_000,
});

function providerOver(rows: Map<string, ClientRow>): Provider {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const clients: Adapter = {
    find: async (id) => {
      const r = rows.get(id);
      return r ? (clientMetadata(r) as AdapterPayload) : undefined;
    },
    upsert: async () => {},
    findByUid: async () => undefined,
    findByUserCode: async () => undefined,
    consume: async () => {},
    destroy: async () => {},
    revokeByGrantId: async () => {},
  };
  return new Provider('https://sigil.example', {
    adapter: () => clients,
    jwks: { keys: [{ ...jwk, kid: 'k1', alg: OIDC_SIGNING_ALG, use: 'sig' }] },
    scopes: [...OIDC_SCOPES],
    enabledJWA: { idTokenSigningAlgValues: [OIDC_SIGNING_ALG] },
    clientAuthMethods: ['client_secret_basic', 'none'],
  });
}

/** As many as the OIDC bench uses: more than the library's cache can hold in any order of use. */
const CLIENTS = 256;

async function findAll(provider: Provider) {
  const found = [];
  for (let i = 0; i < CLIENTS; i++) found.push(await provider.Client.find(`key_${i}`));
  return found;
}

describe('clients kept built', () => {
  const rows = () => new Map<string, ClientRow>(Array.from({ length: CLIENTS }, (_, i) => [`key_${i}`, row(i)]));

  it('builds each of 256 clients in use once, where the library alone builds them again', async () => {
    const registrations = rows();
    const kept = providerOver(registrations);
    keepBuiltClients(kept, async (id) => registrations.get(id));
    const first = await findAll(kept);
    expect(first.every((client, i) => client?.clientId === `key_${i}`)).toBe(true);
    const again = await findAll(kept);
    expect(again.filter((client, i) => client !== first[i])).toEqual([]);

    // Why: the library's own cache holds the last 100 to 200 registrations, so a round over 256 finds none built.
    const bare = providerOver(rows());
    const bareFirst = await findAll(bare);
    const bareAgain = await findAll(bare);
    expect(bareAgain.filter((client, i) => client === bareFirst[i])).toEqual([]);
  });

  it('builds an edited registration again, from the edit, and keeps that one', async () => {
    const registrations = rows();
    const provider = providerOver(registrations);
    keepBuiltClients(provider, async (id) => registrations.get(id));
    const before = await provider.Client.find('key_7');
    expect(before!.redirectUris).toEqual(['https://app7.example/callback']);

    registrations.set('key_7', { ...row(7, 'https://moved.example/callback'), updated_at: 1_700_000_000_001 });
    const after = await provider.Client.find('key_7');
    expect(after).not.toBe(before);
    expect(after!.redirectUris).toEqual(['https://moved.example/callback']);
    expect(await provider.Client.find('key_7')).toBe(after);
  });

  it('finds no client for a removed registration (a revoked key), nor for an empty or unknown id', async () => {
    const registrations = rows();
    const provider = providerOver(registrations);
    keepBuiltClients(provider, async (id) => registrations.get(id));
    const before = await provider.Client.find('key_3');
    expect(before?.clientId).toBe('key_3');

    registrations.delete('key_3');
    expect(await provider.Client.find('key_3')).toBeUndefined();
    expect(await provider.Client.find('')).toBeUndefined();
    expect(await provider.Client.find('key_unknown')).toBeUndefined();

    registrations.set('key_3', row(3));
    const registeredAgain = await provider.Client.find('key_3');
    expect(registeredAgain?.clientId).toBe('key_3');
  });

  it('rejects a registration the library rejects, as the library does, and keeps nothing of it', async () => {
    const registrations = rows();
    registrations.set('key_9', { ...row(9), scopes: 'openid email' });
    const provider = providerOver(registrations);
    keepBuiltClients(provider, async (id) => registrations.get(id));
    await expect(provider.Client.find('key_9')).rejects.toMatchObject({ error: 'invalid_client_metadata' });
    registrations.set('key_9', row(9));
    expect((await provider.Client.find('key_9'))?.clientId).toBe('key_9');
  });
});
