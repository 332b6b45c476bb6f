// Statements Postgres plans once per connection. Kysely sends every statement unnamed, so Postgres parses, analyses
// and plans it on each execution; for the key step's batch statement (keys/admit.queries.ts, run per event-loop turn)
// planning is ~0.3 ms of a ~1.3–1.8 ms statement (EXPLAIN ANALYZE, 32 keys). A statement run through `executeServerPrepared` is sent as a named
// statement instead ({ name, text, values } to node-postgres): the first execution on a connection parses it under
// its name, later ones on that connection only bind and execute it, and Postgres may keep a generic plan for it.
//
// It still goes through Kysely (compiled with the handle's plugins, reported to `onQuery`, run on the handle's pool);
// only the pool's clients (`serverPreparingPool`, installed by createDatabase on both pools) send the texts marked
// here under a name. The name is a hash of the text, so a different text (another statement, or one a plugin has
// changed) is never sent under a name Postgres already holds for another.
//
// Only for statements whose text does not depend on the values (arrays, not IN-lists or VALUES lists of varying
// length): each distinct text is one prepared statement on every connection that runs it, kept until the connection
// closes. And a statement whose result columns could change under it must not select `*`: Postgres refuses to run a
// prepared statement whose result type changed since it was prepared ("cached plan must not change result type"),
// so a column added by a migration would break it on every connection of a running process.
import { createHash } from 'node:crypto';
import type { Kysely, PostgresPool, PostgresPoolClient, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';

/** The texts to send under a name, and their names. */
const names = new Map<string, string>();

/** Runs `query` on `db` as a named statement on Postgres (once per text and connection parsed and planned). */
export function executeServerPrepared<R>(db: Kysely<any>, query: RawBuilder<R>): Promise<QueryResult<R>> {
  const compiled = query.compile(db);
  if (!names.has(compiled.sql))
    names.set(compiled.sql, `sigil_${createHash('sha256').update(compiled.sql).digest('hex').slice(0, 32)}`);
  return db.executeQuery(compiled);
}

/** The pool Kysely's PostgresDialect is given: its clients send the texts marked above as named statements. */
export function serverPreparingPool(pool: pg.Pool): PostgresPool {
  // One wrapper per pooled client: Kysely keeps its connection object per client it is handed.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const plain: PostgresPoolClient = client;
    // Kysely calls `query(text, parameters)` (or `query(cursor)`, for streaming): a marked text goes under its name.
    const query = (text: string, parameters: readonly unknown[]) => {
      const name = names.get(text);
      return name ? client.query({ name, text, values: [...parameters] }) : plain.query(text, parameters);
    };
    return { query: query as PostgresPoolClient['query'], release: () => client.release() };
  };
  return {
    connect: async () => {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}
