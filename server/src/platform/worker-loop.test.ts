// The one worker loop: backoff bounds (pure), wake, stop waiting for the running pass (and aborting its signal),
// `again`, failures backing off and recovering, the lease handed over between two replicas on one database, and a pass
// outliving half its lease reported (both dialects).
import { describe, expect, it, vi } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { currentLease } from './db/index';
import type { Logger } from './log';
import { backoffDelay, startWorkerLoop } from './worker-loop';

/** A promise with its resolve handle. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A pass that records each call and hands its caller the n-th call as it starts. */
function countingPass() {
  const starts: ((n: number) => void)[] = [];
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    /** Resolves when the pass has started `n` times. */
    started(n: number) {
      return calls >= n ? Promise.resolve(calls) : new Promise<number>((r) => starts.push(r));
    },
    pass: async () => {
      calls++;
      for (const s of starts.splice(0)) s(calls);
      return calls;
    },
  };
}

describe('backoffDelay', () => {
  it('doubles from the minimum and stops at the maximum', () => {
    const b = { minMs: 1000, maxMs: 30_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 50, 10_000].map((n) => backoffDelay(b, n))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000,
    ]);
  });
  it('never goes below the minimum, even for a nonsensical streak', () => {
    expect(backoffDelay({ minMs: 250, maxMs: 1000 }, 0)).toBe(250);
    expect(backoffDelay({ minMs: 250, maxMs: 1000 }, -3)).toBe(250);
  });
});

describe('worker loop without a lease', () => {
  it('a long pass learns of the stop through its signal; runOnce passes are told they are not scheduled', async () => {
    const seen: boolean[] = [];
    const worker = startWorkerLoop({
      name: 't',
      intervalMs: 3_600_000,
      pass: async ({ signal, scheduled }) => {
        seen.push(scheduled);
        if (scheduled) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return signal.aborted;
      },
    });
    expect(await worker.runOnce()).toBe(false);
    await worker.stop(); // returns only once the scheduled pass, waiting for its signal, has ended
    expect(seen.sort()).toEqual([false, true]);
  });

  it('wake cuts an hour-long pause short', async () => {
    const counter = countingPass();
    const worker = startWorkerLoop({ name: 't', pass: counter.pass, intervalMs: 3_600_000 });
    await counter.started(1);
    worker.wake();
    expect(await counter.started(2)).toBe(2);
    await worker.stop();
  });

  it('a wake during a pass makes the next pass start without a pause', async () => {
    const gate = deferred();
    let calls = 0;
    const second = deferred();
    const worker = startWorkerLoop({
      name: 't',
      intervalMs: 3_600_000,
      pass: async () => {
        calls++;
        if (calls === 1) await gate.promise;
        else second.resolve();
      },
    });
    worker.wake(); // during the first pass
    gate.resolve();
    await second.promise;
    expect(calls).toBe(2);
    await worker.stop();
  });

  it('stop waits for the running pass and starts no other', async () => {
    const gate = deferred();
    const started = deferred();
    let finished = false;
    let calls = 0;
    const worker = startWorkerLoop({
      name: 't',
      intervalMs: 0,
      pass: async () => {
        calls++;
        started.resolve();
        await gate.promise;
        finished = true;
      },
    });
    await started.promise;
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(finished).toBe(true);
    expect(calls).toBe(1);
  });

  it('`again` runs the next pass at once; a failing pass is retried after its backoff and the streak resets', async () => {
    const results: number[] = [];
    let calls = 0;
    const done = deferred();
    const worker = startWorkerLoop({
      name: 't',
      intervalMs: 3_600_000,
      backoff: { minMs: 1, maxMs: 2 },
      pass: async () => {
        calls++;
        if (calls === 2 || calls === 3) throw new Error('rpc down');
        return calls;
      },
      again: (n) => n < 5,
      onPass: (n) => {
        results.push(n);
        if (n === 5) done.resolve();
      },
    });
    await done.promise;
    // Passes 2 and 3 failed (retried after 1 ms, then 2 ms); 1, 4 and 5 completed, 5 asked for no more.
    expect(results).toEqual([1, 4, 5]);
    await worker.stop();
    expect(calls).toBe(5);
  });

  it('without the loop, runOnce is one pass and stop has nothing to wait for', async () => {
    const counter = countingPass();
    const worker = startWorkerLoop({ name: 't', pass: counter.pass, intervalMs: 10 }, { loop: false });
    expect(await worker.runOnce()).toBe(1);
    await worker.stop();
    expect(counter.calls).toBe(1);
  });
});

