import { describe, expect, it } from 'vitest';
import { DeadlineWheel } from './deadlines';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DeadlineWheel', () => {
  it('fires a deadline after its time (not before), notifying both listener shapes once', async () => {
    const wheel = new DeadlineWheel(20);
    const deadline = wheel.start(60);
    const fired: string[] = [];
    deadline.once('abort', () => fired.push('emitter'));
    deadline.addEventListener('abort', () => fired.push('target'));
    await sleep(30);
    expect(deadline.aborted).toBe(false);
    await sleep(120);
    expect(deadline.aborted).toBe(true);
    expect((deadline.reason as DOMException).name).toBe('TimeoutError');
    expect(fired).toEqual(['emitter', 'target']);
    wheel.close();
  });

  it('a cleared deadline and a removed listener never fire', async () => {
    const wheel = new DeadlineWheel(10);
    const cleared = wheel.start(20);
    const kept = wheel.start(20);
    const fired: string[] = [];
    const removed = () => fired.push('removed');
    cleared.on('abort', () => fired.push('cleared'));
    kept.on('abort', removed);
    kept.removeListener('abort', removed);
    kept.on('abort', () => fired.push('kept'));
    cleared.clear();
    await sleep(80);
    expect(cleared.aborted).toBe(false);
    expect(fired).toEqual(['kept']);
    wheel.close();
  });
});
