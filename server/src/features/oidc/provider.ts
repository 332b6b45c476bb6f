// The OpenID Connect provider: panva's oidc-provider (OpenID Certified), configured for Sigil (docs/oidc.md).
// What is ours: clients = API keys (adapter.ts, clients.ts), the sign-in interaction = Connect (interaction.ts),
// the account = the Connect session behind the grant (account.ts), storage in our database, clients kept built
// (built-clients.ts), and the outbound client for back-channel logout. Everything else (endpoints, PKCE, token
// formats, refresh rotation, revocation, end-session) is the library's.
import { timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';

/** The library's module, imported on first use (service.ts). */
type OidcLibrary = typeof import('oidc-provider');
import { OIDC_SCOPE_CLAIMS, OIDC_SCOPES } from '@sigil/contract/oidc';
import type { OutboundClient } from '../../platform/outbound/client';
import { CODE_TTL_SECONDS, OIDC_PREFIX, INTERACTION_PATH, type ProviderDeps } from './deps';
import { findAccountFor, loginStillValid } from './account';
import { activeClientRow, adapterFactory } from './adapter';
import { keepBuiltClients } from './built-clients';
import { hashClientSecret } from './clients';
import { CookieKeys } from './cookie-keys';
import { errorPage, signInPageInPlace } from './page';
import { findLogin } from './queries';
import { resumeWritesTogether } from './writes';
import type { ProviderKeys } from './signing-keys';
import { OIDC_SIGNING_ALG } from './signing-keys';

/**
 * The library's `fetch`, used only for back-channel logout POSTs: through the SSRF-safe outbound client, within the
 * library's own deadline (its `signal`, 2.5 s), so that a slow receiver holds a revocation's answer no longer than
 * that, rather than the outbound client's 10 s.
 */
export function outboundFetch(outbound: Pick<OutboundClient, 'post'>) {
  return async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    if ((init.method ?? 'GET').toUpperCase() !== 'POST') throw new Error('only POST leaves the provider');
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    delete headers['user-agent'];
    const body = init.body instanceof URLSearchParams ? init.body.toString() : String(init.body ?? '');
    const result = await outbound.post(String(url), body, headers, { signal: init.signal ?? undefined });
    return new Response(null, { status: result.status });
  };
}