describeEachDialect('worker loop under a lease', (ctx) => {
  it('one holder at a time; stopping the holder hands the lease to the other replica', async () => {
    const lease = (holder: string) => ({ db: ctx.db, name: 'test-worker', holder, ttlMs: 60_000 });
    const a = startWorkerLoop({ name: 'a', pass: async () => 'a', intervalMs: 10, lease: lease('a') }, { loop: false });
    const b = startWorkerLoop({ name: 'b', pass: async () => 'b', intervalMs: 10, lease: lease('b') }, { loop: false });
    expect(await a.runOnce()).toBe('a');
    expect(await b.runOnce()).toBeNull();
    expect(await a.runOnce()).toBe('a'); // renewed, still a's
    expect((await currentLease(ctx.db, 'test-worker'))?.holder).toBe('a');
    await a.stop();
    expect(await currentLease(ctx.db, 'test-worker')).toBeUndefined();
    expect(await b.runOnce()).toBe('b');
    expect(await a.runOnce()).toBeNull();
    await b.stop();
  });

  it('a looping replica that is not the holder passes nothing until the lease is free', async () => {
    const lease = (holder: string) => ({ db: ctx.db, name: 'test-loop', holder, ttlMs: 60_000 });
    const holder = startWorkerLoop(
      { name: 'h', pass: async () => 1, intervalMs: 10, lease: lease('h') },
      { loop: false },
    );
    expect(await holder.runOnce()).toBe(1);
    const counter = countingPass();
    const waiting = startWorkerLoop({ name: 'w', pass: counter.pass, intervalMs: 5, lease: lease('w') });
    // The waiting replica's own runOnce (beside its loop) is refused while h holds the lease.
    expect(await waiting.runOnce()).toBeNull();
    expect(counter.calls).toBe(0);
    await holder.stop();
    await counter.started(1);
    expect((await currentLease(ctx.db, 'test-loop'))?.holder).toBe('w');
    await waiting.stop();
    expect(await currentLease(ctx.db, 'test-loop')).toBeUndefined();
  });
});

describeEachDialect('worker loop: a pass that outlives half its lease', (ctx) => {
  /** A logger keeping what the loop warns about (the loop logs nothing else here). */
  const warnings = () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const log = { warn: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) };
    return { lines, log: log as unknown as Logger };
  };

  it('is reported at each half-lease while it runs, and no more once it ends', async () => {
    const { lines, log } = warnings();
    const release = deferred();
    const lease = { db: ctx.db, name: 'test-slow', holder: 's', ttlMs: 80 };
    const loop = startWorkerLoop(
      { name: 'slow', pass: () => release.promise, intervalMs: 10, lease, log },
      { loop: false },
    );
    const running = loop.runOnce();
    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    expect(lines[0]!.message).toBe('worker pass still running; its lease runs out unless it ends');
    expect(lines[0]!.fields).toMatchObject({ worker: 'slow', leaseTtlMs: 80 });
    // How long it has run, as measured: the interval's timer may fire a fraction of a millisecond before the
    // half-lease by the performance clock, so no bound on the figure is asserted.
    expect(lines[0]!.fields.runningMs).toEqual(expect.any(Number));
    release.resolve();
    await running;
    const after = lines.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines.length).toBe(after);
    await loop.stop();
  });

  it('a pass that ends within half its lease is not reported', async () => {
    const { lines, log } = warnings();
    const lease = { db: ctx.db, name: 'test-quick', holder: 'q', ttlMs: 400 };
    const loop = startWorkerLoop({ name: 'quick', pass: async () => 1, intervalMs: 10, lease, log }, { loop: false });
    for (let i = 0; i < 3; i++) expect(await loop.runOnce()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines).toEqual([]);
    await loop.stop();
  });
});
