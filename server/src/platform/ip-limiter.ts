// A small per-address limiter for keyless traffic that makes rows or reads the chain (x402 challenges and redemptions,
// the OpenID Connect sign-in page's steps): a fixed one-minute window per client IP, in memory. Keyed traffic is
// limited per key in the shared store (features/ratelimit); keyless traffic has no key to count against, and each
// replica guarding itself is enough to stop one address from flooding the stores and the RPC with unauthenticated work.

export interface IpLimitResult {
  passed: boolean;
  /** Whole seconds until the window resets (≥ 1); the 429's Retry-After. */
  retryAfterSeconds: number;
}

const WINDOW_MS = 60_000;
/** Above this many tracked addresses, windows that ended are swept before adding one more. */
const SWEEP_AT = 10_000;

export class IpLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  limit(ip: string, now: number = Date.now()): IpLimitResult {
    const start = now - (now % WINDOW_MS);
    const retryAfterSeconds = Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
    let window = this.windows.get(ip);
    if (!window || window.start !== start) {
      if (!window && this.windows.size >= SWEEP_AT) this.sweep(start);
      window = { start, count: 0 };
      this.windows.set(ip, window);
    }
    if (window.count >= this.perMinute) return { passed: false, retryAfterSeconds };
    window.count++;
    return { passed: true, retryAfterSeconds };
  }

  private sweep(currentStart: number): void {
    for (const [ip, w] of this.windows) if (w.start !== currentStart) this.windows.delete(ip);
  }
}
