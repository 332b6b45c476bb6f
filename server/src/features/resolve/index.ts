// Public resolution: name → owner, wallet → trusted primary handle.
import type { ResolveService } from './service';

export { resolveRouter } from './router';
export { createResolveService } from './service';
export type { ResolveService } from './service';

declare module '../../trpc/context' {
  interface Services {
    resolve: ResolveService;
  }
}
