// One deadline budget per request across all its chain reads: each RPC call already has its own timeout, but a
// request that makes several calls in a row against a slow node would add them up (three 4.5 s answers: 13.5 s).
// The request's procedure runs inside `withDeadline`; the chain transport bounds every call by what is left.
import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<number>();

/** Runs `fn` with a deadline `ms` from now (a nested call keeps the earlier of the two). */
export function withDeadline<T>(ms: number, fn: () => T): T {
  const at = performance.now() + ms;
  const outer = deadlines.getStore();
  return deadlines.run(outer === undefined ? at : Math.min(outer, at), fn);
}

/** Milliseconds left of the current request's budget (≤ 0 once spent); undefined outside any request (workers). */
export function remainingMs(): number | undefined {
  const at = deadlines.getStore();
  return at === undefined ? undefined : at - performance.now();
}
