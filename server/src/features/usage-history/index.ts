// Usage over time: per-account and per-key request counts by outcome, written in batches, read by the portal.
import type { UsageHistoryService } from './service';

export { usageHistoryRouter } from './router';
export { createUsageHistoryService, deleteExpiredUsage } from './service';

declare module '../../trpc/context' {
  interface Services {
    usageHistory: UsageHistoryService;
  }
}
