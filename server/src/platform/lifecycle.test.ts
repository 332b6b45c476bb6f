import { describe, expect, it } from 'vitest';
import { Lifecycle } from './lifecycle';

describe('Lifecycle', () => {
  it('stops in reverse order of registration, once, and survives a failing callback', async () => {
    const l = new Lifecycle();
    const order: string[] = [];
    const failures: string[] = [];
    l.onStop('db', () => void order.push('db'));
    l.onStop('indexer', async () => {
      order.push('indexer');
      throw new Error('stuck');
    });
    const off = l.onStop('gone', () => void order.push('gone'));
    l.onStop('delivery', () => void order.push('delivery'));
    off();
    await Promise.all([l.stopAll((name) => failures.push(name)), l.stopAll()]);
    await l.stopAll();
    expect(order).toEqual(['delivery', 'indexer', 'db']);
    expect(failures).toEqual(['indexer']);
  });
});
