// Test fixtures for the HTTP layer: an app on a real loopback port with captured log lines, a fake ChainReader,
// and a probe router whose procedures exercise every error-shaping path. Used by tests only.
import http from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { ApiError, PublicError } from '@sigil/contract/errors';
import { ChainError, type ChainReader } from '../../server/src/platform/chain/types';
import { testConfig, type Config } from '../../server/src/platform/config';
import { createLogger } from '../../server/src/platform/log';
import { mergeRouters, router } from '../../server/src/trpc/init';
import { rest } from '../../server/src/trpc/meta';
import { publicProcedure } from '../../server/src/trpc/procedures';
import { storedOutput } from '../../server/src/trpc/stored-output';
import { storedAnswer, StoredJson } from '../../server/src/platform/stored-json';
import { appRouter } from '../../server/src/router';
import type { FastifyInstance } from 'fastify';
import { composeTestApp, type TestAppDeps } from './compose-app';

const unsupported = () => {
  throw new Error('not used by this test');
};

/** A ChainReader that answers the three version reads; override any method. */
export function fakeChain(overrides: Partial<ChainReader> = {}): ChainReader {
  return {
    rpcUrl: 'http://127.0.0.1:8899',
    programId: 'Sigi1111111111111111111111111111111111111111' as ChainReader['programId'],
    getHandle: unsupported,
    getHandleByAddress: unsupported,
    getHandleAuthority: unsupported,
    getPrimary: unsupported,
    getPrimaries: unsupported,
    getHandles: unsupported,
    getHandlesByAddress: unsupported,
    getTokenBalance: unsupported,
    getHandleAccounts: unsupported,
    getRecords: unsupported,
    getAttestations: unsupported,
    getHandleWithAttestations: unsupported,
    getDomain: unsupported,
    getInvoice: unsupported,
    getMarketAccount: unsupported,
    scanHandles: unsupported,
    scanTextRecords: unsupported,
    getSignaturesForAddress: unsupported,
    getTransaction: unsupported,
    getTransactionWire: unsupported,
    getBlocks: unsupported,
    getBlock: unsupported,
    getTokenAccountsByOwner: unsupported,
    getMint: unsupported,
    getLatestBlockhash: unsupported,
    simulateTransaction: unsupported,
    getSlot: async () => 1234n,
    getGenesisHash: async () => 'GenesisHash1111111111111111111111111111111111',
    getVersion: async () => ({ 'solana-core': '2.1.0', 'feature-set': 7 }),
    ...overrides,
  };
}

const Echo = z.object({ value: z.string() });

/** The `stored` probe's answer: a page of stored items. */
export const StoredProbeSchema = z.object({
  items: z.array(z.object({ name: z.string(), n: z.number() })),
  value: z.string(),
});

/** The items the `stored` probe answers with, as stored text (canonical JSON, non-ASCII included). */
export const STORED_ITEMS = ['{"name":"ålice ✓","n":1}', '{"name":"bob \\"b\\"","n":2.5}'];

/** How many times the `counted` probe ran (shared-cache tests). */
export let probeCalls = 0;

function thrower(kind: string): never {
  switch (kind) {
    case 'public':
      throw new PublicError('HANDLE_NOT_REGISTERED', 'alice');
    case 'api':
      throw new ApiError('RATE_LIMITED', 'slow down', { 'retry-after': '7' });
    case 'chain-unreachable':
      throw new ChainError('unreachable', 'connect ECONNREFUSED 10.1.2.3:8899');
    case 'chain-malformed':
      throw new ChainError('malformed', 'handle account too short', 'Acct111');
    case 'trpc':
      throw new TRPCError({ code: 'FORBIDDEN', message: 'internal reason /srv/secret.ts' });
    default:
      throw new Error('boom at /srv/app/secret.ts:42 password=hunter2');
  }
}

