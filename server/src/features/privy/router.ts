import { router } from '../../trpc/init';
import { privyWallet } from './wallet.procedure';

/** tRPC paths: privy.wallet. */
export const privyRouter = router({ wallet: privyWallet });
