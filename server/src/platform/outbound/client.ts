// The hardened outbound HTTP client shared by webhook deliveries and agent manifest fetches (docs/outbound.md).
// - Every URL passes the destination policy; IP literals are judged before dispatch.
// - Names are resolved inside the connection's own lookup, every answer is vetted, and the socket connects to
//   exactly those vetted answers: there is no second lookup a rebinding name could win (dispatcher.ts).
// - Redirects are never followed (undici's request API does not follow them; a 3xx is a result).
// - post() never reads a response body; getJson() caps it while streaming.
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { checkUrl, DestinationError, systemResolver, type PolicyOptions, type Resolver } from './destination-policy';
import { DeadlineWheel, type Deadline } from './deadlines';
import { flatHeaders, readBodyCapped } from './capped-body';
import { createVettedAgent, type VettedDispatcher } from './dispatcher';

export type OutboundErrorKind =
  | 'timeout'
  | 'connect_failed'
  | 'connection_closed'
  | 'dns_failed'
  | 'blocked_destination'
  | 'tls_failed'
  // getJson only
  | 'http_status'
  | 'not_json'
  | 'body_too_large'
  | 'invalid_json';

/** A failed outbound request, by fixed class (the webhook delivery log stores `kind`). */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    /** Time spent before failing, ms. */
    readonly ms: number,
    /** getJson `http_status`: the status received. */
    readonly status?: number,
    /** The underlying error, for logs. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'OutboundError';
  }
}

export interface OutboundClientOptions {
  /** Name resolution; defaults to the system resolver. Tests inject answers here. */
  resolver?: Resolver;
  /** Local development and tests only: allow loopback destinations on any port. Refused when NODE_ENV=production. */
  allowLoopback?: boolean;
  /** Whole-request deadline: DNS + connect + TLS + response headers (and, for getJson, the body). Default 10 s. */
  timeoutMs?: number;
  /** Default getJson body cap in bytes. Default 64 KiB. */
  maxBodyBytes?: number;
  /** Extra trusted CA certificates (PEM) — local receivers and demo hosts — trusted besides Node's default store. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** User-Agent header sent with every request. */
  userAgent?: string;
}

export interface PostResult {
  status: number;
  /** Milliseconds from the start of the attempt to the response headers. */
  ms: number;
}

export interface JsonResult {
  status: number;
  json: unknown;
  ms: number;
}

/** What probe() saw: any status (3xx not followed), the headers, and at most `maxBytes` of body. */
export interface ProbeResult {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  ms: number;
}

export interface OutboundClient {
  /**
   * POSTs `body`; resolves with the HTTP status of any answer (3xx included, not followed); rejects with OutboundError.
   * `signal`: the caller's own deadline, which ends the request as the client's does (a `timeout`), whichever is first.
   */
  post(
    url: string,
    body: string | Uint8Array,
    headers: Record<string, string>,
    options?: { signal?: AbortSignal },
  ): Promise<PostResult>;
  /** GETs a JSON document: 2xx only, JSON content type only, at most `maxBytes`; rejects with OutboundError. */
  getJson(url: string, options?: { maxBytes?: number; timeoutMs?: number }): Promise<JsonResult>;
  /**
   * GETs `url` and reports whatever answered, whatever the status (an x402 probe expects 402; a 3xx is a result,
   * not followed); a body over `maxBytes` rejects with `body_too_large`. Rejects with OutboundError otherwise.
   */
  probe(url: string, options?: { maxBytes?: number; timeoutMs?: number }): Promise<ProbeResult>;
  close(): Promise<void>;
}

const TLS_ERROR_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
]);

/** Maps whatever node/undici threw to a fixed class. */
function classify(err: unknown): { kind: OutboundErrorKind; message: string } {
  for (
    let e = err as { code?: string; message?: string; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e instanceof OutboundError) return { kind: e.kind, message: e.message };
    if (e instanceof DestinationError) return { kind: e.kind, message: e.message };
    const code = e.code ?? '';
    if (
      code === 'UND_ERR_CONNECT_TIMEOUT' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'ETIMEDOUT'
    ) {
      return { kind: 'timeout', message: 'timed out' };
    }
    if (code === 'ENOTFOUND' || code.startsWith('EAI_')) return { kind: 'dns_failed', message: 'host did not resolve' };
    if (TLS_ERROR_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) {
      return { kind: 'tls_failed', message: `TLS failed (${code})` };
    }
    if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL') {
      return { kind: 'connect_failed', message: `connection failed (${code})` };
    }
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED') {
      return { kind: 'connection_closed', message: 'the receiver closed the connection before answering' };
    }
  }
  return { kind: 'connect_failed', message: `request failed (${(err as Error)?.message ?? String(err)})` };
}

