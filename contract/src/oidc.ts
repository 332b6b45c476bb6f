// OpenID Connect: the scopes and claims Sigil issues, and the shapes of an API key's client registration
// (`GET|PUT|DELETE /v1/keys/{id}/oidc`). Decisions in docs/oidc.md. Pure: no I/O.
import { z } from 'zod';

/** Scopes a client may be allowed; `openid` is always among them. */
export const OIDC_SCOPES = ['openid', 'offline_access', 'profile', 'wallet', 'attestations'] as const;

/** Which claims each scope releases. */
export const OIDC_SCOPE_CLAIMS = {
  openid: ['sub', 'auth_time', 'amr'],
  profile: ['preferred_username'],
  wallet: ['wallet', 'sigil_source'],
  attestations: ['sigil_verified'],
} as const;

/** `amr` value of each Connect proof path. */
export const OIDC_AMR = {
  verify: 'sigil-signature',
  'verify-tx': 'sigil-memo-tx',
  'verify-signin': 'siws',
} as const;
export type OidcProofPath = keyof typeof OIDC_AMR;

export const OIDC_CLIENT_TYPES = ['confidential', 'public'] as const;

/** Client secrets: `sigil_cs_` + base58 of 32 random bytes; only the SHA-256 is stored. */
export const CLIENT_SECRET_PREFIX = 'sigil_cs_';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** An absolute URL without a fragment or credentials, or what is wrong with it. */
function plainUrlProblem(value: string): { url?: URL; problem?: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'is not an absolute URL' };
  }
  // Not `url.hash`: it is '' for a bare trailing '#', which the provider still refuses as a fragment.
  if (value.includes('#')) return { problem: 'must not have a fragment' };
  if (url.username || url.password) return { problem: 'must not carry credentials' };
  return { url };
}

/** https anywhere, http only on a loopback host (native apps and local development); no fragment, no credentials. */
export function redirectUriProblem(value: string): string | undefined {
  const { url, problem } = plainUrlProblem(value);
  if (!url) return problem;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must be https (http only on 127.0.0.1, localhost or [::1])';
}

/**
 * https only, loopback included: logout tokens go through the outbound client, which speaks nothing else
 * (docs/outbound.md), so an http URI would be accepted and never reached. No fragment, no credentials.
 */
export function backchannelLogoutUriProblem(value: string): string | undefined {
  const { url, problem } = plainUrlProblem(value);
  if (!url) return problem;
  return url.protocol === 'https:' ? undefined : 'must be https';
}

const checkedUri = (problemOf: (value: string) => string | undefined) =>
  z
    .string()
    .max(2048)
    .superRefine((value, ctx) => {
      const problem = problemOf(value);
      if (problem) ctx.addIssue({ code: 'custom', message: `${value} ${problem}` });
    });
const uri = checkedUri(redirectUriProblem);

export const OidcClientParamsSchema = z.object({ id: z.string().min(1).max(64) }).meta({ id: 'OidcClientParams' });

export const PutOidcClientRequestSchema = z
  .strictObject({
    id: z.string().min(1).max(64),
    type: z.enum(OIDC_CLIENT_TYPES).meta({
      description: '`confidential`: a backend with a client secret (client_secret_basic). `public`: PKCE only.',
    }),
    redirect_uris: z.array(uri).min(1).max(10),
    post_logout_redirect_uris: z.array(uri).max(10).default([]),
    scopes: z
      .array(z.enum(OIDC_SCOPES))
      .max(OIDC_SCOPES.length)
      .default([...OIDC_SCOPES])
      .meta({ description: 'Scopes the client may ask for; `openid` is always added.' }),
    backchannel_logout_uri: checkedUri(backchannelLogoutUriProblem).nullable().default(null),
    rotate_secret: z
      .boolean()
      .default(false)
      .meta({ description: 'Confidential clients: issue a new secret (the old one stops working at once).' }),
  })
  .meta({ id: 'PutOidcClientRequest' });
export type PutOidcClientRequest = z.infer<typeof PutOidcClientRequestSchema>;

export const OidcClientSchema = z
  .object({
    client_id: z.string().meta({ description: 'The API key id.' }),
    type: z.enum(OIDC_CLIENT_TYPES),
    token_endpoint_auth_method: z.enum(['client_secret_basic', 'none']),
    redirect_uris: z.array(z.string()),
    post_logout_redirect_uris: z.array(z.string()),
    scopes: z.array(z.string()),
    backchannel_logout_uri: z.string().nullable(),
    issuer: z
      .string()
      .meta({ description: 'The issuer; discovery is at `<issuer>/.well-known/openid-configuration`.' }),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'OidcClient' });
export type OidcClient = z.infer<typeof OidcClientSchema>;

export const OidcClientResponseSchema = z
  .object({
    client: OidcClientSchema,
    client_secret: z
      .string()
      .optional()
      .meta({ description: 'Only when a confidential client is created or its secret rotated: shown once.' }),
  })
  .meta({ id: 'OidcClientResponse' });
export type OidcClientResponse = z.infer<typeof OidcClientResponseSchema>;

export const OidcClientsResponseSchema = z
  .object({
    clients: z
      .array(OidcClientSchema)
      .meta({ description: 'The registrations of your active keys, oldest first (none: an empty list).' }),
  })
  .meta({ id: 'OidcClientsResponse' });
export type OidcClientsResponse = z.infer<typeof OidcClientsResponseSchema>;
