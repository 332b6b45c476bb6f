// The chain reader's transport: JSON-RPC over one kept-alive undici pool, every call bounded by a timeout, reported
// to `onRpcCall`, and its failure mapped to ChainError (docs/chain-reads.md "Failures"). Transport failures and RPC
// errors become ChainError('unreachable'); undecodable data ChainError('malformed').
import { Pool } from 'undici';
// kit's own JSON codec for RPC (u64 as bigint both ways); a pinned dependency of @solana/kit 8.
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from '@solana/rpc-spec-types';
import {
  createSolanaRpcFromTransport,
  SolanaError,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  type RpcTransport,
} from '@solana/kit';
import { remainingMs } from '../deadline';
import { ChainError, type RpcCallEvent } from './types';

export interface ChainRpcOptions {
  rpcUrl: string;
  /** Upper bound for one JSON-RPC call, transport included; a slower answer is `unreachable`. */
  timeoutMs: number;
  /** Called once per JSON-RPC call (the HTTP layer records Prometheus metrics from it). */
  onRpcCall?: (event: RpcCallEvent) => void;
  /** Replaces the HTTP transport (tests). The timeout still applies. */
  transport?: RpcTransport;
}

/** kit's typed client over the bigint-exact transport. */
export type KitRpc = ReturnType<typeof createSolanaRpcFromTransport<RpcTransport>>;

/** What the account and transaction reads send their calls through. */
export interface ChainRpc {
  /** kit's typed client (bigint JSON codec): every read but the hot account reads. */
  readonly rpc: KitRpc;
  /** One JSON-RPC call on the plain path: its `result`, or a thrown error (JSON-RPC error objects included). */
  plainCall(method: string, params: unknown[]): Promise<unknown>;
  /**
   * Several calls in ONE JSON-RPC batch request on the plain path (one HTTP exchange instead of several). Each
   * call's answer is matched by id and unwrapped separately, so one call's error does not hide the others'.
   */
  plainBatch(calls: readonly (readonly [method: string, params: unknown[]])[]): Promise<(() => unknown)[]>;
  /** One RPC call: send, then decode; each failure kind is reported and mapped to ChainError. */
  read<R, T>(method: string, send: () => Promise<R>, decode: (raw: R) => T | Promise<T>): Promise<T>;
  /** A call that got no usable answer: reported, as ChainError('unreachable') (or the ChainError it already is). */
  sendFailed(method: string, started: number, err: unknown): ChainError;
  /** Decodes an answer; a failure is reported and thrown as ChainError('malformed'). */
  decodeReported<R, T>(method: string, started: number, raw: R, decode: (raw: R) => T | Promise<T>): Promise<T>;
}

class TimeoutError extends Error {}

/** Most sockets kept open to the RPC node; requests beyond queue on them (HTTP/1.1, no pipelining). */
const RPC_CONNECTIONS = 32;

/**
 * JSON-RPC over a kept-alive undici Pool with `request()`: what kit's default transport does (POST JSON, u64 as
 * bigint, non-2xx is an HTTP error) without fetch's Request/Response/WebStream layers, which cost more CPU than
 * the RPC answer itself on small reads (docs/connect.md "Benchmark"). Unlike kit's default it does not ask for
 * compressed answers and does not coalesce identical requests of the same tick.
 *
 * `json: 'plain'` parses with JSON.parse instead of kit's bigint-exact codec (which wraps every integer of the
 * answer, ~20 µs per small read here). Only the account reads use it, and they read nothing from an answer but
 * the slot (checked to be a safe integer), the owner and the base64 data: lamports and rentEpoch are ignored.
 */
function createPooledRpcTransport(rpcUrl: string, json: 'bigint' | 'plain', pool: Pool): RpcTransport {
  const url = new URL(rpcUrl);
  const path = url.pathname + url.search;
  const headers = {
    accept: 'application/json',
    'content-type': 'application/json; charset=utf-8',
    'solana-client': 'js/sigil',
  };
  const [stringify, parse] =
    json === 'plain' ? [JSON.stringify, JSON.parse] : [stringifyJsonWithBigInts, parseJsonWithBigInts];
  return (async ({ payload, signal }: Parameters<RpcTransport>[0]) => {
    const res = await pool.request({ method: 'POST', path, headers, body: stringify(payload), signal });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, {
        headers: new Headers(),
        message: `HTTP ${res.statusCode}`,
        statusCode: res.statusCode,
      });
    }
    return parse(text);
  }) as RpcTransport;
}

/**
 * Abort the request (real HTTP) and also race a timer, so even a transport that ignores the signal cannot hang us.
 * The timer is the call's own timeout or what is left of the request's deadline budget, whichever is shorter.
 */
