// Liveness, version and namespace facts (reads only the config and the chain).
import type { HealthService } from './service';

export { healthRouter } from './router';
export { createHealthService } from './service';

declare module '../../trpc/context' {
  interface Services {
    health: HealthService;
  }
}
