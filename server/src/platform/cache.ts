// A bounded read-through cache for chain reads: entries live at most `ttlMs` (the staleness bound), concurrent
// misses for one key share a single load, and failed loads are never cached (a transient RPC error must not stick).
import { LRUCache } from 'lru-cache';

export interface ReadCache<V> {
  get(key: string, load: () => Promise<V>): Promise<V>;
  /**
   * When (`performance.now()`) the entry under `key` expires: now or earlier when there is none, Infinity when this
   * cache keeps nothing.
   */
  expiresAt(key: string): number;
  clear(): void;
}

export function createReadCache<V extends {}>(opts: { ttlMs: number; max?: number }): ReadCache<V> {
  if (opts.ttlMs <= 0) {
    return { get: (_key, load) => load(), expiresAt: () => Infinity, clear() {} };
  }
  const cache = new LRUCache<string, V, () => Promise<V>>({
    max: opts.max ?? 10_000,
    ttl: opts.ttlMs,
    // Expiries are handed on (expiresAt): read the clock every time, so none is ever stated later than it is.
    ttlResolution: 0,
    // The loader travels as the fetch context, so one cache serves any key with its own loader.
    fetchMethod: (_key, _stale, { context }) => context(),
  });
  return {
    async get(key, load) {
      return (await cache.fetch(key, { context: load })) as V;
    },
    expiresAt: (key) => performance.now() + cache.getRemainingTTL(key),
    clear: () => cache.clear(),
  };
}
