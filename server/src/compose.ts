// THE composition root: from the config, the database, the chain reader and a clock it builds the one services
// object every request and worker uses. Every member is required (trpc/context.ts `Services`, extended by each
// feature's index.ts), so a feature that is not wired here does not compile. Adding a feature = one line here and
// one in router.ts.
import type { Kysely } from 'kysely';
import type { ChainReader } from './platform/chain/types';
import type { Config } from './platform/config';
import type { Database } from './platform/db/index';
import type { Lifecycle } from './platform/lifecycle';
import type { Logger } from './platform/log';
import { createOutboundClient, type OutboundClient, type OutboundClientOptions } from './platform/outbound/client';
import type { Services } from './trpc/context';
import { createAgentService } from './features/agents/index';
import { createConnectService, createSessionService } from './features/connect/index';
import { createGateService } from './features/gate/index';
import { createGiftService } from './features/gifts/index';
import { createHealthService } from './features/health/index';
import { createKeyGate, createKeysService } from './features/keys/index';
import { createOidcService } from './features/oidc/index';
import { createRateLimiter } from './features/ratelimit/index';
import { createResolveService } from './features/resolve/index';
import { createPrivyService } from './features/privy/index';
import { createReverseService } from './features/reverse/index';
import { createSearchService } from './features/search/index';
import {
  createEnsAdapter,
  createNativeCache,
  createSnsAdapter,
  createUniversalService,
} from './features/universal/index';
import { createQueueSignal, type QueueSignal } from './features/webhooks/index';
import { createPayWebhooksService } from './features/pay-webhooks/index';
import { createOwnerWebhooksService } from './features/owner-webhooks/index';
import { createIdentityEventsService } from './features/identity-events/index';
import { createUsageHistoryService } from './features/usage-history/index';
import { createX402Service, meteringOff } from './features/x402/index';

export interface ComposeDeps {
  config: Config;
  db: Kysely<Database>;
  chain: ChainReader;
  log: Logger;
  /** Stop callbacks of what compose opens (the outbound client); main.ts runs them at shutdown. */
  lifecycle: Lifecycle;
  /** The clock of Connect and pay webhooks (tests move time); default Date.now. */
  now?: () => number;
  /** Tests only: the CA of their loopback HTTPS receivers, a fake DNS resolver. */
  outboundOptions?: Pick<OutboundClientOptions, 'ca' | 'resolver'>;
}

/** What the process holds beyond the request services: the platform handles the workers need too. */
export interface AppServices extends Services {
  db: Kysely<Database>;
  /** The hardened outbound HTTP client (manifests, webhook deliveries); closed through the lifecycle. */
  outbound: OutboundClient;
  /** Wakes the indexer worker (main.ts listens): a gift notify wants its block ingested now. */
  ingest: QueueSignal;
}

export function composeServices(deps: ComposeDeps): AppServices {
  const { config, db, chain, log } = deps;
  const outbound = createOutboundClient({
    allowLoopback: config.outboundAllowLoopback,
    ca: config.outboundCa, // SIGIL_OUTBOUND_CA_FILE (local only): npm start's demo agent host
    ...deps.outboundOptions,
  });
  deps.lifecycle.onStop('outbound client', () => outbound.close());

  const resolve = createResolveService({ chain, suffixes: config.domainSuffixes, cacheTtlMs: config.resolveCacheMs });
  // A revoked key's OpenID Connect client ends with it (the oidc service, built below, reads keys).
  const keys = createKeysService({ db, onRevoked: (keyId) => oidc.keyRevoked(keyId) });
  const sessions = createSessionService({ db, ttlSeconds: config.sessionTtlSeconds });
  const reverse = createReverseService({ chain });
  const agents = createAgentService({ chain, outbound, network: config.network, ipfsGateway: config.ipfsGateway });
  const timeoutMs = config.rpcTimeoutMs;
  const queued = createQueueSignal();
  const ingest = createQueueSignal();
  const usageHistory = createUsageHistoryService({ db, keys, log });
  // Registered after the outbound client, so stopped before it (and before main closes the database).
  deps.lifecycle.onStop('usage history', () => usageHistory.stop());
  const connect = createConnectService({
    db,
    chain,
    resolve,
    sessions,
    challengeTtlSeconds: config.challengeTtlSeconds,
    signinDomains: config.signinDomains,
    now: deps.now,
  });
  const oidc = createOidcService({
    db,
    issuer: config.publicUrl,
    connect,
    sessions,
    keys,
    outbound, // back-channel logout goes through the same SSRF-safe client as webhooks
    log,
    sessionTtlSeconds: config.sessionTtlSeconds,
    pageLimitPerMinute: config.oidcPageLimitPerMinute,
    now: deps.now,
  });
  return {
    config,
    chain,
    db,
    outbound,
    ingest,
    keyGate: createKeyGate({ keys }),
    // The Connect session service is the session step of sessionProcedure as it is.
    sessionGate: sessions,
    meter: config.x402 ? createX402Service({ settings: config.x402, chain, db, log }) : meteringOff,
    health: createHealthService({ config, chain }),
    resolve,
    sessions,
    connect,
    keys,
    ownerWebhooks: createOwnerWebhooksService({ keys }),
    oidc,
    universal: createUniversalService({
      chain,
      suffixes: config.domainSuffixes,
      // Foreign namespaces exist only when their RPC is configured; otherwise they answer 501 NOT_CONFIGURED.
      sns: config.solRpcUrl ? createSnsAdapter({ rpcUrl: config.solRpcUrl, timeoutMs }) : undefined,
      ens: config.ethRpcUrl ? createEnsAdapter({ rpcUrl: config.ethRpcUrl, timeoutMs }) : undefined,
      natives: createNativeCache(config.resolveCacheMs),
    }),
    agents,
    payWebhooks: createPayWebhooksService({
      db,
      chain,
      enabled: config.payWebhooks,
      // Registration vets URLs with the same resolver and loopback rule the delivery client applies.
      resolver: deps.outboundOptions?.resolver,
      allowLoopback: config.outboundAllowLoopback,
      queued,
      now: deps.now,
    }),
    search: createSearchService({ db }),
    reverse,
    privy: createPrivyService({ settings: config.privy, chain, reverse, now: deps.now }),
    gifts: createGiftService({ db, chain, limiter: createRateLimiter(db), ingest, now: deps.now }),
    gate: createGateService({
      db,
      chain,
      reverse,
      agents, // agent.level L1 / L2 fetch manifests and probe x402 endpoints through the outbound client
      sessions,
      suffixes: config.domainSuffixes,
      signingSeed: config.gateSigningKey,
      production: config.nodeEnv === 'production',
      issuer: config.publicUrl,
      now: deps.now,
    }),
    // Same queue signal: one delivery worker serves both streams.
    identityEvents: createIdentityEventsService({
      db,
      enabled: config.identityWebhooks,
      resolver: deps.outboundOptions?.resolver,
      allowLoopback: config.outboundAllowLoopback,
      queued,
      now: deps.now,
    }),
    usageHistory,
  };
}
