// The OpenID Connect feature's one service: the raw HTTP handler the host mounts at discovery and /oidc/*, and
// the client registration verbs of the key routes. The provider is built on first use (its keys are read from,
// or generated into, the database once).
import { IpLimiter } from '../../platform/ip-limiter';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { z } from 'zod';
import type { KeySessionsResponseSchema } from '@sigil/contract/connect';
import type { OidcClientResponse, OidcClientsResponse, PutOidcClientRequest } from '@sigil/contract/oidc';

type KeySessionsResponse = z.infer<typeof KeySessionsResponseSchema>;
import type { KeysService } from '../keys/index';
import {
  clientMetadataProblem,
  deleteClient,
  endSignInsOfRevokedKey,
  getClient,
  listClients,
  putClient,
  type OidcClientsDeps,
} from './clients';
import { serveInteraction } from './interaction';
import { inRequestScope } from './request-scope';
import {
  listKeySessions,
  logout,
  revokeKeySession,
  revokeKeyWallet,
  revokeWallet,
  type LifecycleDeps,
} from './lifecycle';
import { INTERACTION_PATH, type ProviderDeps } from './deps';
import { createDurabilityBarrier } from '../../platform/db/index';
import { createProvider } from './provider';
import { loadProviderKeys } from './signing-keys';

export interface OidcService {
  /** Serves `/.well-known/openid-configuration` and everything under `/oidc/` (node:http request and response). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** The clients of the caller's active keys. */
  listClients(account: string): Promise<OidcClientsResponse>;
  getClient(account: string, keyId: string): Promise<OidcClientResponse>;
  putClient(account: string, input: PutOidcClientRequest): Promise<OidcClientResponse>;
  deleteClient(account: string, keyId: string): Promise<void>;
  /** The key `keyId` was revoked: the sign-ins of its client end (its tokens go, their Connect sessions are revoked). */
  keyRevoked(keyId: string): Promise<void>;
  /** Revokes the presented Connect session (Bearer through `audience`); back-channel logout to its clients. */
  logout(audience: string, authorization: string | undefined): Promise<{ revoked: boolean }>;
  /** Revokes every active session of `wallet` through `audience`; back-channel logout to their clients. */
  revokeWallet(audience: string, wallet: string): Promise<{ revoked: number }>;
  /** The active Connect sessions of one of the caller's keys. */
  listKeySessions(account: string, keyId: string, wallet?: string): Promise<KeySessionsResponse>;
  /** The key's owner revokes one of its sessions (false when not an active session of that key). */
  revokeKeySession(account: string, keyId: string, jti: string): Promise<{ revoked: boolean }>;
  /** The key's owner revokes every active session of `wallet` through that key. */
  revokeKeyWallet(account: string, keyId: string, wallet: string): Promise<{ revoked: number }>;
}

export function createOidcService(
  deps: Omit<ProviderDeps, 'now' | 'durable' | 'pageLimiter'> & {
    keys: KeysService;
    now?: () => number;
    /** SIGIL_OIDC_PAGE_LIMIT_PER_MINUTE. */
    pageLimitPerMinute: number;
  },
): OidcService {
  const now = deps.now ?? Date.now;
  // Made on the first write that waits for it (a logout, a replaced session): a barrier is bound to the database
  // file it flushes.
  let barrier: (() => Promise<void>) | undefined;
  const durable = () => (barrier ??= createDurabilityBarrier(deps.db))();
  const providerDeps: ProviderDeps = { ...deps, now, durable, pageLimiter: new IpLimiter(deps.pageLimitPerMinute) };
  const issuer = new URL(deps.issuer);
  let provider: Promise<{ provider: Provider; serve: ReturnType<Provider['callback']> }> | undefined;
  const ready = () => {
    // Imported on first use: the library's module prints a runtime notice on Node 20 when it loads, which must not
    // precede a configuration error or appear in a process that never serves OpenID Connect.
    provider ??= Promise.all([import('oidc-provider'), loadProviderKeys(deps.db)])
      .then(([lib, keys]) => {
        const built = createProvider(lib, providerDeps, keys);
        // Koa composes its middleware in callback(): once, not per request.
        return { provider: built, serve: built.callback() };
      })
      .catch((error) => {
        provider = undefined; // retry on the next request
        throw error;
      });
    return provider;
  };
  const lifecycle: LifecycleDeps = {
    db: deps.db,
    sessions: deps.sessions,
    keys: deps.keys,
    provider: async () => (await ready()).provider,
    log: deps.log,
    now,
  };
  const clients: OidcClientsDeps = {
    db: deps.db,
    keys: deps.keys,
    issuer: deps.issuer.replace(/\/+$/, ''),
    now,
    metadataProblem: async (metadata) => clientMetadataProblem((await ready()).provider, metadata),
  };

  return {
    handle: (req, res) =>
      inRequestScope(async () => {
        const { provider: oidc, serve } = await ready();
        // Every URL the library writes is built from the issuer, whatever Host the request came with.
        req.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
        req.headers['x-forwarded-host'] = issuer.host;
        const path = (req.url ?? '/').split('?')[0]!;
        if (path.startsWith(`${INTERACTION_PATH}/`)) {
          return serveInteraction(providerDeps, oidc, req, res, path.slice(INTERACTION_PATH.length + 1));
        }
        await serve(req, res);
      }),
    listClients: (account) => listClients(clients, account),
    getClient: (account, keyId) => getClient(clients, account, keyId),
    putClient: (account, input) => putClient(clients, account, input),
    deleteClient: (account, keyId) => deleteClient(clients, account, keyId),
    keyRevoked: (keyId) => endSignInsOfRevokedKey(clients, keyId),
    logout: (audience, authorization) => logout(lifecycle, audience, authorization),
    revokeWallet: (audience, wallet) => revokeWallet(lifecycle, audience, wallet),
    listKeySessions: (account, keyId, wallet) => listKeySessions(lifecycle, account, keyId, wallet),
    revokeKeySession: (account, keyId, jti) => revokeKeySession(lifecycle, account, keyId, jti),
    revokeKeyWallet: (account, keyId, wallet) => revokeKeyWallet(lifecycle, account, keyId, wallet),
  };
}
