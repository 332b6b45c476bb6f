// Gate: access policies over on-chain identity, checked for a handle, a wallet or a Connect session.
import type { GateService } from './service';

export { gateRouter } from './router';
export { createGateService } from './service';

declare module '../../trpc/context' {
  interface Services {
    gate: GateService;
  }
}
