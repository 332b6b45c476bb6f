// The MCP tool server: stateless Streamable HTTP over node:http. A POST to /mcp that is a plainly valid ping,
// tools/list or tools/call is answered by the hot path (hotRequest/hotAnswer); every other POST gets a NEW protocol
// server and a NEW SDK transport (no session ids), both closed when the response closes: a stateless transport that
// is reused answers later requests with an empty 500. Host and Origin are checked against an allow-list (DNS
// rebinding), the body is capped, and every request has a deadline.
//
// The tools are served through the SDK's low-level `Server` with our own tools/list and tools/call handlers rather
// than `McpServer.registerTool`, because in SDK 1.32 registerTool (a) turns every error, an unknown tool included,
// into an `isError` result where the MCP spec wants JSON-RPC -32602, and (b) accepts only an object output schema,
// while v1 clients validate `structuredContent` against it even on `isError` results: our output schema has to
// accept both the tool's shape and `{ code, message }` (docs/mcp.md).
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SERVICE_VERSION } from '../platform/config';
import type { Logger } from '../platform/log';
import type { ToolDefinition, ToolDeps } from './tool';

/** What an `isError` result carries in structuredContent; every tool's output schema accepts it. */
const TOOL_ERROR_JSON_SCHEMA = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'A stable code from the service catalog (e.g. INVALID_HANDLE, RPC_ERROR).' },
    message: { type: 'string', description: 'What went wrong, for a human or a model.' },
  },
  required: ['code', 'message'],
} as const;

/**
 * tools/call as the protocol layer first parses it. With CallToolRequestSchema itself, params that are not an object
 * (`"arguments": "x"`) fail that first parse with a bare ZodError, which the SDK answers as -32603; with this loose
 * shape they reach the SDK's tools/call wrapper, which answers -32602 Invalid params as the MCP spec wants.
 */
const LOOSE_CALL_TOOL_REQUEST = z.looseObject({ method: z.literal('tools/call'), params: z.unknown() });

/**
 * One JSON Schema validator for every per-request server: left to itself, each `new Server` builds its own Ajv
 * instance, which was the largest cost of a stateless request (the server uses it only for elicitation).
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_DEADLINE_MS = 30_000;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

interface CompiledTool {
  definition: ToolDefinition;
  input: z.ZodObject;
  output: z.ZodObject;
  listing: Tool;
}

/** A tool's zod shape as the JSON Schema a client sees (draft-07, what the v1 SDK client validates with). */
function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' });
  return rest;
}

/** Built once at start: the zod objects that check each call and the listing tools/list answers with. */
export function compileTools(tools: readonly ToolDefinition[]): ReadonlyMap<string, CompiledTool> {
  const compiled = new Map<string, CompiledTool>();
  for (const definition of tools) {
    if (!/^[A-Za-z0-9_./-]{1,64}$/.test(definition.name)) throw new Error(`bad tool name ${definition.name}`);
    if (compiled.has(definition.name)) throw new Error(`tool ${definition.name} is listed twice`);
    const input = z.object(definition.inputSchema);
    const output = z.object(definition.outputSchema);
    // `definitions` stay at the root so that the `$ref`s of both branches still point at them.
    const { definitions, ...success } = jsonSchemaOf(output, 'output');
    const listing: Tool = {
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema: jsonSchemaOf(input, 'input') as Tool['inputSchema'],
      outputSchema: {
        type: 'object',
        ...(definitions ? { definitions } : {}),
        anyOf: [success, TOOL_ERROR_JSON_SCHEMA],
      } as Tool['outputSchema'],
      annotations: { title: definition.title, ...definition.annotations },
    };
    compiled.set(definition.name, { definition, input, output, listing });
  }
  return compiled;
}

/** Keys in CallToolResultSchema's order, the order the SDK's parse of a result gives them (the hot path relies on it). */
function errorResult(code: string, message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `${code}: ${message}` }],
    structuredContent: { code, message },
    isError: true,
  };
}

async function callTool(tool: CompiledTool, rawArgs: unknown, deps: ToolDeps, logger: Logger): Promise<CallToolResult> {
  const args = tool.input.safeParse(rawArgs ?? {});
  // Argument errors are tool results, not protocol errors, so that a model reads them and corrects its call.
  if (!args.success) return errorResult('BAD_REQUEST', z.prettifyError(args.error));
  let outcome: Awaited<ReturnType<ToolDefinition['run']>>;
  try {
    outcome = await tool.definition.run(args.data, deps);
  } catch (err) {
    logger.error({ err, tool: tool.definition.name }, 'tool failed');
    return errorResult('INTERNAL_ERROR', 'the tool failed unexpectedly');
  }
  if (!outcome.ok) return errorResult(outcome.code, outcome.message);
  const value = tool.output.safeParse(outcome.value);
  if (!value.success) {
    // A bug on our side: never send a client a shape its validator would reject.
    logger.error({ tool: tool.definition.name, issues: value.error.issues }, 'tool output does not match its schema');
    return errorResult('INTERNAL_ERROR', 'the tool produced an output that does not match its schema');
  }
  return {
    content: [{ type: 'text', text: JSON.stringify(value.data) }],
    structuredContent: value.data as Record<string, unknown>,
  };
}

