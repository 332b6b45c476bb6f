// The root router: every procedure of the service, served as tRPC at /trpc and as REST at each procedure's
// `meta.openapi` path. Adding a feature = its router file + one line here.
import { connectRouter } from '../features/connect/router';
import { healthRouter } from '../features/health/router';
import { keysRouter } from '../features/keys/router';
import { payWebhooksRouter } from '../features/webhooks/router';
import { resolveRouter } from '../features/resolve/router';
import { universalRouter } from '../features/universal/router';
import { agentsRouter } from '../features/agents/router';
import { router } from './init';

export const appRouter = router({
  health: healthRouter,
  names: resolveRouter,
  auth: connectRouter,
  keys: keysRouter,
  payWebhooks: payWebhooksRouter,
  universal: universalRouter,
  agents: agentsRouter,
});

export type AppRouter = typeof appRouter;
