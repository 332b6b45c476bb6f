// Reads of one event-loop turn in one statement. On Postgres every statement is a loopback round trip (a socket
// write and a read: on a small machine most of what a point lookup costs the service); when several requests read
// rows of the same kind in the same turn, one statement can fetch them all. The first read of a turn schedules the
// flush (setImmediate), the flush runs one statement for every distinct key of the turn, and each caller gets the
// row of its own key (or undefined). A failed statement fails every read of its batch, as each would have failed
// alone. A read joins a batch that has not been sent yet, never one in flight: it never sees a row older than its own
// call.
export interface TurnBatch<K, R> {
  (key: K): Promise<R | undefined>;
}

/**
 * `run` fetches the rows of distinct keys in one statement and names each row's key (`keyOf`); a key absent from
 * its answer reads as undefined. Keys are compared as strings (`id`).
 */
export function turnBatch<K, R>(
  run: (keys: K[]) => Promise<R[]>,
  keyOf: (row: R) => string,
  id: (key: K) => string,
): TurnBatch<K, R> {
  type Waiter = { resolve(row: R | undefined): void; reject(error: unknown): void };
  type Batch = Map<string, { key: K; waiters: Waiter[] }>;
  let pending: Batch | undefined;
  const flush = async (batch: Batch) => {
    try {
      const rows = new Map((await run([...batch.values()].map((entry) => entry.key))).map((row) => [keyOf(row), row]));
      for (const [k, entry] of batch) for (const waiter of entry.waiters) waiter.resolve(rows.get(k));
    } catch (error) {
      for (const entry of batch.values()) for (const waiter of entry.waiters) waiter.reject(error);
    }
  };
  const open = (): Batch => {
    const batch: Batch = new Map();
    setImmediate(() => {
      pending = undefined;
      void flush(batch);
    });
    return batch;
  };
  return (key) =>
    new Promise<R | undefined>((resolve, reject) => {
      const batch = (pending ??= open());
      const k = id(key);
      let entry = batch.get(k);
      if (!entry) batch.set(k, (entry = { key, waiters: [] }));
      entry.waiters.push({ resolve, reject });
    });
}
