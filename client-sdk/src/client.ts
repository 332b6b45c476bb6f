// The typed REST client: every operation of the service's OpenAPI document, by method and path, typed by the
// generated `paths` (openapi-typescript, generated/openapi.ts) and sent by openapi-fetch, which builds URLs, query
// strings and JSON bodies and nothing else. This wrapper adds what openapi-fetch leaves to the caller:
//   - a result union instead of `{data, error}`: `{ok: true, status, data}` or `{ok: false, status, code, message}`
//     where `code` is the operation's own error-code union (read from the document's per-status enums, so a code
//     the operation cannot answer does not type-check); no method throws on an HTTP, network or timeout failure;
//   - a deadline per attempt, and retries for the spec's retryable conditions only (retryable.ts);
//   - the credentials: X-API-Key (server-side only), and a Connect session as `Authorization: Bearer`.
import createFetchClient, { type MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './generated/openapi';
import { retryable } from './retryable';

export { retryable };

export type { paths, components, operations } from './generated/openapi';

type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Paths that have an operation for `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: [paths[P][M & keyof paths[P]]] extends [never | undefined] ? never : P;
}[keyof paths];

type Operation<P extends keyof paths, M extends HttpMethod> = paths[P][M & keyof paths[P]];
type Responses<O> = O extends { responses: infer R } ? R : never;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type SuccessStatus = 200 | 201 | 204;

/** The success body of an operation (undefined for a 204). */
export type DataOf<O> = {
  [S in keyof Responses<O>]: S extends 200 | 201 ? JsonOf<Responses<O>[S]> : S extends 204 ? undefined : never;
}[keyof Responses<O>];

/** `/v1` bodies carry `code` (the 402 challenge too); public bodies carry the spec's `error` text. */
type CodeIn<B> = 'code' extends keyof B
  ? Exclude<B['code' & keyof B], undefined>
  : 'error' extends keyof B
    ? Exclude<B['error' & keyof B], undefined>
    : never;

/** The error codes an operation may answer, from its documented responses. */
export type ErrorCodeOf<O> = {
  [S in keyof Responses<O>]: S extends SuccessStatus ? never : CodeIn<JsonOf<Responses<O>[S]>>;
}[keyof Responses<O>] &
  string;

/**
 * Codes of the client itself: no answer (NETWORK_ERROR, TIMEOUT), an answer that is not the documented JSON
 * (UNEXPECTED_RESPONSE), a plain x402 challenge (PAYMENT_REQUIRED: a 402 naming no rejection code; `body` is
 * the challenge, which `createX402Fetch` pays), and a request not sent because a path parameter cannot be put in a
 * URL path (INVALID_PATH_PARAMETER: `''`, `.` or `..`).
 */
export type TransportErrorCode =
  'NETWORK_ERROR' | 'TIMEOUT' | 'UNEXPECTED_RESPONSE' | 'PAYMENT_REQUIRED' | 'INVALID_PATH_PARAMETER';

export interface SigilSuccess<T> {
  ok: true;
  status: number;
  data: T;
  headers: Headers;
}

export interface SigilFailure<Code extends string = string> {
  ok: false;
  /** The HTTP status; 0 when no response arrived (NETWORK_ERROR, TIMEOUT) or nothing was sent. */
  status: number;
  /** The operation's code (`/v1`), the public route's `error` text, or a TransportErrorCode. */
  code: Code | TransportErrorCode;
  message: string;
  /** The parsed error body as sent (e.g. the x402 challenge of a 402), when there was one. */
  body?: unknown;
  headers?: Headers;
}

export type SigilResult<T, Code extends string = string> = SigilSuccess<T> | SigilFailure<Code>;

/** What a call to `path` with `method` resolves to. */
export type ResultOf<P extends keyof paths, M extends HttpMethod> = SigilResult<
  DataOf<Operation<P, M>>,
  ErrorCodeOf<Operation<P, M>>
>;

export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 turns retries off). */
  attempts?: number;
  /** Wait before the first retry in ms, doubled for each next one, with full jitter (default 250). */
  baseDelayMs?: number;
}

export interface SigilClientOptions {
  /** The service's base URL, e.g. `https://api.sigil.example` or `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** Your API key, sent as X-API-Key. Server-side only: never ship a key to a browser (docs/connect.md). */
  apiKey?: string;
  /** A Connect session token, sent as `Authorization: Bearer` (GET /v1/auth/session; the portal's key routes). */
  session?: string;
  /** Replaces global fetch: a test double, or the x402 payer (`createX402Fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /** Deadline of one attempt in ms (default 10,000). */
  timeoutMs?: number;
  /** Retries of the retryable conditions only (default 3 attempts); `false` = one attempt. */
  retry?: RetryOptions | false;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

const DEFAULT_TIMEOUT_MS = 10_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One failure from a response that is not a success: the documented body, or UNEXPECTED_RESPONSE. */
function failureOf(response: Response, body: unknown): SigilFailure {
  const object = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const code = typeof object.code === 'string' ? object.code : typeof object.error === 'string' ? object.error : null;
  if (code === null && response.status === 402 && typeof object.x402Version === 'number') {
    const message = 'payment required: the body is an x402 challenge (pay it, e.g. with createX402Fetch)';
    return { ok: false, status: 402, code: 'PAYMENT_REQUIRED', message, body, headers: response.headers };
  }
  if (code === null) {
    return {
      ok: false,
      status: response.status,
      code: 'UNEXPECTED_RESPONSE',
      message: `HTTP ${response.status} without a documented error body`,
      body,
      headers: response.headers,
    };
  }
  const message = typeof object.message === 'string' ? object.message : code;
  return { ok: false, status: response.status, code, message, body, headers: response.headers };
}

/**
 * Path parameter values a URL cannot carry as a segment: the URL standard removes `.` and resolves `..` against the
 * segment before it (their percent-encoded forms `%2E` too), and an empty one leaves the route, so the request would
 * reach another resource (`/resolve/..` is the service index). No encoding survives that, so they are not sent.
 */
const UNSENDABLE_SEGMENTS = new Set(['', '.', '..']);

/** The failure for a path parameter that cannot be sent, or null when every one can. */
function unsendablePathParameter(init: unknown): SigilFailure | null {
  const path = (init as { params?: { path?: Record<string, unknown> } } | undefined)?.params?.path ?? {};
  const found = Object.entries(path).find(([, value]) => UNSENDABLE_SEGMENTS.has(String(value)));
  if (!found) return null;
  const message = `path parameter ${found[0]} is ${JSON.stringify(String(found[1]))}: a URL path cannot carry it (it would address another resource); not sent`;
  return { ok: false, status: 0, code: 'INVALID_PATH_PARAMETER', message };
}

type InitOf<P extends keyof paths, M extends HttpMethod> = MaybeOptionalInit<paths[P], M & keyof paths[P]>;
/** Optional when the operation needs no parameters and no body. */
type InitArgs<Init> = undefined extends Init ? [init?: Init & { headers?: Record<string, string> }] : [init: Init];

export interface SigilClient {
  GET<P extends PathsWith<'get'>>(path: P, ...init: InitArgs<InitOf<P, 'get'>>): Promise<ResultOf<P, 'get'>>;
  POST<P extends PathsWith<'post'>>(path: P, ...init: InitArgs<InitOf<P, 'post'>>): Promise<ResultOf<P, 'post'>>;
  PUT<P extends PathsWith<'put'>>(path: P, ...init: InitArgs<InitOf<P, 'put'>>): Promise<ResultOf<P, 'put'>>;
  PATCH<P extends PathsWith<'patch'>>(path: P, ...init: InitArgs<InitOf<P, 'patch'>>): Promise<ResultOf<P, 'patch'>>;
  DELETE<P extends PathsWith<'delete'>>(
    path: P,
    ...init: InitArgs<InitOf<P, 'delete'>>
  ): Promise<ResultOf<P, 'delete'>>;
  /** The same client with another (or no) Connect session. */
  withSession(session: string | undefined): SigilClient;
}

/**
 * A client for every operation of the service: `client.GET('/resolve/{name}', {params: {path: {name}}})`; one
 * method per HTTP verb the document uses (PUT replaces a Gate policy, PATCH renames a key).
 */
export function createSigilClient(options: SigilClientOptions): SigilClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const attempts = options.retry === false ? 1 : Math.max(1, options.retry?.attempts ?? 3);
  const baseDelayMs = options.retry === false ? 0 : (options.retry?.baseDelayMs ?? 250);
  const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['X-API-Key'] = options.apiKey;
  if (options.session) headers.Authorization = `Bearer ${options.session}`;
  const transport = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    // The deadline of one attempt: openapi-fetch builds a fresh Request per call, so each attempt gets its own.
    fetch: (request: Request) =>
      baseFetch(new Request(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) })),
  });

  async function attempt(method: string, path: string, init: unknown): Promise<SigilResult<unknown>> {
    type Answer = { data?: unknown; error?: unknown; response: Response };
    const call = (transport as unknown as Record<string, (p: string, i: unknown) => Promise<Answer>>)[method]!;
    let answer: Answer;
    try {
      answer = await call(path, init);
    } catch (error) {
      const name = (error as { name?: string })?.name;
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      if (!timedOut && error instanceof SyntaxError) {
        return { ok: false, status: 0, code: 'UNEXPECTED_RESPONSE', message: 'a success without a JSON body' };
      }
      return {
        ok: false,
        status: 0,
        code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
        message: timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${(error as Error)?.message}`,
      };
    }
    const { response } = answer;
    if (response.ok) return { ok: true, status: response.status, data: answer.data, headers: response.headers };
    return failureOf(response, answer.error);
  }

  // Each attempt sends the identical request again. With the x402 payer as `fetch` that pays nothing twice: the
  // payer keeps a payment the service did not consume and redeems it on the repeat (x402.ts, createX402Fetch).
  async function request(method: string, path: string, init: unknown): Promise<SigilResult<unknown>> {
    const unsendable = unsendablePathParameter(init);
    if (unsendable) return unsendable;
    for (let n = 1; ; n++) {
      const result = await attempt(method, path, init);
      if (result.ok || n >= attempts || !retryable(result, method)) return result;
      await sleep(Math.random() * baseDelayMs * 2 ** (n - 1));
    }
  }

  return {
    GET: (path, ...init) => request('GET', path, init[0]) as never,
    POST: (path, ...init) => request('POST', path, init[0]) as never,
    PUT: (path, ...init) => request('PUT', path, init[0]) as never,
    PATCH: (path, ...init) => request('PATCH', path, init[0]) as never,
    DELETE: (path, ...init) => request('DELETE', path, init[0]) as never,
    withSession: (session) => createSigilClient({ ...options, session }),
  };
}
