// Statements of a fixed shape, built and compiled once per dialect. Building a Kysely query (immutable nodes, each
// step a frozen copy) and compiling it costs more than SQLite takes to run a point lookup: measured on SQLite, a
// primary-key SELECT took about 50 µs through the builder against 19 µs from a compiled query with new values. A
// hot statement whose SQL never changes is written with the builder as usual, once, with named slots for its
// values; each call then only fills the slots.
//
//   const findThing = prepared((db: Kysely<Database>, v: Slots<{ id: string }>) =>
//     db.selectFrom('things').selectAll().where('id', '=', v.id));
//   const { rows } = await findThing(db, { id });
//
// Only for statements whose shape does not depend on the values (no IN-lists, no optional clauses); each slot is
// named where it is used (the slots object cannot be spread). The compiled
// SQL depends on the dialect alone, so any handle of it (a transaction's, a relaxed pool's) runs it.
//
// On SQLite, a read through the handle createDatabase returned runs straight on the native connection when no
// transaction is open on it: the same statement text, prepared once, reported to `onQuery` like Kysely's own, only
// without Kysely's connection lock and its promise per step (measured: most of a point lookup's cost once the
// query is compiled). Reading outside the lock is safe for the reason the group commit's native batch is
// (durability.ts): better-sqlite3 runs a statement synchronously, so it can only land between two statements of
// another caller, and a caller between two statements holds no open transaction unless `inTransaction` says so
// (then the read waits for the connection as usual). Writes keep the connection lock, or run natively inside the
// group commit through `bind` and withoutFsyncNative.
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { dialectOf, sqliteControlOf, type Dialect } from './connect';

const SLOT = Symbol('prepared statement slot');

/** A value's place in the statement, named; stands in for the value while the statement is built. */
interface Slot {
  readonly [SLOT]: string;
}

/** What the builder receives for each value: its slot (typed as the value, so the builder checks it). */
export type Slots<V> = { readonly [K in keyof V]: V[K] };

const isSlot = (value: unknown): value is Slot => typeof value === 'object' && value !== null && SLOT in value;

/** A prepared statement: run it through a handle, or `bind` it for a NativeQuery (native.ts). */
export interface Prepared<DB, V, R> {
  (db: Kysely<DB>, values: V): Promise<QueryResult<R>>;
  /** The statement's text for `db`'s dialect and its parameters filled from `values`, in binding order. */
  bind(db: Kysely<DB>, values: V): { text: string; parameters: unknown[] };
}

export function prepared<DB, V extends object, R>(
  build: (db: Kysely<DB>, slots: Slots<V>) => Compilable<R>,
): Prepared<DB, V, R> {
  const compiled = new Map<Dialect, { query: CompiledQuery<R>; read: boolean }>();
  const slots = new Proxy({} as Slots<V>, {
    get: (_target, name) => ({ [SLOT]: String(name) }) satisfies Slot,
    // The names exist only as they are read: a spread or a key listing would silently drop every value.
    ownKeys: () => {
      throw new Error('prepared statement: name each slot (v.name); slots cannot be spread or listed');
    },
  });
  const compiledFor = (db: Kysely<DB>) => {
    const dialect = dialectOf(db);
    let statement = compiled.get(dialect);
    if (!statement) {
      const query = build(db, slots).compile();
      statement = { query, read: query.query.kind === 'SelectQueryNode' };
      compiled.set(dialect, statement);
    }
    return statement;
  };
  const fill = (query: CompiledQuery<R>, values: V) =>
    query.parameters.map((p) => {
      if (!isSlot(p)) return p;
      if (!Object.hasOwn(values, p[SLOT])) throw new Error(`prepared statement: no value for ${p[SLOT]}`);
      return values[p[SLOT] as keyof V];
    });
  const run = async (db: Kysely<DB>, values: V): Promise<QueryResult<R>> => {
    const { query, read } = compiledFor(db);
    const parameters = fill(query, values);
    const control = read ? sqliteControlOf(db) : undefined;
    if (control && !control.inTransaction()) return { rows: control.query<R>(query.sql, parameters) };
    return db.executeQuery({ ...query, parameters });
  };
  return Object.assign(run, {
    bind: (db: Kysely<DB>, values: V) => {
      const { query } = compiledFor(db);
      return { text: query.sql, parameters: fill(query, values) };
    },
  });
}
