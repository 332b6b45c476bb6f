// Error rows shared by the metered resolution routes (docs: /openapi.json `errors` of each route).

/** Credentials of a metered route (trpc/procedures.ts meteredProcedure). */
export const METERED_AUTH_ERRORS = {
  401: 'API_KEY_REQUIRED (no key and x402 off) / INVALID_KEY',
  402: 'x402 payment required (keyless, x402 on): the challenge; a call that fails is not consumed',
  429: 'RATE_LIMITED (Retry-After)',
} as const;

/** Credentials of a keyed-only route (apiKeyProcedure). */
export const KEYED_AUTH_ERRORS = {
  401: 'API_KEY_REQUIRED / INVALID_KEY',
  429: 'RATE_LIMITED (Retry-After)',
} as const;
