// The session step of sessionProcedure (trpc/context.ts SessionGate), over the Connect session service.
import type { SessionGate } from '../../trpc/context';
import { bearerToken, type SessionService } from './sessions';

export function createSessionGate(sessions: Pick<SessionService, 'verify'>): SessionGate {
  return { verifyBearer: (authorization, audience) => sessions.verify(bearerToken(authorization), audience) };
}
