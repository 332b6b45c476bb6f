// The relay behind resolve_name and reverse_lookup: one GET to the Sigil service's public route, whose status and
// body come back exactly as the service sent them (the service owns the answer; the tool adds nothing to it).
//
// Two ways a call is answered without a GET of its own, both with bytes the service sent for that URL and never
// older than the service's own staleness bound: it joins a GET already in flight for the same URL, or it reuses an
// answer for as long as the service's Cache-Control allows a shared cache to (the service states the whole seconds
// it will still replay that answer itself, docs/mcp.md). The caching rules are RFC 9111's, applied by http-cache-semantics as a
// shared cache, with nothing stale ever served: no heuristic freshness, no stale-while-revalidate or stale-if-error,
// and the freshness counted from when the request was sent.
import CachePolicy from 'http-cache-semantics';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { UpstreamTooLarge, type UpstreamResponse } from '../../platform/outbound/upstream';
import type { ToolDeps, ToolOutcome } from '../tool';

/** Public answers are small JSON objects; anything larger is not a public answer. */
const MAX_RELAY_BYTES = 64 * 1024;
const RELAY_TIMEOUT_MS = 10_000;
/** Reusable answers kept at most (least recently used first out), and their bodies' total size at most. */
const MAX_REUSABLE = 5_000;
const MAX_REUSABLE_BYTES = 8 * 1024 * 1024;
/** The response headers RFC 9111 freshness and storability depend on. */
const CACHING_HEADERS = ['cache-control', 'pragma', 'expires', 'date', 'age', 'vary', 'set-cookie'] as const;

export const relayOutputSchema = {
  status: z.number().int().describe('The HTTP status the service answered with (200, 400, 404, 409, 502 …).'),
  body: z.string().describe('The response body exactly as the service sent it (UTF-8 text).'),
  json: z
    .unknown()
    .describe('The same body parsed as JSON, for convenience; null when the body is not JSON.')
    .optional(),
};

type RelayOutput = { status: number; body: string; json?: unknown };

interface RelayState {
  /** Relays in flight by URL: a call that arrives meanwhile shares the answer instead of sending a second GET. */
  inFlight: Map<string, Promise<ToolOutcome<RelayOutput>>>;
  /** Answers the service allowed to be reused, by URL, each kept only for its remaining freshness. */
  reusable: LRUCache<string, RelayOutput>;
}

/** Per tool deps (one per process; tests make their own). */
const STATES = new WeakMap<ToolDeps, RelayState>();

function stateOf(deps: ToolDeps): RelayState {
  let state = STATES.get(deps);
  if (!state) {
    state = {
      inFlight: new Map(),
      reusable: new LRUCache({
        max: MAX_REUSABLE,
        maxSize: MAX_REUSABLE_BYTES,
        sizeCalculation: (value) => Math.max(1, value.body.length),
      }),
    };
    STATES.set(deps, state);
  }
  return state;
}

export async function relayGet(
  deps: ToolDeps,
  route: 'resolve' | 'reverse',
  segment: string,
): Promise<ToolOutcome<RelayOutput>> {
  // A path segment of only dots is removed by URL normalization before it is sent: it cannot be relayed as typed.
  if (/^\.{1,2}$/.test(segment)) {
    return { ok: false, code: 'BAD_REQUEST', message: `"${segment}" cannot be sent as a path segment` };
  }
  const url = `${deps.apiUrl}/${route}/${encodeURIComponent(segment)}`;
  const state = stateOf(deps);
  const reused = state.reusable.get(url);
  if (reused) return { ok: true, value: reused };
  const shared = state.inFlight.get(url);
  if (shared) return shared;
  const relayed = sendRelay(deps, url, state).finally(() => state.inFlight.delete(url));
  state.inFlight.set(url, relayed);
  return relayed;
}

/**
 * How many milliseconds a shared cache may still reuse this answer, counted from `sentAt` (when the GET left):
 * the answer may have been produced any time after that, never before.
 */
export function freshForMs(url: string, res: UpstreamResponse, sentAt: number): number {
  const headers: Record<string, string> = {};
  for (const name of CACHING_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const policy = new CachePolicy(
    { url, method: 'GET', headers: {} },
    { status: res.status, headers },
    { shared: true, cacheHeuristic: 0, immutableMinTimeToLive: 0 },
  );
  if (!policy.storable()) return 0;
  return (policy.maxAge() - policy.age()) * 1000 - (performance.now() - sentAt);
}

async function sendRelay(deps: ToolDeps, url: string, state: RelayState): Promise<ToolOutcome<RelayOutput>> {
  const sentAt = performance.now();
  let res: UpstreamResponse;
  try {
    res = await deps.fetch(url, { timeoutMs: RELAY_TIMEOUT_MS, redirect: 'manual' });
  } catch (err) {
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    return {
      ok: false,
      code: 'API_UNREACHABLE',
      message: timedOut
        ? `the Sigil service did not answer within ${RELAY_TIMEOUT_MS} ms`
        : err instanceof UpstreamTooLarge
          ? `the Sigil service answered more than ${err.maxBytes} bytes`
          : `the Sigil service is unreachable at ${deps.apiUrl}`,
    };
  }
  const body = await res.text();
  const size = Buffer.byteLength(body);
  if (size > MAX_RELAY_BYTES) {
    return { ok: false, code: 'API_UNREACHABLE', message: `the Sigil service answered ${size} bytes` };
  }
  let json: unknown = null;
  try {
    json = JSON.parse(body);
  } catch {
    json = null;
  }
  const value = { status: res.status, body, json };
  const freshMs = Math.floor(freshForMs(url, res, sentAt));
  if (freshMs > 0) state.reusable.set(url, value, { ttl: freshMs });
  return { ok: true, value };
}