type Target = { ok: true; origin: string; path: string } | { ok: false; message: string };
const TARGET_CACHE_SIZE = 512;

const JSON_CONTENT_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;|$)/i;

/** What the request functions of one client share. */
interface ClientParts {
  agent: VettedDispatcher;
  /** One sweep for every request deadline of this client (deadlines.ts): no timer and AbortSignal per attempt. */
  deadlines: DeadlineWheel;
  /** The URL's origin and path, or OutboundError blocked_destination (the destination policy, cached per URL). */
  target: (url: string, started: number) => { origin: string; path: string };
  timeoutMs: number;
  defaultMaxBytes: number;
  userAgent: string;
}

export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const allowLoopback = options.allowLoopback === true;
  if (allowLoopback && process.env.NODE_ENV === 'production') {
    throw new Error(
      'outbound: allowLoopback is a local-development setting and cannot be enabled when NODE_ENV=production',
    );
  }
  const policy: PolicyOptions = { allowLoopback };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const parts: ClientParts = {
    agent: createVettedAgent({ resolver: options.resolver ?? systemResolver, policy, timeoutMs, ca: options.ca }),
    deadlines: new DeadlineWheel(),
    target: targetCache(policy),
    timeoutMs,
    defaultMaxBytes: options.maxBodyBytes ?? 65_536,
    userAgent: options.userAgent ?? 'sigil-outbound/1',
  };
  return {
    post: (url, body, headers, options) => post(parts, url, body, headers, options),
    getJson: (url, opts) => getJson(parts, url, opts),
    probe: (url, opts) => probe(parts, url, opts),
    close: async () => {
      await parts.agent.close();
      parts.deadlines.close();
    },
  };
}

/**
 * checkUrl is a pure function of the URL text and the client's policy, and a worker posts to the same few webhook
 * URLs over and over: its verdict (parse + literal-IP rules) is kept per URL string, least recently used dropped
 * first. Name resolution and its vetting are NOT cached here: they run per connection, in the dispatcher's lookup.
 */
function targetCache(policy: PolicyOptions): ClientParts['target'] {
  const targets = new Map<string, Target>();
  return (url, started) => {
    let found = targets.get(url);
    if (found) {
      targets.delete(url); // re-insert: Map order is the recency order
    } else {
      const check = checkUrl(url, policy);
      found = check.ok
        ? { ok: true, origin: check.url.origin, path: check.url.pathname + check.url.search }
        : { ok: false, message: check.message };
      if (targets.size >= TARGET_CACHE_SIZE) targets.delete(targets.keys().next().value!);
    }
    targets.set(url, found);
    if (!found.ok) throw new OutboundError('blocked_destination', found.message, performance.now() - started);
    return found;
  };
}

async function post(
  parts: ClientParts,
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  options: { signal?: AbortSignal } = {},
): Promise<PostResult> {
  const started = performance.now();
  const dest = parts.target(url, started);
  const signal = parts.deadlines.start(parts.timeoutMs);
  const unhook = abortWith(signal, options.signal);
  try {
    const res = await parts.agent.request({
      origin: dest.origin,
      path: dest.path,
      method: 'POST',
      headers: { 'user-agent': parts.userAgent, ...headers },
      body,
      signal,
    });
    const ms = Math.round(performance.now() - started);
    signal.clear();
    await discardBody(res.body, parts.deadlines);
    return { status: res.statusCode, ms };
  } catch (err) {
    throw toOutboundError(err, signal, started);
  } finally {
    unhook();
    signal.clear();
  }
}

/** Ends `deadline` when the caller's `signal` aborts (at once if it already has); returns the unhooking. */
function abortWith(deadline: Deadline, signal: AbortSignal | undefined): () => void {
  if (!signal) return () => {};
  const abort = () => deadline.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return () => signal.removeEventListener('abort', abort);
}

/**
 * One GET under the client's rules (vetted target, deadline, JSON accept header); `read` turns the response into the
 * result within the same deadline. Transport failures become OutboundErrors.
 */
