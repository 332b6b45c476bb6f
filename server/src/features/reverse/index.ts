// The keyed reverse: a wallet → its primary handle, with the rule that failed when there is none.
import type { ReverseService } from './service';

export { reverseRouter } from './router';
export { createReverseService } from './service';

declare module '../../trpc/context' {
  interface Services {
    reverse: ReverseService;
  }
}
