// HTTP face of the local chain, loopback only: JSON-RPC 2.0 (single and batch) on POST /, the demo scenario on
// GET /scenario, GET /health, and test controls under /_control (faults, slot advance). Faults apply to RPC
// traffic only, so a test can always clear them through /_control.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ChainCore } from './core';
import { faultConfigSchema } from './faults';
import { RpcError, type MethodHandler } from './rpc-error';

const MAX_BODY_BYTES = 5 * 1024 * 1024;
const MAX_BATCH = 500;
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1'] as const;
export type LoopbackHost = (typeof LOOPBACK_HOSTS)[number];

// bigints go out as bare JSON numbers: mark them during stringify, then unquote the marks.
const BIGINT_MARK = `__bigint_${randomBytes(6).toString('hex')}__`;
const BIGINT_PATTERN = new RegExp(`"${BIGINT_MARK}(-?\\d+)"`, 'g');
export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${BIGINT_MARK}${v}` : v)).replace(
    BIGINT_PATTERN,
    '$1',
  );
}

type JsonRpcId = string | number | null;
interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** The JSON-RPC 2.0 request envelope (built once: zod compiles a schema on its first use). */
const requestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z.string(),
  params: z.unknown().optional(),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RpcServerOptions {
  host: LoopbackHost;
  port: number;
  core: ChainCore;
  methods: Record<string, MethodHandler>;
  scenario: () => unknown;
}

export class RpcServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private closing = false;

  constructor(private readonly options: RpcServerOptions) {
    if (!LOOPBACK_HOSTS.includes(options.host))
      throw new Error(`the local chain listens on loopback only, not ${options.host}`);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        if (!res.headersSent) this.send(res, 500, { error: `internal error: ${(err as Error).message}` });
        else res.destroy();
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen(): Promise<{ port: number; host: LoopbackHost }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('server has no TCP address');
    return { port: address.port, host: this.options.host };
  }

  async close(): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    const text = typeof body === 'string' ? body : stringifyJson(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  /** The chain's own address (not the request's Host header) in the links. */
  private index(): object {
    const { port } = this.server.address() as AddressInfo;
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    const origin = `http://${host}:${port}`;
    return {
      service: 'sigil local chain',
      rpc: `POST ${origin}/ (Solana JSON-RPC)`,
      links: { scenario: `${origin}/scenario`, health: `${origin}/health` },
      docs: 'docs/local-chain.md',
    };
  }

  private async readBody(req: IncomingMessage): Promise<string | null> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return null;
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { core } = this.options;
    // JSON-RPC posts go to '/' (whose pathname is '/'): skip the URL parse for them.
    const path = req.url === '/' ? '/' : new URL(req.url ?? '/', 'http://localhost').pathname;

    // A person who opens the chain's address gets where to go, not a 404 (JSON-RPC itself is POST /).
    if (path === '/' && req.method === 'GET') return this.send(res, 200, this.index());
    if (path === '/scenario' && req.method === 'GET')
      return this.send(res, 200, this.options.scenario() ?? { error: 'no scenario seeded' });
    if (path.startsWith('/_control/')) return this.handleControl(req, res, path);
    if (path === '/health' && req.method === 'GET') {
      if (core.faults.unreachable) return void req.socket.destroy();
      return this.send(res, 200, 'ok');
    }
    if (path !== '/' || req.method !== 'POST') return this.send(res, 404, { error: 'not found' });

    if (core.faults.unreachable || this.closing) return void req.socket.destroy();
    const body = await this.readBody(req);
    if (body === null) return this.send(res, 413, { error: 'payload too large' });

    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return this.send(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const methods = calls.map((c) =>
      c && typeof c === 'object' && typeof (c as { method?: unknown }).method === 'string'
        ? (c as { method: string }).method
        : null,
    );

    const delay = core.faults.delayFor(methods);
    if (delay > 0) await sleep(delay);
    if (core.faults.unreachable) return void req.socket.destroy();
    const status = core.faults.httpStatusFor(methods);
    if (status !== null) return this.send(res, status, `injected HTTP ${status}`);

    if (Array.isArray(parsed)) {
      if (parsed.length === 0 || parsed.length > MAX_BATCH) {
        return this.send(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } });
      }
      const responses: JsonRpcResponse[] = [];
      for (const call of parsed) responses.push(await this.call(call));
      return this.send(res, 200, responses);
    }
    return this.send(res, 200, await this.call(parsed));
  }

  private async call(call: unknown): Promise<JsonRpcResponse> {
    const request = requestSchema.safeParse(call);
    const id: JsonRpcId =
      call && typeof call === 'object' && 'id' in call && (typeof call.id === 'string' || typeof call.id === 'number')
        ? call.id
        : null;
    if (!request.success) return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    const { method, params } = request.data;
    const injected = this.options.core.faults.rpcErrorFor(method);
    if (injected) return { jsonrpc: '2.0', id, error: injected };
    const handler = Object.hasOwn(this.options.methods, method) ? this.options.methods[method] : undefined;
    if (!handler) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
    try {
      const result = await this.options.core.ledger.queue.run(() => handler(params));
      return { jsonrpc: '2.0', id, result };
    } catch (err) {
      if (err instanceof RpcError) {
        return {
          jsonrpc: '2.0',
          id,
          error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) },
        };
      }
      return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${(err as Error).message}` } };
    }
  }

  private async handleControl(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const { core } = this.options;
    const readJson = async () => {
      const body = await this.readBody(req);
      try {
        return body ? JSON.parse(body) : {};
      } catch {
        return undefined;
      }
    };
    if (path === '/_control/faults') {
      if (req.method === 'GET') return this.send(res, 200, core.faults.get());
      if (req.method === 'DELETE') {
        core.faults.clear();
        return this.send(res, 200, core.faults.get());
      }
      if (req.method === 'POST' || req.method === 'PATCH') {
        const parsed = faultConfigSchema.safeParse(await readJson());
        if (!parsed.success)
          return this.send(res, 400, { error: 'invalid fault config', detail: parsed.error.issues[0]?.message });
        // POST replaces the fault set; PATCH merges into it.
        return this.send(
          res,
          200,
          req.method === 'POST' ? core.faults.replace(parsed.data) : core.faults.set(parsed.data),
        );
      }
      return this.send(res, 405, { error: 'method not allowed' });
    }
    if (path === '/_control/advance' && req.method === 'POST') {
      const parsed = z.object({ slots: z.number().int().min(1).max(100_000).default(1) }).safeParse(await readJson());
      if (!parsed.success) return this.send(res, 400, { error: 'invalid body: {"slots": n}' });
      const slot = await core.ledger.queue.run(() => core.ledger.advance(parsed.data.slots));
      return this.send(res, 200, { slot });
    }
    return this.send(res, 404, { error: 'not found' });
  }
}
