// The hottest writes on SQLite without Kysely's per-statement work. A keyed request's key step (the key by its
// secret's hash, then the limiter's upsert) measured ~70 µs of CPU through Kysely against ~17 µs for the same two
// statements and their group commit run on the native connection: building and compiling each statement, a promise
// per step and the connection lock per statement are most of it. The statements are the same text Kysely compiles,
// prepared once (the cache Kysely's statements use) and reported to `onQuery` like Kysely's own.
import { isDeepStrictEqual } from 'node:util';
import type { CompiledQuery, Kysely } from 'kysely';
import { dialectOf } from './connect';
import { durableNativeWrite, withoutFsync, withoutFsyncNativeWrite } from './durability';

/** Runs one statement (SQLite text, `?` parameters) on the connection the group commit holds; its rows. */
export type NativeQuery = <R>(source: string, parameters: readonly unknown[]) => R[];

/**
 * `withoutFsync` for the hottest writes: on SQLite `native` runs inside the group commit (so with the same durability,
 * atomicity and batching), synchronously, on the native connection; on Postgres `portable` runs as withoutFsync's
 * work. Both must do the same; the tests run one set of expectations on both dialects.
 */
export function withoutFsyncNative<DB, T>(
  db: Kysely<DB>,
  native: (query: NativeQuery) => T,
  portable: (db: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (dialectOf(db) !== 'sqlite') return withoutFsync(db, portable);
  return withoutFsyncNativeWrite(db, native);
}

/**
 * A write that must be on disk before its caller acts on it, decided at once (durability.ts `durableNativeWrite`): on
 * SQLite `native` runs inside the group commit, whose batch then commits with synchronous=FULL; on Postgres
 * `portable` runs on the handle itself (synchronous_commit on: the commit waits for the WAL flush).
 */
export function durableNative<DB, T>(
  db: Kysely<DB>,
  native: (query: NativeQuery) => T,
  portable: (db: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (dialectOf(db) !== 'sqlite') return portable(db);
  return durableNativeWrite(db, native);
}

/**
 * A statement for NativeQuery: its SQLite text is compiled by Kysely once (every value must be a parameter, so the
 * text does not depend on them) and each call gives the text and the parameters listed by `parameters`, in binding
 * order. The first call checks that order against Kysely's own compilation.
 */
export function nativeStatement<A extends unknown[]>(
  compile: (db: Kysely<any>, ...args: A) => CompiledQuery,
  parameters: (...args: A) => unknown[],
): (db: Kysely<any>, ...args: A) => { text: string; parameters: unknown[] } {
  let text: string | undefined;
  return (db, ...args) => {
    const values = parameters(...args);
    if (text === undefined) {
      const compiled = compile(db, ...args);
      if (!isDeepStrictEqual([...compiled.parameters], values))
        throw new Error(`nativeStatement: parameters out of order for ${compiled.sql}`);
      text = compiled.sql;
    }
    return { text, parameters: values };
  };
}
