// The Postgres key step's batch statement is a named (server-side prepared) statement: one text whatever the batch's
// size, parsed once per connection and then only executed; and a column a migration adds to api_keys meanwhile does
// not break it. docs/rate-limits.md "The key step", platform/db/server-prepared.ts.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresReachable, type FreshDatabase } from '@sigil/test/support/db';
import { createDatabase, withoutFsync, type DatabaseHandle } from '../../platform/db/index';
import { admitKeyRequest, createKey } from './service';

const NOW = Date.UTC(2030, 0, 15, 12, 30, 20, 250);
const account = () => base58.encode(randomBytes(32));

describe.skipIf(!postgresReachable)('the key step batch statement, prepared on the server [postgres]', () => {
  let database: FreshDatabase;
  /** A handle with one connection per pool, so every batch runs on the connection whose statements are read. */
  let single: DatabaseHandle;
  /** The statements the single-connection handle sent, as Kysely reported them. */
  const sent: string[] = [];

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    single = createDatabase({ url: database.url, poolSize: 1, onQuery: (event) => void sent.push(event.query.sql) });
  });
  afterAll(async () => {
    await single?.close();
    await database?.drop();
  });

  const newKeys = (n: number) =>
    Promise.all(Array.from({ length: n }, () => createKey(database.db, { account: account() })));
  /** One turn of key steps on the single-connection handle, two requests per key (costs 1 and 2). */
  const turn = (keys: Awaited<ReturnType<typeof newKeys>>) =>
    Promise.all(keys.flatMap(({ secret }) => [1, 2].map((cost) => admitKeyRequest(single.db, secret, cost, NOW))));
  /**
   * The prepared statements of the connection the key step runs on (the relaxed pool's one connection), with how
   * many times each was executed.
   */
  const preparedStatements = () =>
    withoutFsync(single.db, (relaxed) =>
      sql<{ name: string; statement: string; executions: number; from_sql: boolean }>`
        SELECT name, statement, (generic_plans + custom_plans)::int AS executions, from_sql
        FROM pg_prepared_statements`.execute(relaxed),
    ).then((result) => result.rows);

  it('batches of 1, 3 and 70 keys send one text, prepared once on the connection and executed 4 times', async () => {
    const [one, three, seventy] = [await newKeys(1), await newKeys(3), await newKeys(70)];
    sent.length = 0;
    for (const keys of [one, three, seventy]) {
      const answers = await turn(keys);
      expect(answers.map((a) => a?.result.minute.remaining)).toStrictEqual(keys.flatMap(() => [299, 297]));
    }
    // 70 keys take two statements (64 + 6): four batch statements, all the same text.
    expect(sent).toHaveLength(4);
    expect(new Set(sent).size).toBe(1);
    const prepared = await preparedStatements();
    expect(prepared).toStrictEqual([
      { name: expect.stringMatching(/^sigil_/), statement: sent[0], executions: 4, from_sql: false },
    ]);
  });

  it('a column added to api_keys after the statement was prepared: the key step still answers, with the same row', async () => {
    const [key] = await newKeys(1);
    const before = await admitKeyRequest(single.db, key!.secret, 1, NOW);
    expect(before?.result.minute.remaining).toBe(299);
    const batchText = sent.at(-1);
    expect((await preparedStatements()).map((p) => p.statement)).toContain(batchText);
    // A later release's migration, while this process runs with the statement prepared on its connections.
    await sql`ALTER TABLE api_keys ADD COLUMN added_later text`.execute(database.db);
    const after = await admitKeyRequest(single.db, key!.secret, 1, NOW);
    expect(after?.result.minute.remaining).toBe(298);
    expect(after?.key).toStrictEqual(before?.key);
  });
});
