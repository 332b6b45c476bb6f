// OpenID Connect clients are API keys: a key's owner registers redirect URIs, a type and scopes for it, and the
// key id becomes the client_id (so id tokens are issued to the key the user signed in for, the same audience as
// the Connect strings). A confidential client's secret is random, shown once, stored as SHA-256 only (the
// provider compares hashes: provider.ts), like API key secrets (docs/keys.md).
import { createHash, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { ClientMetadata } from 'oidc-provider';
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
import {
  clientRowsOfAccount,
  deleteClientRow,
  endClientSignInsTogether,
  findClientRow,
  putClientRow,
  type ClientRow,
} from './queries';

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

/** The library's errors for metadata it refuses (its own schema): a registration it cannot build a client from. */
const METADATA_ERRORS = new Set(['invalid_client_metadata', 'invalid_redirect_uri']);

function refusedMetadata(error: unknown): error is Error & { error_description: string } {
  return error instanceof Error && METADATA_ERRORS.has((error as { error?: unknown }).error as string);
}

/** Why the library refuses to build a client from `metadata`, or undefined when it accepts it. */
export async function clientMetadataProblem(provider: Provider, metadata: ClientMetadata): Promise<string | undefined> {
  try {
    await provider.Client.validate(metadata);
    return undefined;
  } catch (error) {
    if (refusedMetadata(error)) return error.error_description;
    throw error;
  }
}

/**
 * The client as the provider finds it, or undefined when there is none or the library refuses its stored
 * registration (PUT checks a registration against the library's schema; a row written otherwise may fail it). For
 * lookups outside a request the library answers itself (the sign-in page, back-channel logout), which must not fail
 * on such a registration: to them it is no client, as it is to the library's own end-session.
 */
export async function findClientOrNone(provider: Provider, id: string) {
  try {
    return await provider.Client.find(id);
  } catch (error) {
    if (refusedMetadata(error)) return undefined;
    throw error;
  }
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
  /** Why the provider would refuse a registration's metadata (clientMetadataProblem), or undefined. */
  metadataProblem(metadata: ClientMetadata): Promise<string | undefined>;
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
  // The contract checks each field; the library checks the client as a whole, by its own rules. A registration it
  // refuses would be stored as a client that cannot sign anyone in, so it is refused here instead.
  const problem = await deps.metadataProblem(clientMetadata(row) as ClientMetadata);
  if (problem) throw new ApiError('BAD_REQUEST', `invalid client: ${problem}`);
  await putClientRow(deps.db, row);
  return { client: view(row, deps.issuer), ...(newSecret ? { client_secret: newSecret } : {}) };
}

/**
 * A key was revoked: its client no longer exists for the provider, and its sign-ins end as a removed registration's
 * do (deleteClient), so that nothing the client was given outlives it in the database either.
 */
export async function endSignInsOfRevokedKey(deps: OidcClientsDeps, keyId: string): Promise<void> {
  await endClientSignInsTogether(deps.db, keyId, deps.now());
}

/** Removes the registration; its grants, tokens and sign-ins end with it, in one transaction. */
export async function deleteClient(deps: OidcClientsDeps, account: string, keyId: string): Promise<void> {
  await ownActiveKey(deps, account, keyId);
  if (!(await deleteClientRow(deps.db, keyId, deps.now()))) {
    throw new ApiError('OIDC_CLIENT_NOT_FOUND', `key ${keyId} has no OpenID Connect client`);
  }
}
