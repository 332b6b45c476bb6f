/**
 * A second (third…) process for cross-process race tests. Usage (see runTogether in db-children.ts):
 *   node --import tsx test/support/db-child.ts '<job json>'
 * Opens the database, prints "ready", waits for "go" on stdin so that all children start the race at the
 * same moment, runs the job, prints one JSON line with the result.
 */
import { createInterface } from 'node:readline';
import { sql, type Migration } from 'kysely';
import { acquireLease, createDatabase, migrateToLatest } from '../../server/src/platform/db/index';
import { migrations } from '../../server/src/platform/db/migrations/index';
import { consumeToken } from './consume-once';

export type ChildJob =
  | { kind: 'migrate'; url: string; slowMs?: number }
  | { kind: 'consume'; url: string; ids: string[]; consumersPerId: number; tag: string }
  | { kind: 'lease'; url: string; name: string; holders: string[]; ttlMs: number };

const job = JSON.parse(process.argv[2] ?? '{}') as ChildJob;
const handle = createDatabase({ url: job.url, poolSize: 10 });
await sql`select 1`.execute(handle.db); // connected before we say ready

const lines = createInterface({ input: process.stdin });
const go = new Promise<void>((resolve) => lines.on('line', (line) => line.trim() === 'go' && resolve()));
process.stdout.write('ready\n');
await go;
lines.close();

let result: unknown;
if (job.kind === 'migrate') {
  // A slow extra migration widens the window in which an unlocked runner would apply things twice.
  const slow: Migration = {
    up: async (db) => {
      await new Promise((r) => setTimeout(r, job.slowMs ?? 0));
      await db.schema.createTable('test_slow_marker').addColumn('id', 'integer').execute();
    },
  };
  result = await migrateToLatest(handle.db, { migrations: { ...migrations, '9999_test_slow': slow } });
} else if (job.kind === 'consume') {
  const attempts = job.ids.flatMap((id) =>
    Array.from({ length: job.consumersPerId }, (_, n) => {
      const consumer = `${job.tag}-${n}`;
      return consumeToken(handle.db, id, consumer).then((won) => (won ? { id, consumer } : undefined));
    }),
  );
  result = (await Promise.all(attempts)).filter(Boolean);
} else {
  const attempts = job.holders.map((holder) =>
    acquireLease(handle.db, job.name, holder, job.ttlMs).then((won) => (won ? holder : undefined)),
  );
  result = (await Promise.all(attempts)).filter(Boolean);
}
process.stdout.write(JSON.stringify(result) + '\n');
await handle.close();
