import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, windowsAt, type RateLimitResult } from './service';

// 2030-01-15T12:30:20.250Z
const NOW = Date.UTC(2030, 0, 15, 12, 30, 20, 250);

describe('windowsAt', () => {
  it('aligns to the UTC minute and the UTC day', () => {
    expect(windowsAt(NOW)).toEqual({
      minute: Date.UTC(2030, 0, 15, 12, 30, 0, 0),
      day: Date.UTC(2030, 0, 15),
      minuteReset: Date.UTC(2030, 0, 15, 12, 31, 0, 0),
      dayReset: Date.UTC(2030, 0, 16),
    });
  });
  it('puts a boundary instant in the window it starts', () => {
    const midnight = Date.UTC(2030, 0, 16);
    expect(windowsAt(midnight).day).toBe(midnight);
    expect(windowsAt(midnight - 1).day).toBe(Date.UTC(2030, 0, 15));
  });
});

describe('rateLimitHeaders', () => {
  it('gives exactly the four integer headers on a pass', () => {
    const passed: RateLimitResult = {
      passed: true,
      minute: { limit: 300, remaining: 299, reset: 0 },
      day: { limit: 15000, remaining: 14999, reset: 0 },
    };
    expect(rateLimitHeaders(passed)).toStrictEqual({
      'X-RateLimit-Limit': '300',
      'X-RateLimit-Remaining': '299',
      'X-RateLimit-Daily-Limit': '15000',
      'X-RateLimit-Daily-Remaining': '14999',
    });
  });
  it('adds Retry-After on a refusal', () => {
    const refused: RateLimitResult = {
      passed: false,
      minute: { limit: 1000, remaining: 0, reset: 0 },
      day: { limit: 100000, remaining: 99000, reset: 0 },
      deniedBy: 'minute',
      retryAfterSeconds: 40,
    };
    expect(rateLimitHeaders(refused)).toStrictEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Daily-Limit': '100000',
      'X-RateLimit-Daily-Remaining': '99000',
      'Retry-After': '40',
    });
  });
});
