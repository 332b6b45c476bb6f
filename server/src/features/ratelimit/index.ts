// The rate limiter: per-key minute and UTC-day windows in the shared store (docs/rate-limits.md).
export { countPrefixes, countStatementNative, windowsStatementNative } from './queries';
export {
  createRateLimiter,
  deleteExpiredWindows,
  passedWith,
  rateLimitHeaders,
  readUsage,
  refusalOf,
  usageOf,
  windowsAt,
} from './service';
export type { RateLimiter, RateLimitResult } from './service';
