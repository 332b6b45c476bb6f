// Gifts (the registry's vouchers): the notify route that makes a gift's identity event prompt, and its state.
import type { GiftService } from './service';

export { giftsRouter } from './router';
export { createGiftService } from './service';

declare module '../../trpc/context' {
  interface Services {
    gifts: GiftService;
  }
}