async function get<T>(
  parts: ClientParts,
  url: string,
  opts: { maxBytes?: number; timeoutMs?: number },
  read: (res: Dispatcher.ResponseData, maxBytes: number, started: number) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const maxBytes = opts.maxBytes ?? parts.defaultMaxBytes;
  const dest = parts.target(url, started);
  const signal = parts.deadlines.start(opts.timeoutMs ?? parts.timeoutMs);
  try {
    const res = await parts.agent.request({
      origin: dest.origin,
      path: dest.path,
      method: 'GET',
      headers: { 'user-agent': parts.userAgent, accept: 'application/json' },
      signal,
    });
    return await read(res, maxBytes, started);
  } catch (err) {
    throw toOutboundError(err, signal, started);
  } finally {
    signal.clear();
  }
}

function getJson(
  parts: ClientParts,
  url: string,
  opts: { maxBytes?: number; timeoutMs?: number } = {},
): Promise<JsonResult> {
  return get(parts, url, opts, readJsonResponse);
}

function probe(
  parts: ClientParts,
  url: string,
  opts: { maxBytes?: number; timeoutMs?: number } = {},
): Promise<ProbeResult> {
  return get(parts, url, opts, readProbeResponse);
}

/** Any status, its headers and a capped body (a probe reads what a 402 or a redirect says). */
async function readProbeResponse(
  res: Dispatcher.ResponseData,
  maxBytes: number,
  started: number,
): Promise<ProbeResult> {
  const body = await readBodyCapped(res, maxBytes);
  const ms = Math.round(performance.now() - started);
  if (!body) throw new OutboundError('body_too_large', `body exceeds ${maxBytes} bytes`, ms, res.statusCode);
  return { status: res.statusCode, headers: flatHeaders(res.headers), body, ms };
}

/** 2xx only, JSON content type only, at most `maxBytes` (declared or streamed), strict UTF-8 JSON. */
async function readJsonResponse(res: Dispatcher.ResponseData, maxBytes: number, started: number): Promise<JsonResult> {
  const ms = () => Math.round(performance.now() - started);
  const fail = (kind: OutboundErrorKind, message: string): never => {
    res.body.on('error', () => {}).destroy();
    throw new OutboundError(kind, message, ms(), res.statusCode);
  };
  if (res.statusCode < 200 || res.statusCode > 299) fail('http_status', `answered HTTP ${res.statusCode}`);
  const contentType = String(res.headers['content-type'] ?? '');
  if (!JSON_CONTENT_TYPE.test(contentType)) {
    fail('not_json', `content type ${JSON.stringify(contentType.slice(0, 80))} is not JSON`);
  }
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    fail('body_too_large', `body of ${declared} bytes exceeds ${maxBytes}`);
  }

  const body = await readBodyCapped(res, maxBytes);
  if (!body) throw new OutboundError('body_too_large', `body exceeds ${maxBytes} bytes`, ms(), res.statusCode);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new OutboundError('invalid_json', 'body is not valid JSON', ms(), res.statusCode);
  }
  return { status: res.statusCode, json, ms: ms() };
}

// The response body is never parsed, stored or logged. Up to DRAIN_LIMIT bytes arriving within DRAIN_MS are
// drained into the void in the background, so a keep-alive connection can serve the next delivery; a larger
// or slower body is cut off with its connection. post() has already returned: a receiver streaming a huge
// body cannot slow it down.
const DRAIN_LIMIT = 8 * 1024;
const DRAIN_MS = 1_000;

function discardBody(
  body: { dump(opts: { limit: number; signal: AbortSignal }): Promise<unknown> },
  deadlines: DeadlineWheel,
): Promise<unknown> {
  const cutOff = deadlines.start(DRAIN_MS);
  const drained = body
    .dump({ limit: DRAIN_LIMIT, signal: cutOff as unknown as AbortSignal })
    .catch(() => {})
    .finally(() => cutOff.clear());
  // Wait one macrotask at most: a body that came with the headers is drained by then and the socket is free
  // for the caller's next delivery; anything slower goes on in the background.
  return Promise.race([drained, new Promise((resolve) => setImmediate(resolve))]);
}

function toOutboundError(err: unknown, signal: Deadline, started: number): OutboundError {
  if (err instanceof OutboundError) return err;
  const ms = Math.round(performance.now() - started);
  // Our deadline fired: whatever undici reports (abort), the attempt timed out.
  if (signal.aborted) return new OutboundError('timeout', 'timed out', ms);
  const { kind, message } = classify(err);
  return new OutboundError(kind, message, ms, undefined, err);
}
