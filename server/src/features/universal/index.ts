// The universal resolver: native handles and domains, SNS (`sol`) and ENS (`eth`) when their RPC is configured.
import type { UniversalService } from './service';

export { universalRouter } from './router';
export { createNativeCache, createUniversalService } from './service';
export { createSnsAdapter } from './sns';
export { createEnsAdapter } from './ens';
// The MCP get_records tool reads a handle's live records exactly as GET /v1/resolve does.
export { readNativeHandle } from './native';
// The keyed reverse and Gate map chain failures to 502 RPC_ERROR exactly as the keyed resolve does.
export { withRpcErrors } from './native';

declare module '../../trpc/context' {
  interface Services {
    universal: UniversalService;
  }
}