/** The login prompt also runs when the browser's session has no live Connect sign-in FOR THIS CLIENT. */
function loginPolicy(deps: ProviderDeps, { interactionPolicy }: OidcLibrary) {
  const policy = interactionPolicy.base();
  const login = policy.get('login')!;
  login.checks.add(
    new interactionPolicy.Check(
      'connect_session',
      'a Connect sign-in for this client is required',
      // What prompt=none answers without one: the library's Check takes the error before the check (without it,
      // interaction_required).
      'login_required',
      async (ctx: KoaContextWithOIDC) => {
        const { oidc } = ctx;
        if (oidc.result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        const grantId = oidc.session?.grantIdFor(oidc.client!.clientId);
        const ok = grantId && (await loginStillValid(deps, grantId, oidc.client!.clientId, oidc.session!.accountId));
        return ok ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT;
      },
    ),
  );
  return policy;
}

export function createProvider(lib: OidcLibrary, deps: ProviderDeps, keys: ProviderKeys): Provider {
  const ttl = deps.sessionTtlSeconds;
  const configuration: Configuration = {
    adapter: adapterFactory(
      deps.db,
      deps.now,
      {
        // One grant per sign-in: revoking its tokens (revocation endpoint, end-session, code replay) revokes the
        // Connect session it was made with.
        grantRevoked: async (grantId) => {
          const login = await findLogin(deps.db, grantId);
          if (login) await deps.sessions.revoke(login.session_jti, deps.now());
        },
        alreadyConsumed: () => new lib.errors.InvalidGrant('grant source already consumed'),
      },
      deps.durable,
    ),
    findAccount: (_ctx, sub, token) => findAccountFor(deps, sub, token),
    jwks: keys.jwks as Configuration['jwks'],
    // One signer for every request, in Keygrip's format (cookie-keys.ts).
    cookies: {
      keys: new CookieKeys(keys.cookieKeys),
      long: { signed: true },
      short: { signed: true },
    },
    scopes: [...OIDC_SCOPES],
    claims: Object.fromEntries(Object.entries(OIDC_SCOPE_CLAIMS).map(([scope, claims]) => [scope, [...claims]])),
    // Scope claims go into the id token too (Auth.js and most libraries read the profile from it).
    conformIdTokenClaims: false,
    enabledJWA: { idTokenSigningAlgValues: [OIDC_SIGNING_ALG], userinfoSigningAlgValues: [OIDC_SIGNING_ALG] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: OIDC_SIGNING_ALG,
      token_endpoint_auth_method: 'client_secret_basic',
    },
    clientAuthMethods: ['client_secret_basic', 'none'],
    responseTypes: ['code'],
    // PKCE (S256) for every client, confidential ones included (OAuth 2.1; costs a compliant client nothing).
    pkce: { required: () => true },
    rotateRefreshToken: true,
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      backchannelLogout: { enabled: true },
      registration: { enabled: false },
      introspection: { enabled: false },
      clientCredentials: { enabled: false },
    },
    // Browser (public) clients may call the token, userinfo and revocation endpoints from their redirect origins.
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' && client.redirectUris!.some((uri) => new URL(uri).origin === origin),
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
      policy: loginPolicy(deps, lib),
    },
    ttl: {
      AuthorizationCode: CODE_TTL_SECONDS,
      AccessToken: 3600,
      IdToken: 3600,
      Interaction: 600,
      Session: ttl,
      Grant: ttl,
      RefreshToken: ttl,
    },
    // Refresh and access tokens outlive the browser session; they end with the Connect session (account.ts).
    expiresWithSession: async () => false,
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    routes: {
      authorization: `${OIDC_PREFIX}/auth`,
      backchannel_authentication: `${OIDC_PREFIX}/backchannel`,
      code_verification: `${OIDC_PREFIX}/device`,
      device_authorization: `${OIDC_PREFIX}/device/auth`,
      end_session: `${OIDC_PREFIX}/session/end`,
      introspection: `${OIDC_PREFIX}/token/introspection`,
      jwks: `${OIDC_PREFIX}/jwks`,
      pushed_authorization_request: `${OIDC_PREFIX}/request`,
      registration: `${OIDC_PREFIX}/reg`,
      revocation: `${OIDC_PREFIX}/token/revocation`,
      token: `${OIDC_PREFIX}/token`,
      userinfo: `${OIDC_PREFIX}/me`,
      challenge: `${OIDC_PREFIX}/challenge`,
      credential: `${OIDC_PREFIX}/credential`,
    },
    fetch: outboundFetch(deps.outbound) as Configuration['fetch'],
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(out.error, out.error_description);
    },
  };
  const provider = new lib.Provider(deps.issuer, configuration);
  // Behind a TLS proxy the library must still build every URL from the issuer (the raw mount sets the
  // forwarded headers from it: service.ts).
  provider.proxy = true;
  // Secrets are stored hashed: compare SHA-256 of what the client presents with the stored hash.
  provider.Client.prototype.compareClientSecret = async function compare(this: { clientSecret?: string }, actual) {
    const expected = Buffer.from(this.clientSecret ?? '', 'utf8');
    const presented = Buffer.from(hashClientSecret(String(actual)), 'utf8');
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  };
  keepBuiltClients(provider, (id) => activeClientRow(deps.db, id));
  provider.use(signInPageInPlace);
  provider.use(resumeWritesTogether(deps));
  provider.on('server_error', (_ctx, error) => deps.log.error({ err: error }, 'oidc provider error'));
  provider.on('backchannel.error', (_client, error, accountId) =>
    deps.log.warn({ err: error, accountId }, 'oidc back-channel logout failed'),
  );
  return provider;
}
