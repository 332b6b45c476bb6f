// The request log's trim on Postgres finds each key's cut once, in the plan Postgres keeps for the prepared statement
// (its generic plan): written as a join on the cut, the planner evaluated the cut again for every stored row of the
// keys, a cost that grows with the rows kept (110 s for 300 keys of 1,100 rows). docs/usage-history.md.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresReachable, type FreshDatabase } from '@sigil/test/support/db';
import { trimAsArrays } from './request-log.queries';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

(postgresReachable ? describe : describe.skip)('request log trim [postgres]', () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase('postgres');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("reads each key's cut once in the generic plan, and deletes only the rows older than it", async () => {
    // As in production: each key its own account, many keys stored, a flush trimming some of them.
    const STORED = 200;
    const KEYS = 20;
    const ROWS = 1_010;
    const KEEP = 1_000;
    const prefix = base58.encode(randomBytes(8));
    const keys = Array.from({ length: KEYS }, (_, i) => ({ account: `${prefix}_${i}`, key_id: `key_${i}` }));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO request_log (account, key_id, at, request_id, method, route, status, latency_us)
         SELECT $1 || '_' || k, 'key_' || k, at, 'req_' || at, 'GET', '/v1/resolve/{name}', 200, 1
         FROM generate_series(0, $2::integer - 1) AS k, generate_series(1, $3::integer) AS at`,
        [prefix, STORED, ROWS],
      );
      // The statistics of a production table, where a key is one of very many: the planner then expects about one
      // stored row per key, which is when it chose to evaluate a cut per stored row.
      await client.query(
        'ALTER TABLE request_log ALTER COLUMN account SET (n_distinct = 1000000), ALTER COLUMN key_id SET (n_distinct = 1000000)',
      );
      await client.query('ANALYZE request_log');
      const compiled = trimAsArrays(keys, KEEP).compile(database.db);
      // The plan a pooled connection settles on after five executions, made now.
      await client.query('SET plan_cache_mode = force_generic_plan');
      const types = compiled.parameters.map((value) => (Array.isArray(value) ? 'text[]' : 'integer'));
      expect([...types].sort()).toStrictEqual(['integer', 'text[]', 'text[]']);
      await client.query(`PREPARE trim_keys(${types.join(', ')}) AS ${compiled.sql}`);
      const literal = (value: unknown) =>
        client.escapeLiteral(
          Array.isArray(value) ? `{${value.map((v) => `"${String(v)}"`).join(',')}}` : String(value),
        );
      const explained = await client.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE trim_keys(${compiled.parameters.map(literal).join(', ')})`,
      );
      const plan = (explained.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
      const cutScans = nodes(plan).filter((n) => n.Alias === 'x');
      expect(cutScans.length).toBeGreaterThan(0);
      for (const scan of cutScans) expect(scan['Actual Loops']).toBe(KEYS);

      // The trimmed keys keep their newest KEEP rows; the others keep all of theirs.
      const left = await client.query(
        `SELECT key_id, count(*)::integer AS n, min(at)::integer AS oldest FROM request_log
         WHERE account LIKE $1 || '\\_%' GROUP BY key_id`,
        [prefix],
      );
      const trimmed = new Set(keys.map((k) => k.key_id));
      expect(left.rows).toHaveLength(STORED);
      for (const row of left.rows)
        expect(row).toStrictEqual(
          trimmed.has(row.key_id)
            ? { key_id: row.key_id, n: KEEP, oldest: ROWS - KEEP + 1 }
            : { key_id: row.key_id, n: ROWS, oldest: 1 },
        );
    } finally {
      await client.end();
    }
  });
});
