// GET /ready: may this replica take traffic? Unlike /health (the process is up, asks nothing), it checks what every
// request needs: the database answers and the chain RPC answers, each within READY_CHECK_MS. Once the process is
// draining (SIGTERM), it answers 503 so a load balancer stops sending before the listener closes.
import type { Kysely } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { ChainReader } from '../chain/types';
import { pingDatabase, type Database } from '../db/index';
import { withDeadline } from '../deadline';
import type { Drain } from './drain';

/** Bound on each check: a probe must answer well inside a load balancer's probe timeout. */
const READY_CHECK_MS = 2000;

type Check = 'ok' | 'unavailable';

async function check(run: () => Promise<unknown>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), READY_CHECK_MS);
  });
  try {
    await Promise.race([withDeadline(READY_CHECK_MS, run), late]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export function registerReadiness(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; chain: ChainReader; drain: Drain },
): void {
  app.get('/ready', async (_request, reply) => {
    const json = (status: number, body: object) =>
      reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
    if (deps.drain.draining) return json(503, { ready: false, draining: true });
    const [database, rpc] = await Promise.all([check(() => pingDatabase(deps.db)), check(() => deps.chain.getSlot())]);
    const ready = database === 'ok' && rpc === 'ok';
    return json(ready ? 200 : 503, { ready, checks: { database, rpc } });
  });
}
