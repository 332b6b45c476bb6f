// The relay behind resolve_name and reverse_lookup: one GET to the Sigil service's public route, whose status and
// body come back exactly as the service sent them (the service owns the answer; the tool adds nothing to it).
import { z } from 'zod';
import type { ToolDeps, ToolOutcome } from '../tool';

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
  let res: Response;
  try {
    res = await deps.fetch(url, { signal: AbortSignal.timeout(RELAY_TIMEOUT_MS), redirect: 'manual' });
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
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length > MAX_RELAY_BYTES) {
    return { ok: false, code: 'API_UNREACHABLE', message: `the Sigil service answered ${bytes.length} bytes` };
  }
  const body = new TextDecoder().decode(bytes);
  let json: unknown = null;
  try {
    json = JSON.parse(body);
  } catch {
    json = null;
  }
  return { ok: true, value: { status: res.status, body, json } };
}
