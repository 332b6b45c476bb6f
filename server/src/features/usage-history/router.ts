import { router } from '../../trpc/init';
import { history } from './history.procedure';

/** tRPC paths: usageHistory.history (portal, Connect bearer session). */
export const usageHistoryRouter = router({ history });
