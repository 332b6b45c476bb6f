// The read-ahead scope: what one request keeps is taken once, by that request only, and forgotten on a write.
import { describe, expect, it } from 'vitest';
import { collectInto, collector, forget, inRequestScope, keep, MISSED, take } from './request-scope';

describe('request scope', () => {
  it('a kept row (or a kept absence) is taken once; then the read goes to the database', async () => {
    await inRequestScope(async () => {
      keep('Grant g1', { payload: '{}' });
      keep('Client k1', undefined);
      expect(take('Grant g1', MISSED)).toEqual({ payload: '{}' });
      expect(take('Grant g1', MISSED)).toBe(MISSED);
      expect(take('Client k1', MISSED)).toBeUndefined();
      expect(take('Client k1', MISSED)).toBe(MISSED);
    });
  });

  it('nothing is shared between requests, even concurrent ones, nor kept outside one', async () => {
    keep('Grant outside', 1);
    expect(take('Grant outside', MISSED)).toBe(MISSED);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = inRequestScope(async () => {
      keep('Grant shared', 'first');
      await gate;
      return take('Grant shared', MISSED);
    });
    const second = inRequestScope(async () => {
      const seen = take('Grant shared', MISSED);
      release();
      return seen;
    });
    expect(await second).toBe(MISSED);
    expect(await first).toBe('first');
  });

  it('a write forgets its row; forget() forgets everything', async () => {
    await inRequestScope(async () => {
      keep('Grant a', 1);
      keep('Grant b', 2);
      forget('Grant a');
      expect(take('Grant a', MISSED)).toBe(MISSED);
      forget();
      expect(take('Grant b', MISSED)).toBe(MISSED);
    });
  });

  it('collectInto opens the collection for its run only, and closes it even on a throw', async () => {
    await inRequestScope(async () => {
      const rows: string[] = [];
      const result = await collectInto(rows, async () => {
        collector<string[]>()!.push('grant', 'interaction');
        return 7;
      });
      expect(rows).toEqual(['grant', 'interaction']);
      expect(result).toBe(7);
      expect(collector()).toBeUndefined();
      await expect(
        collectInto([], async () => {
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(collector()).toBeUndefined();
    });
    await expect(collectInto([], async () => 1)).rejects.toThrow('inside a request scope');
  });
});
