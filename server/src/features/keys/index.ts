// API keys: the portal's key management routes, the key step of every keyed request, the portal's own key.
import type { KeysService } from './service';

export { keysRouter } from './router';
export { createKeyGate } from './gate';
export { createKeysService } from './service';
export type { KeysService } from './service';

declare module '../../trpc/context' {
  interface Services {
    keys: KeysService;
  }
}
