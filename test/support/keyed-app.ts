/**
 * The whole keyed service for tests: the local chain (seeded demo scenario), a fresh migrated database of the
 * chosen dialect, buildApp on 127.0.0.1:0 over the real chain reader, the portal's key and one integrator key.
 *
 *   const app = await startKeyedApp({ dialect: 'sqlite' });
 *   const res = await app.call('POST', '/v1/auth/challenge', { key: app.key.secret, body: { wallet } });
 *   await app.close();
 *
 * Pass `chain` to share one local chain between several apps (it is not closed by app.close()).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { base58 } from '@scure/base';
import type { FastifyInstance } from 'fastify';
import { composeTestApp, type TestAppDeps } from './compose-app';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { testConfig, type Config } from '../../server/src/platform/config';
import { createDatabase, type DatabaseOptions, type Dialect } from '../../server/src/platform/db/index';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createKey, ensurePortalKey, type ApiKey } from '../../server/src/features/keys/service';
import { freshDatabase, type FreshDatabase } from './db';

export const TEST_PORTAL_DOMAIN = 'portal.sigil.test';
export const TEST_SIGNIN_DOMAINS = [TEST_PORTAL_DOMAIN, 'app.partner.test'];

export interface KeyedResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface CallOptions {
  /** X-API-Key value. */
  key?: string;
  /** Authorization: Bearer <token>. */
  bearer?: string;
  /** JSON-encoded unless a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface KeyedApp {
  base: string;
  app: FastifyInstance;
  chain: LocalChain;
  database: FreshDatabase;
  config: Config;
  /** The portal's own key: id = audience = the portal domain. */
  portal: { key: ApiKey; secret: string };
  /** An integrator's free key, account = a random wallet. */
  key: { key: ApiKey; secret: string };
  /** Another free key (another account): for cross-audience tests. */
  otherKey: { key: ApiKey; secret: string };
  call(method: string, path: string, options?: CallOptions): Promise<KeyedResponse>;
  close(): Promise<void>;
}

/** A port the system hands out for listen(0), released again for the caller to listen on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startKeyedApp(options: {
  dialect: Dialect;
  chain?: LocalChain;
  env?: Record<string, string>;
  /** e.g. the CA of loopback HTTPS receivers (with env SIGIL_OUTBOUND_ALLOW_LOOPBACK=true), or an injected resolver. */
  outboundOptions?: TestAppDeps['outboundOptions'];
  /**
   * Serve on a free port known before the app is built, with SIGIL_PUBLIC_URL = that address: for suites where the
   * service must know its own URL (the OpenID Connect issuer). The port comes from the system (listen on 0).
   */
  ownPublicUrl?: boolean;
  /** Called after every statement the service runs (its own handle on the same database): statement counts. */
  onQuery?: DatabaseOptions['onQuery'];
}): Promise<KeyedApp> {
  const ownChain = !options.chain;
  const fixedPort = options.ownPublicUrl ? await freePort() : 0;
  const chain = options.chain ?? (await startLocalChain({ scenario: true }));
  const database = await freshDatabase(options.dialect);
  const config = testConfig({
    SIGIL_RPC_URL: chain.url,
    SIGIL_PROGRAM_ID: chain.programId,
    SIGIL_PORTAL_DOMAIN: TEST_PORTAL_DOMAIN,
    SIGIL_SIGNIN_DOMAINS: TEST_SIGNIN_DOMAINS.join(','),
    SIGIL_RESOLVE_CACHE_MS: '0',
    ...(fixedPort ? { SIGIL_PUBLIC_URL: `http://127.0.0.1:${fixedPort}` } : {}),
    ...options.env,
  });
  const reader = createChainReader({
    rpcUrl: config.rpcUrl,
    programId: config.programId,
    timeoutMs: config.rpcTimeoutMs,
  });
  // The counted handle is the service's only: setup and assertions through database.db stay out of the count.
  const counted = options.onQuery ? createDatabase({ url: database.url, onQuery: options.onQuery }) : undefined;
  const app = await composeTestApp({
    config,
    chain: reader,
    db: counted?.db ?? database.db,
    outboundOptions: options.outboundOptions,
  });
  await app.listen({ port: fixedPort, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;

  const portal = await ensurePortalKey(database.db, { domain: config.portalDomain });
  const key = await createKey(database.db, { account: base58.encode(randomBytes(32)), name: 'integrator' });
  const otherKey = await createKey(database.db, { account: base58.encode(randomBytes(32)), name: 'other' });

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<KeyedResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== undefined) headers['x-api-key'] = opts.key;
    if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(base + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  return {
    base,
    app,
    chain,
    database,
    config,
    portal: { key: portal.key, secret: portal.generatedSecret! },
    key,
    otherKey,
    call,
    async close() {
      await app.close();
      await counted?.close();
      await database.drop();
      if (ownChain) await chain.close();
    },
  };
}
