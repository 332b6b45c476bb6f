// The client for the operator's own configured upstreams: the Sigil service the MCP tools call (SIGIL_API_URL,
// SIGIL_QUERY_API_URL) and the x402 facilitator (SIGIL_X402_FACILITATOR_URL). Their addresses come from
// configuration, not from users, so the destination policy of the hardened client (client.ts) does not apply: a
// loopback service is normal here. What does apply: a deadline on every call, a cap on every answer, and no
// redirect followed (undici's request API does not follow them; a 3xx is an answer, and `redirect: 'error'` throws
// on one as fetch does).
//
// undici's `request` on a keep-alive agent, answering with the part of a fetch Response callers read
// (UpstreamResponse), so that global fetch fits the same type in tests. Node's global fetch builds web streams, a
// Request and a Response for every call, which made a relayed resolve cost several times the service's own answer
// (docs/benchmarks.md); deadlines sit on a deadline wheel rather than an AbortSignal.timeout per call, whose timer
// and event-target bookkeeping showed in the relay's profile.
import { Agent } from 'undici';
import { flatHeaders, readBodyCapped } from './capped-body';
import { DeadlineWheel } from './deadlines';

/** What callers read of an answer: a fetch `Response` has it all. */
export type UpstreamResponse = Pick<Response, 'status' | 'ok' | 'text' | 'json' | 'arrayBuffer'> & {
  headers: Pick<Headers, 'get'>;
};

/** fetch's options, less the signal, plus the call's deadline (global fetch ignores `timeoutMs`). */
export type UpstreamRequestInit = Pick<RequestInit, 'method' | 'headers' | 'body' | 'redirect'> & {
  timeoutMs?: number;
};

export type UpstreamFetch = (url: string, init?: UpstreamRequestInit) => Promise<UpstreamResponse>;

/** An answer over the cap: refused whole, never truncated. */
export class UpstreamTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
    this.name = 'UpstreamTooLarge';
  }
}

/** Keep-alive connections per origin: enough for a busy MCP server without queueing relays. */
const CONNECTIONS_PER_ORIGIN = 64;
/** The deadline of a call that names none: these upstreams answer in milliseconds or are in trouble. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** The answers are small JSON documents; 1 MiB is far past any of them. */
const DEFAULT_MAX_BYTES = 1024 * 1024;

function answerOf(status: number, headers: Record<string, string>, body: Buffer): UpstreamResponse {
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
    text: async () => body.toString('utf8'),
    json: async () => JSON.parse(body.toString('utf8')) as unknown,
    arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer,
  };
}

function headerRecord(headers: UpstreamRequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => (record[name] = value));
  return record;
}

export function createUpstreamFetch(opts: { timeoutMs?: number; maxBytes?: number } = {}): UpstreamFetch {
  const agent = new Agent({ connections: CONNECTIONS_PER_ORIGIN });
  const deadlines = new DeadlineWheel();
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  return async (input, init) => {
    const url = new URL(input);
    // As fetch does: credentials in a URL are refused, never silently dropped.
    if (url.username || url.password) throw new TypeError('upstream URLs carry no credentials');
    if (init?.body != null && typeof init.body !== 'string') throw new TypeError('upstream calls send string bodies');
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
      const body = await readBodyCapped(answer, maxBytes);
      if (!body) throw new UpstreamTooLarge(maxBytes);
      if (init?.redirect === 'error' && answer.statusCode >= 300 && answer.statusCode < 400) {
        throw new TypeError(`redirect refused (${answer.statusCode})`);
      }
      return answerOf(answer.statusCode, flatHeaders(answer.headers), body);
    } catch (err) {
      // Whatever undici reports when our deadline aborts it, the call timed out: named as fetch names it.
      if (deadline.aborted) throw new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError');
      throw err;
    } finally {
      deadline.clear();
    }
  };
}
