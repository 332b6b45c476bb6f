// The fetch the tools use to reach the Sigil service (SIGIL_API_URL, SIGIL_QUERY_API_URL): undici's `request` on a
// keep-alive agent, answering with the part of a Response the tools read (ApiResponse). Node's global fetch builds web
// streams, a Request and a Response for every call, which made a relayed resolve cost several times the service's
// own answer (docs/benchmarks.md); the tools only ever read a small body whole. Redirects are never followed, as with
// `redirect: 'manual'` (and `redirect: 'error'` throws on one, as fetch does): the service answers, it does not send
// the caller elsewhere.
import { Agent } from 'undici';
import type { ApiFetch, ApiResponse } from './tool';

/** Keep-alive connections per origin: enough for the MCP server's concurrency without queueing relays. */
const CONNECTIONS_PER_ORIGIN = 64;

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

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => (record[name] = value));
  return record;
}

export function createApiFetch(): ApiFetch {
  const agent = new Agent({ connections: CONNECTIONS_PER_ORIGIN });
  return async (input, init) => {
    const url = new URL(input);
    if (init?.body != null && typeof init.body !== 'string') throw new TypeError('api fetch sends string bodies only');
    const answer = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: (init?.method ?? 'GET') as 'GET',
      headers: init?.headers === undefined ? undefined : headerRecord(new Headers(init.headers)),
      body: init?.body ?? undefined,
      signal: init?.signal ?? undefined,
    });
    const body = Buffer.from(await answer.body.arrayBuffer());
    if (init?.redirect === 'error' && answer.statusCode >= 300 && answer.statusCode < 400) {
      throw new TypeError(`redirect refused (${answer.statusCode})`);
    }
    return answerOf(answer.statusCode, answer.headers, body);
  };
}