/** Procedures that exist only in tests: echo path params, validate input, read the raw body, throw on demand. */
export const probeRouter = router({
  probe: router({
    echo: publicProcedure
      .meta(rest('GET', '/test/echo/{value}', { summary: 'echo' }))
      .input(Echo)
      .output(Echo)
      .query(({ input }) => input),
    echoV1: publicProcedure
      .meta(rest('GET', '/v1/test/echo/{value}', { summary: 'echo' }))
      .input(Echo)
      .output(Echo)
      .query(({ input }) => input),
    count: publicProcedure
      .meta(rest('GET', '/test/count', { summary: 'coerced query' }))
      .input(z.object({ n: z.coerce.number().int().min(1) }))
      .output(z.object({ n: z.number() }))
      .query(({ input }) => input),
    countV1: publicProcedure
      .meta(rest('GET', '/v1/test/count', { summary: 'coerced query' }))
      .input(z.object({ n: z.coerce.number().int().min(1) }))
      .output(z.object({ n: z.number() }))
      .query(({ input }) => input),
    body: publicProcedure
      .meta(rest('POST', '/v1/test/body', { summary: 'json body' }))
      .input(z.object({ name: z.string().min(1) }))
      .output(z.object({ name: z.string(), rawBody: z.string(), requestId: z.string() }))
      .mutation(({ input, ctx }) => ({
        name: input.name,
        rawBody: ctx.rawBody?.toString('utf8') ?? '',
        requestId: ctx.requestId,
      })),
    created: publicProcedure
      .meta(rest('POST', '/v1/test/created', { summary: '201', successStatus: 201 }))
      .input(z.object({ name: z.string() }))
      .output(z.object({ name: z.string() }))
      .mutation(({ input }) => input),
    removed: publicProcedure
      .meta(rest('DELETE', '/v1/test/removed/{value}', { summary: '204', successStatus: 204 }))
      .input(Echo)
      .output(Echo)
      .mutation(({ input }) => input),
    counted: publicProcedure
      .meta(rest('GET', '/test/counted/{value}', { summary: 'shared cache', sharedCache: true }))
      .input(Echo)
      .output(z.object({ value: z.string(), calls: z.number() }))
      .query(({ input }) => {
        probeCalls += 1;
        if (input.value === 'missing') throw new PublicError('HANDLE_NOT_REGISTERED', input.value);
        if (input.value === 'down') throw new PublicError('RPC_UNREACHABLE', input.value);
        return { value: input.value, calls: probeCalls };
      }),
    // `plain`: a plain value (validated as usual); `invalid`: a plain value the schema refuses; else stored items.
    stored: publicProcedure
      .meta(rest('GET', '/v1/test/stored/{value}', { summary: 'stored answer' }))
      .input(Echo)
      .output(storedOutput(StoredProbeSchema))
      .query(({ input }) => {
        if (input.value === 'plain') return { items: STORED_ITEMS.map((t) => JSON.parse(t)), value: input.value };
        if (input.value === 'invalid') return { items: [{ name: 1, n: 1 }], value: input.value } as never;
        return storedAnswer<z.output<typeof StoredProbeSchema>>({
          items: STORED_ITEMS.map((t) => new StoredJson<{ name: string; n: number }>(t)),
          value: input.value,
        });
      }),
    throws: publicProcedure
      .meta(rest('GET', '/test/throw/{value}', { summary: 'throws' }))
      .input(Echo)
      .output(Echo)
      .query(({ input }) => thrower(input.value)),
    throwsV1: publicProcedure
      .meta(rest('GET', '/v1/test/throw/{value}', { summary: 'throws' }))
      .input(Echo)
      .output(Echo)
      .query(({ input }) => thrower(input.value)),
  }),
});

export const testRouter = mergeRouters(appRouter, probeRouter);

export interface TestApp {
  base: string;
  /** Parsed JSON log lines written so far. */
  logs: Record<string, unknown>[];
  config: Config;
  close(): Promise<void>;
}

/**
 * buildApp on 127.0.0.1:0 with the probe router and a log capture. `beforeListen` may add hooks a test needs (e.g.
 * a slow preClose, to hold a drain open).
 */
export async function startTestApp(
  opts: {
    env?: Record<string, string>;
    deps?: Partial<TestAppDeps>;
    beforeListen?: (app: FastifyInstance) => void;
  } = {},
): Promise<TestApp> {
  const config = testConfig({ LOG_LEVEL: 'info', ...opts.env });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const app = await composeTestApp({
    config,
    chain: fakeChain(),
    logger: createLogger(config, sink),
    router: testRouter,
    ...opts.deps,
  });
  opts.beforeListen?.(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}`, logs, config, close: () => app.close() };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any;
}

/** One request through node:http, path sent byte-for-byte (fetch would normalize some of what we test). */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers = { ...opts.headers };
    if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          json: () => JSON.parse(text),
        });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

/** One request written byte for byte on a fresh connection; the whole raw response (head and body) as text. */
export function exchange(base: string, request: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      const end = raw.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(raw);
      if (end >= 0 && length && raw.length >= end + 4 + Number(length[1])) {
        socket.end();
        resolve(raw);
      }
    });
    socket.on('error', reject);
  });
}

/** The Date header moves with the clock: the one part of two answers that may differ. */
export const withoutDate = (raw: string) => raw.replace(/\r\ndate: [^\r]*\r\n/i, '\r\ndate: -\r\n');
