// The fetch the tools use to reach the Sigil service (SIGIL_API_URL, SIGIL_QUERY_API_URL): undici's `request` on a
// keep-alive agent, answering with the part of a Response the tools read (ApiResponse). Node's global fetch builds web
// streams, a Request and a Response for every call, which made a relayed resolve cost several times the service's
// own answer (docs/benchmarks.md); the tools only ever read a small body whole. Redirects are never followed, as with
// `redirect: 'manual'` (and `redirect: 'error'` throws on one, as fetch does): the service answers, it does not send
// the caller elsewhere. Every call has a deadline (`timeoutMs`, else the default), kept on a deadline wheel rather than
// an AbortSignal.timeout per call, whose timer and event-target bookkeeping showed in the relay's profile.
import { Agent } from 'undici';
import { DeadlineWheel } from '../platform/outbound/deadlines';
import type { ApiFetch, ApiRequestInit, ApiResponse } from './tool';

/** Keep-alive connections per origin: enough for the MCP server's concurrency without queueing relays. */
const CONNECTIONS_PER_ORIGIN = 64;
/** The deadline of a call that names none: the service answers in milliseconds or is in trouble. */
const DEFAULT_TIMEOUT_MS = 10_000;

type HeaderRecord = Record<string, string | string[] | undefined>;

function answerOf(status: number, headers: HeaderRecord, body: Buffer): ApiResponse {
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get: (name: string) => {
        const value = headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    text: async () => body.toString('utf8'),
    json: async () => JSON.parse(body.toString('utf8')) as unknown,
    arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer,
  };
}

function headerRecord(headers: ApiRequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => (record[name] = value));
  return record;
}

export function createApiFetch(opts: { timeoutMs?: number } = {}): ApiFetch {
  const agent = new Agent({ connections: CONNECTIONS_PER_ORIGIN });
  const deadlines = new DeadlineWheel();
  return async (input, init) => {
    const url = new URL(input);
    if (init?.body != null && typeof init.body !== 'string') throw new TypeError('api fetch sends string bodies only');
    const timeoutMs = init?.timeoutMs ?? opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = deadlines.start(timeoutMs);
    try {
      const answer = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: (init?.method ?? 'GET') as 'GET',
        headers: init?.headers === undefined ? undefined : headerRecord(init.headers),
        body: init?.body ?? undefined,
        signal: deadline,
      });
      const body = Buffer.from(await answer.body.arrayBuffer());
      if (init?.redirect === 'error' && answer.statusCode >= 300 && answer.statusCode < 400) {
        throw new TypeError(`redirect refused (${answer.statusCode})`);
      }
      return answerOf(answer.statusCode, answer.headers, body);
    } catch (err) {
      // Whatever undici reports when our deadline aborts it, the call timed out: named as fetch names it.
      if (deadline.aborted) throw new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError');
      throw err;
    } finally {
      deadline.clear();
    }
  };
}
