// Work of one event-loop turn in one statement. On Postgres every statement is a loopback round trip (a socket write
// and a read: on a small machine most of what a point lookup costs the service); when several requests read rows of
// the same kind, or write rows of the same tables, in the same turn, one statement can do it for all of them. The
// first call of a turn schedules the flush (setImmediate); the flush hands every item of the turn to one `run`, and
// each caller gets its own answer. A failed statement fails every call of its batch, as each would have failed alone.
// A call joins a batch that has not been sent yet, never one in flight: it never sees the database as it was before
// its own call.

/** Items of one turn to `run` together; `run` answers each item, in order. */
export function perTurn<I, O>(run: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve(out: O): void; reject(error: unknown): void };
  let pending: Waiting[] | undefined;
  const flush = async (batch: Waiting[]) => {
    try {
      const outs = await run(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => waiting.resolve(outs[i]!));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  };
  const open = (): Waiting[] => {
    const batch: Waiting[] = [];
    setImmediate(() => {
      pending = undefined;
      void flush(batch);
    });
    return batch;
  };
  return (item) => new Promise<O>((resolve, reject) => (pending ??= open()).push({ item, resolve, reject }));
}

/** A read by key, batched per turn (see perTurn). */
export type TurnBatch<K, R> = (key: K) => Promise<R | undefined>;

/**
 * Reads by key through perTurn: `run` fetches the rows of the turn's distinct keys (compared by `id`) in one statement
 * and names each row's key (`keyOf`); a key absent from its answer reads as undefined.
 */
export function turnBatch<K, R>(
  run: (keys: K[]) => Promise<R[]>,
  keyOf: (row: R) => string,
  id: (key: K) => string,
): TurnBatch<K, R> {
  return perTurn<K, R | undefined>(async (keys) => {
    const distinct = [...new Map(keys.map((key) => [id(key), key])).values()];
    const rows = new Map((await run(distinct)).map((row) => [keyOf(row), row]));
    return keys.map((key) => rows.get(id(key)));
  });
}
