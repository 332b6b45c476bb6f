// REST routes that code outside the service calls by name: the SDK's integrator proxy and the portal's own proxy
// forward Connect sign-in from this one table, so both forward the same operations to the same paths.

/** Connect: operation (the last path segment) → the one route it forwards to. Nothing else is forwarded. */
export const CONNECT_ROUTES = {
  challenge: { method: 'POST', path: '/v1/auth/challenge' },
  verify: { method: 'POST', path: '/v1/auth/verify' },
  'verify-tx': { method: 'POST', path: '/v1/auth/verify-tx' },
  'verify-signin': { method: 'POST', path: '/v1/auth/verify-signin' },
  session: { method: 'GET', path: '/v1/auth/session' },
} as const;

export type ConnectOperation = keyof typeof CONNECT_ROUTES;
