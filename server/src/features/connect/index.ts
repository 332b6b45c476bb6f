// Connect: sign-in by wallet signature (challenges, the three proof paths, sessions).
import type { ConnectService } from './service';
import type { SessionService } from './sessions';

export { connectRouter } from './router';
export { createConnectService } from './service';
export { createSessionService } from './sessions';
// Another feature's statement that ends Connect sessions inside its own transaction (a removed OpenID Connect client).
export { revokeSessionRowsIn } from './session.queries';
export type { ConnectService } from './service';
export type { OpenedSession } from './proof-steps';
export type { SessionService } from './sessions';

declare module '../../trpc/context' {
  interface Services {
    connect: ConnectService;
    sessions: SessionService;
  }
}
