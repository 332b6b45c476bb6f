// The root router: every procedure of the service, served as tRPC at /trpc and as REST at each procedure's
// `meta.openapi` path. Adding a feature = its router file + one line here.
import { healthRouter } from '../features/health/router';
import { resolveRouter } from '../features/resolve/router';
import { router } from './init';

export const appRouter = router({
  health: healthRouter,
  names: resolveRouter,
});

export type AppRouter = typeof appRouter;
