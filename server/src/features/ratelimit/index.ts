// The rate limiter: per-key minute and UTC-day windows in the shared store (docs/rate-limits.md).
export { createRateLimiter, deleteExpiredWindows, rateLimitHeaders, readUsage, windowsAt } from './service';
export type { RateLimiter } from './service';
