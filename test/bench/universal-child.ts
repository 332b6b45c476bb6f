// Child processes of the universal benchmark (test/bench/universal.ts), so the load generator never shares their
// event loop. Prints one JSON line on stdout when ready, then runs until SIGTERM.
//   sns-chain: a second local chain holding SNS accounts at their real derived addresses.
//   service:   the composed app over SQLite with one key whose rate limit is counted but never enforced (the bench measures
//              resolution; the limiter's own cost stays in the path and is measured by the `ratelimit` section).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { composeTestApp } from '../support/compose-app';
import { createKey } from '../../server/src/features/keys/service';
import { placeSnsName, placeSolRecordV2, testKey } from '../support/sns-names';
import { startLocalChain } from '../../server/src/localchain';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { loadConfig } from '../../server/src/platform/config';
import { createDatabase, migrateToLatest } from '../../server/src/platform/db/index';

const mode = process.argv[2];
let stop: () => Promise<unknown>;

if (mode === 'sns-chain') {
  const chain = await startLocalChain({ scenario: false, autoAdvance: false });
  const owner = testKey();
  const payee = testKey();
  await placeSnsName(chain, ['bonfida'], owner.address);
  await placeSnsName(chain, ['paid'], owner.address);
  await placeSolRecordV2(chain, ['paid'], {
    content: payee.address,
    stalenessId: owner.address,
    roaId: payee.address,
    owner: owner.address,
  });
  stop = () => chain.close();
  console.log(JSON.stringify({ url: chain.url, owner: owner.address, payee: payee.address }));
} else if (mode === 'service') {
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', PORT: '0' });
  // BENCH_DATABASE_URL: a database the parent created (and drops); else a SQLite file of this process, removed when
  // it stops.
  const dir = process.env.BENCH_DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'sigil-bench-'));
  const database = createDatabase(
    dir ? { sqliteFile: join(dir, 'bench.sqlite') } : { url: process.env.BENCH_DATABASE_URL },
  );
  await migrateToLatest(database.db);
  const key = await createKey(database.db, { account: base58.encode(randomBytes(32)), name: 'bench' });
  const reader = createChainReader({
    rpcUrl: config.rpcUrl,
    programId: config.programId,
    timeoutMs: config.rpcTimeoutMs,
  });
  const app = await composeTestApp({ config, chain: reader, db: database.db });
  // Counted but never refused: the bench measures resolution, not 429s.
  const gate = app.services.keyGate;
  app.services.keyGate = {
    admit: async (secret, cost, log) => {
      const admission = await gate.admit(secret, cost, log);
      return admission && { ...admission, denied: undefined };
    },
  };
  await app.listen({ port: 0, host: '127.0.0.1' });
  stop = async () => {
    await app.close();
    await database.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  console.log(
    JSON.stringify({ base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, key: key.secret }),
  );
} else {
  console.error(`usage: universal-child.ts sns-chain|service`);
  process.exit(2);
}

process.once('SIGTERM', async () => {
  await stop();
  process.exit(0);
});
