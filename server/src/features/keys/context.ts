// What the portal key procedures share.

/** Errors every portal route can answer (trpc/procedures.ts sessionProcedure). */
export const PORTAL_AUTH_ERRORS = { 401: 'INVALID_SESSION (absent, malformed, expired, revoked, forged, or not issued through the portal key)' } as const;
