// OpenID Connect: Sigil as a provider (discovery, JWKS, code + PKCE, tokens, userinfo, revocation, end-session,
// back-channel logout), with API keys as clients and Connect as the sign-in. docs/oidc.md.
import type { OidcService } from './service';

export { oidcRouter } from './router';
export { createOidcService } from './service';
export { deleteExpiredOidc, OIDC_RETENTION_MS } from './housekeeping';

declare module '../../trpc/context' {
  interface Services {
    oidc: OidcService;
  }
}
