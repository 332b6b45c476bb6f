// The integrator's backend proxy for Connect (spec: Authentication 1). Browsers and mobile apps never hold the API
// key: they call YOUR backend, which forwards exactly the four sign-in operations and the session read to Sigil,
// drops any key header the client sent, and attaches the real key. Anything else: 404 NOT_FOUND. A body that is
// not a JSON object: 400 BAD_REQUEST. See docs/connect.md "Integrator proxy".
//
//   import http from 'node:http';
//   import { createConnectProxy, connectProxyNodeHandler } from '@sigil/sdk/connect-proxy';
//   const proxy = createConnectProxy({ baseUrl: 'https://api.sigil.example', apiKey: process.env.SIGIL_API_KEY! });
//   http.createServer(connectProxyNodeHandler(proxy, { prefix: '/api/sigil' })).listen(3000);
//   // browser: POST /api/sigil/challenge {wallet}, POST /api/sigil/verify …, GET /api/sigil/session (Bearer)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_KEY_HEADER, RATE_LIMIT_HEADERS, RETRY_AFTER_HEADER } from '@sigil/contract/http-headers';
import { CONNECT_ROUTES, type ConnectOperation } from '@sigil/contract/routes';

/** Operation → the Sigil route it forwards to. Nothing else is ever forwarded. */
export const CONNECT_PROXY_OPERATIONS = CONNECT_ROUTES;

export type ConnectProxyOperation = ConnectOperation;

export interface ConnectProxyRequest {
  /** The operation name (`challenge`, `verify`, `verify-tx`, `verify-signin`, `session`). */
  operation: string;
  method: string;
  /** The parsed JSON body (POST operations). */
  body?: unknown;
  /** The client's `Authorization` header (session read only); every other client header is dropped. */
  authorization?: string;
}

export interface ConnectProxyResponse {
  status: number;
  body: unknown;
  /** Sigil's rate-limit headers are passed back so the app can back off; nothing else. */
  headers: Record<string, string>;
}

export interface ConnectProxyOptions {
  /** Sigil's base URL, e.g. `https://api.sigil.example`. */
  baseUrl: string;
  /** Your API key (server-side secret). */
  apiKey: string;
  fetch?: typeof fetch;
  /** Per-request timeout. Default 10 s. */
  timeoutMs?: number;
}

/** Lowercase, as the passed-back headers are keyed. */
const PASS_BACK_HEADERS = [RETRY_AFTER_HEADER, ...Object.values(RATE_LIMIT_HEADERS)].map((name) => name.toLowerCase());

const error = (status: number, code: string, message: string): ConnectProxyResponse => ({
  status,
  body: { code, message },
  headers: {},
});

export function createConnectProxy(
  options: ConnectProxyOptions,
): (request: ConnectProxyRequest) => Promise<ConnectProxyResponse> {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  return async (request) => {
    const route = Object.hasOwn(CONNECT_PROXY_OPERATIONS, request.operation)
      ? CONNECT_PROXY_OPERATIONS[request.operation as ConnectProxyOperation]
      : undefined;
    if (!route || route.method !== request.method.toUpperCase())
      return error(404, 'NOT_FOUND', 'unsupported operation');
    // Only the real key and what the operation needs: the client's own headers (any X-API-Key included) never pass.
    const headers: Record<string, string> = { [API_KEY_HEADER.toLowerCase()]: options.apiKey };
    let body: string | undefined;
    if (route.method === 'POST') {
      if (request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) {
        return error(400, 'BAD_REQUEST', 'the body must be a JSON object');
      }
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    } else if (request.authorization) {
      headers.authorization = request.authorization;
    }
    const res = await doFetch(base + route.path, {
      method: route.method,
      headers,
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    const passBack: Record<string, string> = {};
    for (const name of PASS_BACK_HEADERS) {
      const value = res.headers.get(name);
      if (value !== null) passBack[name] = value;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return {
        status: 502,
        body: { code: 'BAD_GATEWAY', message: 'upstream answered a non-JSON body' },
        headers: passBack,
      };
    }
    return { status: res.status, body: parsed, headers: passBack };
  };
}

/** A node:http (or Express) handler serving `<prefix>/<operation>` through the proxy. Bodies over 64 KiB: 400. */
export function connectProxyNodeHandler(
  proxy: (request: ConnectProxyRequest) => Promise<ConnectProxyResponse>,
  options: { prefix?: string } = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const send = (res: ServerResponse, answer: ConnectProxyResponse) => {
    res.writeHead(answer.status, { ...answer.headers, 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(answer.body));
  };
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const operation = path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : '';
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 65_536) chunks.push(chunk);
    });
    req.on('end', () => {
      void (async () => {
        let body: unknown;
        if (req.method === 'POST') {
          try {
            if (size > 65_536) throw new Error('too large');
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = undefined; // not JSON: the proxy answers 400 BAD_REQUEST for a known operation (404 otherwise)
          }
        }
        const authorization = typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined;
        try {
          send(res, await proxy({ operation, method: req.method ?? 'GET', body, authorization }));
        } catch {
          send(res, error(502, 'BAD_GATEWAY', 'Sigil did not answer'));
        }
      })();
    });
  };
}
