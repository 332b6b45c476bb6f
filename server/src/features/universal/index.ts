// The universal resolver: native handles and domains, SNS (`sol`) and ENS (`eth`) when their RPC is configured.
import type { UniversalService } from './service';

export { universalRouter } from './router';
export { createUniversalService } from './service';
export { createSnsAdapter } from './sns';
export { createEnsAdapter } from './ens';

declare module '../../trpc/context' {
  interface Services {
    universal: UniversalService;
  }
}
