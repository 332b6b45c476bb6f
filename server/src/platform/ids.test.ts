import { describe, expect, it } from 'vitest';
import { KEY_ID_PATTERN } from '@sigil/contract/keys';
import { prefixedId } from './ids';

const newKeyId = (now?: number) => prefixedId('key_', now);

describe('time-sortable ids', () => {
  it('are key_ + 22 base58 characters', () => {
    for (let i = 0; i < 200; i++) expect(newKeyId()).toMatch(KEY_ID_PATTERN);
    // The smallest and largest timestamps keep the width.
    expect(newKeyId(0)).toMatch(KEY_ID_PATTERN);
    expect(newKeyId(2 ** 48 - 1)).toMatch(KEY_ID_PATTERN);
    expect(newKeyId(0).startsWith('key_1111111')).toBe(true);
  });

  it('sort as strings in creation order', () => {
    const times = [0, 1, 57, 58, 1_700_000_000_000, 1_700_000_000_001, 1_900_000_000_000, 2 ** 48 - 1];
    const ids = times.map((t) => prefixedId('x_', t));
    expect([...ids].sort()).toStrictEqual(ids);
  });

  it('differ within one millisecond', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newKeyId(1_700_000_000_000)));
    expect(ids.size).toBe(1000);
  });

  it('made within one millisecond, sort in the order they were made (newest-first lists are exact)', () => {
    for (let round = 0; round < 20; round++) {
      const ids = Array.from({ length: 50 }, () => prefixedId('whdel_', 1_800_000_000_000 + round));
      expect([...ids].sort()).toStrictEqual(ids);
    }
  });
});
