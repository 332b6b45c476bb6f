/**
 * The service's HTTP app for tests and benchmarks, composed the way main.ts composes it: composeServices over the
 * given config, chain reader and database, then buildApp. Without a database it brings a migrated in-memory
 * SQLite one. Closing the app runs the services' stop callbacks (the outbound client) and closes that database.
 */
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp } from '../../server/src/app';
import { composeServices, type ComposeDeps } from '../../server/src/compose';
import type { ChainReader } from '../../server/src/platform/chain/types';
import type { Config } from '../../server/src/platform/config';
import { createDatabase, migrateToLatest, type Database } from '../../server/src/platform/db/index';
import { Lifecycle } from '../../server/src/platform/lifecycle';
import { createLogger, type Logger } from '../../server/src/platform/log';
import type { Metrics } from '../../server/src/platform/metrics';

export interface TestAppDeps {
  config: Config;
  chain: ChainReader;
  db?: Kysely<Database>;
  logger?: Logger;
  metrics?: Metrics;
  router?: AnyTRPCRouter;
  outboundOptions?: ComposeDeps['outboundOptions'];
  now?: () => number;
}

export async function composeTestApp(deps: TestAppDeps): Promise<FastifyInstance> {
  const ownDb = deps.db ? undefined : createDatabase({ sqliteFile: ':memory:' });
  if (ownDb) await migrateToLatest(ownDb.db);
  const db = deps.db ?? ownDb!.db;
  const logger = deps.logger ?? createLogger(deps.config);
  const lifecycle = new Lifecycle();
  const services = composeServices({ ...deps, db, log: logger, lifecycle });
  const app = buildApp({ services, logger, metrics: deps.metrics, router: deps.router });
  app.addHook('onClose', async () => {
    await lifecycle.stopAll(() => {});
    await ownDb?.close();
  });
  return app;
}