/** One protocol server (cheap: it only closes over the compiled tools). A new one per request. */
export function createMcpServer(tools: ReadonlyMap<string, CompiledTool>, deps: ToolDeps, logger: Logger): Server {
  const server = new Server(
    { name: 'sigil', title: 'Sigil identity tools', version: SERVICE_VERSION },
    {
      // logging: clients may set a level (logging/setLevel); the server sends no log notifications today.
      capabilities: { tools: {}, logging: {} },
      jsonSchemaValidator: SHARED_VALIDATOR,
      instructions:
        'Read-only tools over the Sigil name registry: resolve @handles and domains, reverse-resolve wallets, check ' +
        'availability, read verified cross-chain address records. Tools that prepare transactions never sign or send.',
    },
  );
  const listing = [...tools.values()].map((t) => t.listing);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  server.setRequestHandler(LOOSE_CALL_TOOL_REQUEST, async (loose) => {
    // The SDK's tools/call wrapper has already checked this very request against CallToolRequestSchema (-32602 if
    // not) before it calls us, so a third parse would only cost time.
    const request = loose as unknown as CallToolRequest;
    const tool = tools.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(tool, request.params.arguments, deps, logger);
  });
  return server;
}

/** JSON-RPC request ids as the SDK accepts them: a string or a (safe) integer. */
type RequestId = string | number;

/**
 * A request the hot path answers itself: a single, plainly valid JSON-RPC request for `ping`, `tools/list` or
 * `tools/call` of a tool we have. These read no per-client state (no initialize, no session, no log level), so one
 * answer fits every client, and their answers are ours to write: the SDK's protocol layer would only re-check the
 * message with several zod parses (most of a relayed call's cost in the MCP process) and wrap the same result.
 */
type HotRequest =
  | { method: 'ping' | 'tools/list'; id: RequestId }
  | { method: 'tools/call'; id: RequestId; tool: CompiledTool; args: unknown };

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The request when the hot path may answer it. Every check is one the SDK would make, kept on the side of caution:
 * anything unusual (batches, notifications, initialize, `_meta`, task augmentation, a pagination cursor, an unknown
 * tool, malformed params, a header the SDK's transport would refuse) goes to a per-request SDK server and transport,
 * which gives its own answer.
 */
export function hotRequest(
  req: Pick<http.IncomingMessage, 'headers' | 'headersDistinct'>,
  parsed: unknown,
  tools: ReadonlyMap<string, CompiledTool>,
): HotRequest | undefined {
  const { headers } = req;
  // Node keeps the first of two Content-Type headers; the SDK's transport sees both joined, and refuses that (415).
  if (req.headersDistinct['content-type']?.length !== 1) return undefined;
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headers['content-type'])) return undefined;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) return undefined;
  // JSONRPCRequestSchema: a strict object, jsonrpc "2.0", a string or integer id, params an object when present.
  if (!isPlainObject(parsed) || parsed.jsonrpc !== '2.0') return undefined;
  for (const key in parsed) if (!ENVELOPE_KEYS.has(key)) return undefined;
  const { id, params } = parsed;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  // Task augmentation of any method: this server declares no tasks capability, which the SDK answers with an error.
  if (params !== undefined && (!isPlainObject(params) || '_meta' in params || 'task' in params)) return undefined;
  switch (parsed.method) {
    case 'ping':
      return { method: 'ping', id };
    case 'tools/list':
      return params !== undefined && 'cursor' in params ? undefined : { method: 'tools/list', id };
    case 'tools/call': {
      // CallToolRequestSchema: a string name, arguments a record when present.
      if (params === undefined || typeof params.name !== 'string') return undefined;
      const tool = tools.get(params.name);
      const args = params.arguments;
      if (!tool || (args !== undefined && !isPlainObject(args))) return undefined;
      return { method: 'tools/call', id, tool, args };
    }
    default:
      return undefined;
  }
}

/**
 * The JSON-RPC response the hot path sends, serialized exactly as the SDK's protocol layer and transport would:
 * `{result, jsonrpc, id}` in that order, the tools/call result in CallToolResultSchema's key order (callTool builds
 * it so). `listing` is the tools/list result, serialized once.
 */
