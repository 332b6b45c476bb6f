// Reads of one event-loop turn in one statement: each caller gets its own key's row, a failure fails exactly its
// batch, and a read never joins a batch already sent.
import { describe, expect, it } from 'vitest';
import { turnBatch } from './turn-batch';

function counted(rows: Record<string, string>, fail?: () => Error | undefined) {
  const runs: string[][] = [];
  const read = turnBatch(
    async (keys: string[]) => {
      runs.push([...keys]);
      const error = fail?.();
      if (error) throw error;
      return keys.filter((k) => k in rows).map((k) => ({ key: k, value: rows[k]! }));
    },
    (row) => row.key,
    (key) => key,
  );
  return { read, runs };
}

describe('turnBatch', () => {
  it('the reads of one turn run once, with each distinct key once; each caller gets its row or undefined', async () => {
    const { read, runs } = counted({ a: 'A', b: 'B' });
    const answers = await Promise.all([read('a'), read('b'), read('a'), read('missing')]);
    expect(runs).toEqual([['a', 'b', 'missing']]);
    expect(answers.map((row) => row?.value)).toEqual(['A', 'B', 'A', undefined]);
  });

  it('reads of later turns run again: a read never joins a batch that was already sent', async () => {
    const { read, runs } = counted({ a: 'A' });
    const first = read('a');
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is sent
    const second = read('a');
    expect((await first)?.value).toBe('A');
    expect((await second)?.value).toBe('A');
    expect(runs).toEqual([['a'], ['a']]);
  });

  it('a failed statement fails every read of its batch, and the next batch runs as usual', async () => {
    let failures = 1;
    const { read, runs } = counted({ a: 'A' }, () => (failures-- > 0 ? new Error('connection lost') : undefined));
    const failed = await Promise.allSettled([read('a'), read('b')]);
    expect(failed.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason.message).toBe('connection lost');
    expect((await read('a'))?.value).toBe('A');
    expect(runs).toEqual([['a', 'b'], ['a']]);
  });
});
