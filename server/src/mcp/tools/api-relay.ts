// The relay behind resolve_name and reverse_lookup: one GET to the Sigil service's public route, whose status and
// body come back exactly as the service sent them (the service owns the answer; the tool adds nothing to it).
import { z } from 'zod';
import type { ApiResponse, ToolDeps, ToolOutcome } from '../tool';

/** Public answers are small JSON objects; anything larger is not a public answer. */
const MAX_RELAY_BYTES = 64 * 1024;
const RELAY_TIMEOUT_MS = 10_000;

export const relayOutputSchema = {
  status: z.number().int().describe('The HTTP status the service answered with (200, 400, 404, 409, 502 …).'),
  body: z.string().describe('The response body exactly as the service sent it (UTF-8 text).'),
  json: z
    .unknown()
    .describe('The same body parsed as JSON, for convenience; null when the body is not JSON.')
    .optional(),
};

type RelayOutput = { status: number; body: string; json?: unknown };

/**
 * Relays in flight, per tool deps (one per process; tests make their own), by URL. A call that arrives while the
 * same GET is on its way to the service shares its answer instead of sending a second one: it is the answer the
 * service gave during the call, and the service's own answer cache would have given both the same bytes anyway.
 * Under an agent fleet asking for the same names this keeps the relay from costing the service twice.
 */
const IN_FLIGHT = new WeakMap<ToolDeps, Map<string, Promise<ToolOutcome<RelayOutput>>>>();

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
  let inFlight = IN_FLIGHT.get(deps);
  if (!inFlight) IN_FLIGHT.set(deps, (inFlight = new Map()));
  const shared = inFlight.get(url);
  if (shared) return shared;
  const relayed = sendRelay(deps, url).finally(() => inFlight.delete(url));
  inFlight.set(url, relayed);
  return relayed;
}

async function sendRelay(deps: ToolDeps, url: string): Promise<ToolOutcome<RelayOutput>> {
  let res: ApiResponse;
  try {
    res = await deps.fetch(url, { timeoutMs: RELAY_TIMEOUT_MS, redirect: 'manual' });
  } catch (err) {
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    return {
      ok: false,
      code: 'API_UNREACHABLE',
      message: timedOut
        ? `the Sigil service did not answer within ${RELAY_TIMEOUT_MS} ms`
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
  return { ok: true, value: { status: res.status, body, json } };
}
