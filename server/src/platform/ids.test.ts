import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { KEY_ID_PATTERN } from '@sigil/contract/keys';
import { base58Of16Bytes, prefixedId } from './ids';

/** The reference encoding the ids' format is defined by: the 16 bytes as one number, divided by 58 as a BigInt. */
function bigIntBase58(bytes: Uint8Array): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let value = BigInt('0x' + Buffer.from(bytes).toString('hex'));
  let out = '';
  while (value > 0n) {
    out = alphabet[Number(value % 58n)] + out;
    value /= 58n;
  }
  return out.padStart(22, '1');
}

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

  it('encode 16 bytes exactly as the BigInt base58 does (the format of every stored id)', () => {
    const edges = [
      new Uint8Array(16),
      new Uint8Array(16).fill(0xff),
      ...Array.from({ length: 128 }, (_, bit) => {
        const bytes = new Uint8Array(16);
        bytes[15 - (bit >> 3)] = 1 << (bit & 7);
        return bytes;
      }),
    ];
    for (const bytes of edges) expect(base58Of16Bytes(bytes)).toBe(bigIntBase58(bytes));
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        expect(base58Of16Bytes(bytes)).toBe(bigIntBase58(bytes));
      }),
      { numRuns: 20_000 },
    );
  });
});
