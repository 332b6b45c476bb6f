import { router } from '../../trpc/init';
import { history } from './history.procedure';
import { own } from './own.procedure';
import { requests } from './requests.procedure';

/**
 * tRPC paths: usageHistory.history and usageHistory.requests (portal, Connect bearer session), usageHistory.own
 * (X-API-Key: the key's own).
 */
export const usageHistoryRouter = router({ history, own, requests });
