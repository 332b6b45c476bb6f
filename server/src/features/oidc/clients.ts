// OpenID Connect clients are API keys: a key's owner registers redirect URIs, a type and scopes for it, and the
// key id becomes the client_id (so id tokens are issued to the key the user signed in for, the same audience as
// the Connect strings). A confidential client's secret is random, shown once, stored as SHA-256 only (the
// provider compares hashes: provider.ts), like API key secrets (docs/keys.md).
import { createHash, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import {
  CLIENT_SECRET_PREFIX,
  type OidcClient,
  type OidcClientResponse,
  type OidcClientsResponse,
  type PutOidcClientRequest,
} from '@sigil/contract/oidc';
import type { Database } from '../../platform/db/index';
import type { KeysService } from '../keys/index';
import { clientRowsOfAccount, deleteClientRow, findClientRow, putClientRow, type ClientRow } from './queries';

export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** What the library reads for a client (adapter.ts): the registration as standard client metadata. */
export function clientMetadata(row: ClientRow): Record<string, unknown> {
  const confidential = row.client_type === 'confidential';
  return {
    client_id: row.key_id,
    // The hash stands in for the secret: compareClientSecret hashes what the client presents (provider.ts).
    ...(confidential ? { client_secret: row.secret_hash } : {}),
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: JSON.parse(row.redirect_uris),
    post_logout_redirect_uris: JSON.parse(row.post_logout_redirect_uris),
    scope: row.scopes,
    id_token_signed_response_alg: 'ES256',
    ...(row.backchannel_logout_uri
      ? { backchannel_logout_uri: row.backchannel_logout_uri, backchannel_logout_session_required: true }
      : {}),
  };
}

function view(row: ClientRow, issuer: string): OidcClient {
  return {
    client_id: row.key_id,
    type: row.client_type,
    token_endpoint_auth_method: row.client_type === 'confidential' ? 'client_secret_basic' : 'none',
    redirect_uris: JSON.parse(row.redirect_uris),
    post_logout_redirect_uris: JSON.parse(row.post_logout_redirect_uris),
    scopes: row.scopes.split(' '),
    backchannel_logout_uri: row.backchannel_logout_uri,
    issuer,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface OidcClientsDeps {
  db: Kysely<Database>;
  keys: Pick<KeysService, 'own'>;
  issuer: string;
  now: () => number;
}

/** The caller's active key with this id, or 404 KEY_NOT_FOUND (another account's key is not told apart). */
async function ownActiveKey(deps: OidcClientsDeps, account: string, keyId: string): Promise<void> {
  const key = await deps.keys.own(account, keyId);
  if (!key || key.revoked_at !== null) {
    throw new ApiError('KEY_NOT_FOUND', `no active key ${keyId} in your account`);
  }
}

/** Every client of the caller's active keys: one read for a page that shows which keys are clients. */
export async function listClients(deps: OidcClientsDeps, account: string): Promise<OidcClientsResponse> {
  const rows = await clientRowsOfAccount(deps.db, account);
  return { clients: rows.map((row) => view(row, deps.issuer)) };
}

export async function getClient(deps: OidcClientsDeps, account: string, keyId: string): Promise<OidcClientResponse> {
  await ownActiveKey(deps, account, keyId);
  const row = await findClientRow(deps.db, keyId);
  if (!row) throw new ApiError('OIDC_CLIENT_NOT_FOUND', `key ${keyId} has no OpenID Connect client`);
  return { client: view(row, deps.issuer) };
}

export async function putClient(
  deps: OidcClientsDeps,
  account: string,
  input: PutOidcClientRequest,
): Promise<OidcClientResponse> {
  await ownActiveKey(deps, account, input.id);
  const existing = await findClientRow(deps.db, input.id);
  const now = deps.now();
  const confidential = input.type === 'confidential';
  // A new secret when the client becomes confidential, or on request; a public client holds none.
  const newSecret =
    confidential && (input.rotate_secret || !existing?.secret_hash)
      ? CLIENT_SECRET_PREFIX + base58.encode(randomBytes(32))
      : undefined;
  const scopes = new Set(['openid', ...input.scopes]);
  const row: ClientRow = {
    key_id: input.id,
    client_type: input.type,
    secret_hash: !confidential ? null : newSecret ? hashClientSecret(newSecret) : existing!.secret_hash,
    redirect_uris: JSON.stringify(input.redirect_uris),
    post_logout_redirect_uris: JSON.stringify(input.post_logout_redirect_uris),
    scopes: [...scopes].join(' '),
    backchannel_logout_uri: input.backchannel_logout_uri,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await putClientRow(deps.db, row);
  return { client: view(row, deps.issuer), ...(newSecret ? { client_secret: newSecret } : {}) };
}

export async function deleteClient(deps: OidcClientsDeps, account: string, keyId: string): Promise<void> {
  await ownActiveKey(deps, account, keyId);
  if (!(await deleteClientRow(deps.db, keyId))) {
    throw new ApiError('OIDC_CLIENT_NOT_FOUND', `key ${keyId} has no OpenID Connect client`);
  }
}
