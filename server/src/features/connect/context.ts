// What the Connect procedures share: the auth error rows of their docs.

/** Errors every keyed route can answer (trpc/procedures.ts apiKeyProcedure). */
export const CONNECT_AUTH_ERRORS = {
  401: 'API_KEY_REQUIRED / INVALID_KEY, or a Connect code',
  429: 'RATE_LIMITED (Retry-After)',
} as const;
