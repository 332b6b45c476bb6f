// One OpenID Connect request's read-ahead (docs/oidc.md "Storage"): the library reads a token, then the client it
// names, its grant and (through the account) the Connect session behind it, one statement each. The adapter reads
// the token together with those rows in one statement and keeps them here, for the rest of THIS request only (an
// AsyncLocalStorage scope opened per request by service.ts), so each later read is answered from a row read moments
// before in the same request: the same answer a separate statement would give at that point, without the
// statement. An entry is taken once (a second read of it in the request goes to the database), and a write of a
// row forgets what was kept for it.
//
// A step's writes can also be collected instead of written (collectInto; writes.ts), so that a step writing several
// rows (the sign-in's grant, login and interaction; the resume's code, session, the interaction's destroy and a
// replaced session's delete) writes them together.
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  kept: Map<string, unknown>;
  /** While set, the adapter adds its writes here instead of writing them (writes.ts PendingWrites). */
  collecting?: unknown;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs one request with its own read-ahead scope. */
export function inRequestScope<T>(run: () => T): T {
  return scopes.run({ kept: new Map() }, run);
}

/** Keeps a row (or its absence: undefined) read ahead, for one later read of `key` in this request. */
export function keep(key: string, value: unknown): void {
  scopes.getStore()?.kept.set(key, value);
}

/** What was kept for `key` in this request, taken; `missed` when nothing was. */
export function take<T, M>(key: string, missed: M): T | undefined | M {
  const kept = scopes.getStore()?.kept;
  if (!kept?.has(key)) return missed;
  const value = kept.get(key) as T | undefined;
  kept.delete(key);
  return value;
}

/** A row of `key` was written (or all rows were, when no key is given): what was kept for it is stale. */
export function forget(key?: string): void {
  const kept = scopes.getStore()?.kept;
  if (key === undefined) kept?.clear();
  else kept?.delete(key);
}

export const MISSED = Symbol('not read ahead');

/** Runs `run` with `collection` open: the writes the adapter makes meanwhile in this request go into it. */
export async function collectInto<T>(collection: unknown, run: () => Promise<T>): Promise<T> {
  const scope = scopes.getStore();
  if (!scope) throw new Error('collectInto runs inside a request scope');
  scope.collecting = collection;
  try {
    return await run();
  } finally {
    scope.collecting = undefined;
  }
}

/** The collection of the current collectInto, if one is open. */
export function collector<C>(): C | undefined {
  return scopes.getStore()?.collecting as C | undefined;
}
