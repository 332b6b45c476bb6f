// The outbound client's dispatcher: keep-alive undici pools, one per origin, whose connections resolve names in their
// own lookup, vet every answer and connect to exactly those vetted answers, so there is no second lookup a rebinding
// name could win.
import tls from 'node:tls';
import { Pool, type Dispatcher } from 'undici';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { DestinationError, resolveVetted, type PolicyOptions, type Resolver } from './destination-policy';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export interface VettedAgentOptions {
  resolver: Resolver;
  policy: PolicyOptions;
  /** Connect, response-headers and body timeouts, ms. */
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), trusted besides Node's default store (never instead of it). */
  ca?: string | Buffer | Array<string | Buffer>;
}

/**
 * Node's default trust store: its bundled roots plus NODE_EXTRA_CA_CERTS (`tls.getCACertificates('default')`, Node
 * 22.15+), or the bundled roots alone on older Node. A `ca` option replaces that store in TLS, so extra CAs are added
 * to it: a local CA for the demo agents must not make every public receiver untrusted, nor the other way round.
 */
function defaultRoots(): readonly string[] {
  const get = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  return get ? get('default') : tls.rootCertificates;
}

/** The `ca` of outbound TLS: the default store plus the extra CAs; undefined (Node's own default) without extras. */
export function trustedCas(extra: VettedAgentOptions['ca']): Array<string | Buffer> | undefined {
  if (!extra) return undefined;
  return [...defaultRoots(), ...(Array.isArray(extra) ? extra : [extra])];
}

/** What the outbound client sends through: one request at a time, per-origin pools behind it. */
export interface VettedDispatcher {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  /** Closes every pool (requests under way finish first). */
  close(): Promise<void>;
}

/** Origins whose pools are kept; the least recently used beyond it is closed (its connections are idle or finishing). */
const MAX_ORIGINS = 256;

/**
 * One undici Pool per origin, kept while it is used. Not undici's Agent: in undici 7 an Agent closes an origin's
 * current pool when a connection of an earlier pool of that origin closes (nodejs/undici#5022, fixed in undici 8,
 * which needs Node 22). After every connection to a receiver had gone idle and closed, each delivery then ran on a
 * pool that the previous pool's closing connections closed in turn: one new TLS connection per delivery, measured
 * in the webhook bench as 2,000 connections for 2,000 deliveries instead of 16.
 */
export function createVettedAgent(options: VettedAgentOptions): VettedDispatcher {
  const { timeoutMs } = options;
  const poolOptions: Pool.Options = {
    connect: {
      lookup: vettedLookup(options.resolver, options.policy) as never,
      timeout: timeoutMs,
      rejectUnauthorized: true, // explicit: NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment must not weaken it
      // One TLS context for every connection: given only `ca`, tls.connect would build a context per connection,
      // parsing the whole store (~140 PEM roots, ~50 ms of blocking CPU measured in the webhook bench) each time.
      secureContext: tls.createSecureContext(options.ca ? { ca: trustedCas(options.ca) } : {}),
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // Idle sockets are dropped quickly, so a later delivery resolves and vets the name again.
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 10_000,
  };
  const pools = new Map<string, Pool>(); // Map order is the recency order
  return {
    request(request) {
      const origin = String(request.origin);
      let pool = pools.get(origin);
      if (pool) {
        pools.delete(origin);
      } else {
        pool = new Pool(origin, poolOptions);
        if (pools.size >= MAX_ORIGINS) {
          const [oldest, evicted] = pools.entries().next().value!;
          pools.delete(oldest);
          void evicted.close();
        }
      }
      pools.set(origin, pool);
      return pool.request(request);
    },
    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((pool) => pool.close()));
    },
  };
}

/**
 * The connection's own lookup: one resolution, every answer vetted, and net connects to exactly what we return
 * (with autoSelectFamily it tries them in order). Errors surface as the connect error.
 */
function vettedLookup(resolver: Resolver, policy: PolicyOptions) {
  return (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    resolveVetted(hostname, resolver, policy).then(
      (answers) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const usable = family ? answers.filter((a) => a.family === family) : answers;
        if (usable.length === 0) {
          const none = new DestinationError('dns_failed', `${hostname} has no IPv${family} address`);
          callback(none as NodeJS.ErrnoException, '');
        } else if (lookupOptions.all) {
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (err) => callback(err as NodeJS.ErrnoException, ''),
    );
  };
}
