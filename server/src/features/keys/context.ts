// What the portal key procedures share.
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/index';
import type { RequestContext } from '../../trpc/context';

export function dbOf(ctx: RequestContext): Kysely<Database> {
  if (!ctx.services.db) throw new Error('keys: buildApp needs a db');
  return ctx.services.db;
}

/** Errors every portal route can answer (trpc/procedures.ts sessionProcedure). */
export const PORTAL_AUTH_ERRORS = { 401: 'INVALID_SESSION (absent, malformed, expired, revoked, forged, or not issued through the portal key)' } as const;