async function hotAnswer(request: HotRequest, listing: string, deps: ToolDeps, logger: Logger): Promise<string> {
  const id = JSON.stringify(request.id);
  switch (request.method) {
    case 'ping':
      return `{"result":{},"jsonrpc":"2.0","id":${id}}`;
    case 'tools/list':
      return `{"result":${listing},"jsonrpc":"2.0","id":${id}}`;
    case 'tools/call': {
      const result = await callTool(request.tool, request.args, deps, logger);
      return `{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":${id}}`;
    }
  }
}

export interface McpHttpOptions {
  tools: readonly ToolDefinition[];
  deps: ToolDeps;
  logger: Logger;
  /** The bind host: allowed in Host/Origin unless it is a wildcard address. */
  bindHost: string;
  /** Host names allowed besides loopback and the bind host. */
  allowedHosts?: readonly string[];
  maxBodyBytes?: number;
  deadlineMs?: number;
  /**
   * false: every request goes through a per-request SDK server and transport, hot-path requests too. The tests
   * answer the same requests both ways and compare the bytes.
   */
  hotPath?: boolean;
}

function rpcError(res: http.ServerResponse, status: number, code: number, message: string, headers = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** The host part of a Host header value (`name`, `name:port`, `[v6]:port`), lowercased; null when malformed. */
function hostName(value: string): string | null {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:\[\]]+))(?::\d{1,5})?$/i.exec(value.trim());
  return m ? (m[1] ?? m[2]!).toLowerCase() : null;
}

class BodyTooLarge extends Error {}

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The request listener: checks, then one fresh server + transport for this POST. */
export function createMcpRequestListener(options: McpHttpOptions): http.RequestListener {
  const tools = compileTools(options.tools);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const bindHost = options.bindHost.toLowerCase();
  const allowed = new Set([
    ...LOOPBACK_NAMES,
    ...(bindHost === '0.0.0.0' || bindHost === '::' ? [] : [bindHost]),
    ...(options.allowedHosts ?? []).map((h) => h.toLowerCase()),
  ]);
  const { logger, deps } = options;
  const listing = JSON.stringify({ tools: [...tools.values()].map((t) => t.listing) });
  const originAllowed = (origin: string): boolean => {
    try {
      return allowed.has(new URL(origin).hostname.replace(/^\[|\]$/g, '').toLowerCase());
    } catch {
      return false; // includes the opaque `null` origin
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') return rpcError(res, 404, -32000, 'Not found: the MCP endpoint is POST /mcp');
    const host = req.headers.host === undefined ? null : hostName(req.headers.host);
    if (host === null || !allowed.has(host)) return rpcError(res, 403, -32000, 'Forbidden: Host not allowed');
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin))
      return rpcError(res, 403, -32000, 'Forbidden: Origin not allowed');
    // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
    if (req.method !== 'POST') return rpcError(res, 405, -32000, 'Method not allowed.', { allow: 'POST' });
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) {
      return rpcError(res, 413, -32000, `Request body too large (limit ${maxBodyBytes} bytes)`, {
        connection: 'close',
      });
    }
    let parsed: unknown;
    try {
      const body = await readBody(req, maxBodyBytes);
      parsed = JSON.parse(body.toString('utf8'));
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        return rpcError(res, 413, -32000, `Request body too large (limit ${maxBodyBytes} bytes)`, {
          connection: 'close',
        });
      }
      return rpcError(res, 400, ErrorCode.ParseError, 'Parse error: the body is not JSON');
    }

    const deadline = setTimeout(() => {
      logger.warn({ deadlineMs }, 'mcp request deadline exceeded');
      rpcError(res, 504, ErrorCode.InternalError, `Deadline exceeded (${deadlineMs} ms)`);
    }, deadlineMs);

    const request = options.hotPath === false ? undefined : hotRequest(req, parsed, tools);
    if (request) {
      res.on('close', () => clearTimeout(deadline));
      const body = await hotAnswer(request, listing, deps, logger);
      if (res.headersSent || res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }

    const server = createMcpServer(tools, deps, logger);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      clearTimeout(deadline);
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  };

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err }, 'mcp request failed');
      rpcError(res, 500, ErrorCode.InternalError, 'Internal error');
    });
  };
}

export interface RunningMcpServer {
  /** http://host:port/mcp */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startMcpHttpServer(options: McpHttpOptions & { port: number }): Promise<RunningMcpServer> {
  const server = http.createServer(createMcpRequestListener(options));
  // Slow clients get no more than the request deadline plus a margin; idle keep-alive sockets are short-lived.
  server.requestTimeout = (options.deadlineMs ?? DEFAULT_DEADLINE_MS) + 5_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindHost, () => resolve());
  });
  const { port } = server.address() as { port: number };
  const shownHost = options.bindHost.includes(':') ? `[${options.bindHost}]` : options.bindHost;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