function withTimeout(target: RpcTransport, timeoutMs: number): RpcTransport {
  return (<TResponse>(config: Parameters<RpcTransport>[0]) => {
    const budget = remainingMs();
    if (budget !== undefined && budget <= 0) return Promise.reject(new TimeoutError('request deadline spent'));
    const limitMs = budget === undefined ? timeoutMs : Math.min(timeoutMs, budget);
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(config.signal?.reason);
    config.signal?.addEventListener('abort', onOuterAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new TimeoutError(`no answer within ${limitMs} ms`));
      }, limitMs);
    });
    return Promise.race([target<TResponse>({ ...config, signal: controller.signal }), timeout]).finally(() => {
      clearTimeout(timer);
      config.signal?.removeEventListener('abort', onOuterAbort);
    });
  }) as RpcTransport;
}

/** One JSON-RPC answer object's `result`, or a thrown error (a JSON-RPC error object, or no result). */
function resultOf(answer: unknown): unknown {
  const reply = answer as { result?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  if (reply?.error) throw new Error(`JSON-RPC error ${String(reply.error.code)}: ${String(reply.error.message)}`);
  if (!reply || typeof reply !== 'object' || !('result' in reply)) throw new Error('JSON-RPC answer without result');
  return reply.result;
}

/** Plain JSON-RPC calls and batches; one id sequence per reader, so a batch's answers are told apart by id. */
function createPlainCalls(transport: RpcTransport): Pick<ChainRpc, 'plainCall' | 'plainBatch'> {
  let nextId = 0;
  return {
    async plainCall(method, params) {
      return resultOf(await transport({ payload: { jsonrpc: '2.0', id: String(nextId++), method, params } }));
    },
    async plainBatch(calls) {
      const ids = calls.map(() => String(nextId++));
      const payload = calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: ids[i], method, params }));
      const answers = await transport({ payload });
      if (!Array.isArray(answers)) throw new Error('JSON-RPC batch answer is not an array');
      const byId = new Map(answers.map((a) => [String((a as { id?: unknown })?.id), a]));
      return ids.map((id) => () => resultOf(byId.get(id)));
    },
  };
}

/** Sending and decoding with each outcome reported to `onRpcCall` and each failure mapped to ChainError. */
function createReporting(
  onRpcCall: ChainRpcOptions['onRpcCall'],
): Pick<ChainRpc, 'read' | 'sendFailed' | 'decodeReported'> {
  function report(method: string, started: number, error?: RpcCallEvent['error']) {
    onRpcCall?.({ method, durationMs: performance.now() - started, ...(error ? { error } : {}) });
  }

  function sendFailed(method: string, started: number, err: unknown): ChainError {
    // A well-delivered answer of the wrong shape (the plain path checks it while reading) stays `malformed`.
    if (err instanceof ChainError) {
      report(method, started, err.kind);
      return err;
    }
    report(method, started, 'unreachable');
    return new ChainError('unreachable', `${method}: ${describe(err)}`);
  }

  async function decodeReported<R, T>(
    method: string,
    started: number,
    raw: R,
    decode: (raw: R) => T | Promise<T>,
  ): Promise<T> {
    try {
      const value = await decode(raw);
      report(method, started);
      return value;
    } catch (err) {
      report(method, started, 'malformed');
      if (err instanceof ChainError) throw err;
      throw new ChainError('malformed', `${method}: ${describe(err)}`);
    }
  }

  async function read<R, T>(method: string, send: () => Promise<R>, decode: (raw: R) => T | Promise<T>): Promise<T> {
    const started = performance.now();
    let raw: R;
    try {
      raw = await send();
    } catch (err) {
      throw sendFailed(method, started, err);
    }
    return decodeReported(method, started, raw, decode);
  }

  return { read, sendFailed, decodeReported };
}

/**
 * The two paths over one pool. The hot account reads skip kit's typed client (its request/response transformers
 * walk every value) and its bigint JSON codec; a test transport serves both paths.
 */
function innerTransports(opts: ChainRpcOptions): { bigint: RpcTransport; plain: RpcTransport } {
  if (opts.transport) return { bigint: opts.transport, plain: opts.transport };
  const pool = new Pool(new URL(opts.rpcUrl).origin, { connections: RPC_CONNECTIONS });
  return {
    bigint: createPooledRpcTransport(opts.rpcUrl, 'bigint', pool),
    plain: createPooledRpcTransport(opts.rpcUrl, 'plain', pool),
  };
}

export function createChainRpc(opts: ChainRpcOptions): ChainRpc {
  const inner = innerTransports(opts);
  return {
    rpc: createSolanaRpcFromTransport(withTimeout(inner.bigint, opts.timeoutMs)),
    ...createPlainCalls(withTimeout(inner.plain, opts.timeoutMs)),
    ...createReporting(opts.onRpcCall),
  };
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
