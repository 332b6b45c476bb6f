// The process: config → db (migrated) → chain reader → HTTP → workers; on SIGTERM/SIGINT the reverse: stop
// accepting and finish in-flight requests (/ready answers 503 from then on), stop workers (in-flight deliveries
// finish, leases are released), close the db, exit 0 (docs/deploy.md "Graceful drain").
import { pathToFileURL } from 'node:url';
import { buildApp } from './app';
import { composeServices, type AppServices } from './compose';
import { createChainReader } from './platform/chain/reader';
import { ConfigError, loadConfig, type Config } from './platform/config';
import { createDatabase, migrateToLatest, type DatabaseHandle } from './platform/db/index';
import { Lifecycle } from './platform/lifecycle';
import { createLogger } from './platform/log';
import { createMetrics } from './platform/metrics';
import { startHandleIndexWorker } from './workers/handle-index';
import { startHousekeeping } from './workers/housekeeping';
import { registerOpsMetrics } from './workers/ops-metrics';
import { chainSourceFor } from './platform/chain/source/select';
import { startPayWebhookWorkers } from './workers/pay-webhooks';

/** Longest a shutdown may take before the process gives up waiting and exits 1. */
const SHUTDOWN_GRACE_MS = 15_000;

function configOrExit(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      // One line, no stack: the operator needs the variable and the reason, nothing else.
      process.stderr.write(`sigil: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

export interface Started {
  /** The portal key's secret when this start generated it (local mode, first start): print it once. */
  generatedPortalSecret: string | null;
  portalDomain: string;
  /** The composed services (npm start gives the MCP process its own query-API key through them). */
  services: AppServices;
}

/** The one line that shows a freshly generated portal secret (main prints it when run directly; dev.ts in its banner). */
export function portalSecretLine(started: Started): string {
  return started.generatedPortalSecret
    ? `Portal API key (${started.portalDomain}), shown once — set SIGIL_PORTAL_KEY to keep it: ${started.generatedPortalSecret}`
    : '';
}

export async function main(): Promise<Started> {
  const config = configOrExit();
  const logger = createLogger(config);
  const metrics = createMetrics({ defaultMetrics: true });
  const lifecycle = new Lifecycle();

  let database: DatabaseHandle | undefined;
  try {
    database = createDatabase({ url: config.databaseUrl });
    const applied = await migrateToLatest(database.db);
    logger.info({ dialect: database.dialect, applied }, 'database ready');
  } catch (err) {
    logger.fatal({ err }, 'database unavailable');
    await database?.close();
    process.exit(1);
  }

  const chain = createChainReader({
    rpcUrl: config.rpcUrl,
    programId: config.programId,
    timeoutMs: config.rpcTimeoutMs,
    onRpcCall: metrics.recordRpcCall,
  });
  const services = composeServices({ config, db: database.db, chain, log: logger, lifecycle });

  // The portal's own key: from SIGIL_PORTAL_KEY, or generated once in local mode (docs/keys.md).
  let generatedPortalSecret: string | null = null;
  try {
    const portal = await services.keys.ensurePortalKey({ domain: config.portalDomain, secret: config.portalKey });
    generatedPortalSecret = portal.generatedSecret;
  } catch (err) {
    logger.fatal({ err }, 'portal key');
    await lifecycle.stopAll();
    await database.close();
    process.exit(1);
  }

  const app = buildApp({ services, logger, metrics });
  registerOpsMetrics(metrics, { db: database.db, chain });
  // Signals are handled from here on, before listening: a signal that arrives while the server starts (or its
  // workers do) still gets the graceful path, never the default kill.
  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error({ graceMs: SHUTDOWN_GRACE_MS }, 'shutdown took too long; exiting');
      process.exit(1);
    }, config.drainMs + SHUTDOWN_GRACE_MS);
    deadline.unref();
    try {
      // The drain window: /ready answers 503 so the balancer stops sending; requests still arriving, on new or kept
      // connections, are served (with Connection: close). Closing at once would refuse those a balancer sent a moment
      // before it noticed.
      app.drain.begin();
      logger.info({ drainMs: config.drainMs }, 'draining');
      await new Promise((r) => setTimeout(r, config.drainMs));
      await app.close(); // stops accepting, waits for in-flight requests, closes idle keep-alive sockets
      await lifecycle.stopAll((name, err) => logger.error({ err, name }, 'stop callback failed'));
      await database.close();
      logger.info('stopped');
      // The last line must reach stdout before the exit (pino writes asynchronously to a pipe).
      logger.flush(() => process.exit(0));
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    logger.fatal({ err }, 'cannot listen');
    await database.close();
    process.exit(1);
  }
  // Workers get the same services as the requests and register their stop callbacks on `lifecycle`.
  startHousekeeping({
    db: database.db,
    connect: services.connect,
    sessions: services.sessions,
    log: logger,
    lifecycle,
    identityRetentionDays: config.identityRetentionDays,
  });
  // Webhooks: the indexer (one replica at a time, by lease) and this process's delivery worker, each stream switched
  // alone (SIGIL_PAY_WEBHOOKS, SIGIL_IDENTITY_WEBHOOKS); the identity log is written whatever the switches say.
  startPayWebhookWorkers({
    db: database.db,
    chain,
    client: services.outbound,
    log: logger,
    lifecycle,
    queued: services.payWebhooks.queued,
    ingest: services.ingest,
    streams: { pay: config.payWebhooks, identity: config.identityWebhooks },
    indexer: {
      identity: { backfillFromSlot: config.identityBackfillSlot },
      source: chainSourceFor(config, logger),
    },
  });
  // Handle search: the index of the registry's handles (one replica at a time, by lease; docs/search.md).
  if (config.handleIndexIntervalMs > 0) {
    startHandleIndexWorker({
      db: database.db,
      chain,
      log: logger,
      intervalMs: config.handleIndexIntervalMs,
      // Incremental from the identity-change log, which the indexer writes whichever webhook streams are on.
      fromIdentityEvents: true,
      lifecycle,
    });
  }

  return { generatedPortalSecret, portalDomain: config.portalDomain, services };
}

// Run when executed directly (`node --import tsx server/src/main.ts`), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then((started) => {
    const line = portalSecretLine(started);
    // stderr: stdout carries JSON log lines only.
    if (line) process.stderr.write(`${line}\n`);
  });
}
