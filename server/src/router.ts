// The root router: every procedure of the service, served as tRPC at /trpc and as REST at each procedure's
// `meta.openapi` path. Keys match the feature folders. Adding a feature = one line here and one in compose.ts.
import { agentsRouter } from './features/agents/index';
import { connectRouter } from './features/connect/index';
import { gateRouter } from './features/gate/index';
import { giftsRouter } from './features/gifts/index';
import { healthRouter } from './features/health/index';
import { keysRouter } from './features/keys/index';
import { oidcRouter } from './features/oidc/index';
import { privyRouter } from './features/privy/index';
import { resolveRouter } from './features/resolve/index';
import { reverseRouter } from './features/reverse/index';
import { searchRouter } from './features/search/index';
import { universalRouter } from './features/universal/index';
import { payWebhooksRouter } from './features/pay-webhooks/index';
import { identityEventsRouter } from './features/identity-events/index';
import { usageHistoryRouter } from './features/usage-history/index';
import { ownerWebhooksRouter } from './features/owner-webhooks/index';
import { router } from './trpc/init';

export const appRouter = router({
  health: healthRouter,
  resolve: resolveRouter,
  connect: connectRouter,
  keys: keysRouter,
  payWebhooks: payWebhooksRouter,
  universal: universalRouter,
  agents: agentsRouter,
  search: searchRouter,
  reverse: reverseRouter,
  privy: privyRouter,
  gifts: giftsRouter,
  gate: gateRouter,
  identityEvents: identityEventsRouter,
  usageHistory: usageHistoryRouter,
  oidc: oidcRouter,
  ownerWebhooks: ownerWebhooksRouter,
});

export type AppRouter = typeof appRouter;
