// What the Connect procedures share: the service from the context, and the auth error rows of their docs.
import type { RequestContext } from '../../trpc/context';
import type { ConnectService } from './service';

export function connectOf(ctx: RequestContext): ConnectService {
  if (!ctx.services.connect) throw new Error('connect is not configured: buildApp needs a db');
  return ctx.services.connect;
}

/** Errors every keyed route can answer (trpc/procedures.ts apiKeyProcedure). */
export const CONNECT_AUTH_ERRORS = {
  401: 'API_KEY_REQUIRED / INVALID_KEY, or a Connect code',
  429: 'RATE_LIMITED (Retry-After)',
} as const;
