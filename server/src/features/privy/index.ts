// Privy identity tokens → the handles and attestations of the user's Solana wallets (docs/privy.md).
import type { PrivyService } from './service';

export { privyRouter } from './router';
export { createPrivyService } from './service';

declare module '../../trpc/context' {
  interface Services {
    privy: PrivyService;
  }
}
