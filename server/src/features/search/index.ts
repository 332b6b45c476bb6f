// Handle search: the index of the registry's handles (filled by workers/handle-index.ts) and its keyed search route.
import type { SearchService } from './service';

export { searchRouter } from './router';
export { createSearchService } from './service';
export { runHandleIndexPass } from './index-pass';
export type { HandleIndexDeps, HandleIndexPassResult } from './index-pass';

declare module '../../trpc/context' {
  interface Services {
    search: SearchService;
  }
}
