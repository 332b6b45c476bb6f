// The keyed reverse: a wallet → its primary handle, with the rule that failed when there is none.
import type { ReverseService } from './service';

export { reverseRouter } from './router';
export { createReverseService } from './service';
// Gate resolves wallet subjects and its handle.primary leaf with the same verdicts.
export type { ReverseService } from './service';

declare module '../../trpc/context' {
  interface Services {
    reverse: ReverseService;
  }
}
