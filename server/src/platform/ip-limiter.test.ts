import { describe, expect, it } from 'vitest';
import { IpLimiter } from './ip-limiter';

describe('IpLimiter', () => {
  const minute = 60_000 * 28_000_000; // a UTC minute boundary

  it('admits perMinute requests per address per UTC minute, then refuses with the seconds left', () => {
    const limiter = new IpLimiter(2);
    expect(limiter.limit('1.1.1.1', minute + 1_000)).toEqual({ passed: true, retryAfterSeconds: 59 });
    expect(limiter.limit('1.1.1.1', minute + 2_000).passed).toBe(true);
    expect(limiter.limit('1.1.1.1', minute + 45_500)).toEqual({ passed: false, retryAfterSeconds: 15 });
    // Another address has its own window; the next minute starts afresh.
    expect(limiter.limit('2.2.2.2', minute + 46_000).passed).toBe(true);
    expect(limiter.limit('1.1.1.1', minute + 60_000).passed).toBe(true);
  });

  it('never answers Retry-After 0', () => {
    const limiter = new IpLimiter(1);
    limiter.limit('a', minute + 59_999);
    expect(limiter.limit('a', minute + 59_999)).toEqual({ passed: false, retryAfterSeconds: 1 });
  });
});
