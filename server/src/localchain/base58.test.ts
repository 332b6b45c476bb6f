// The fast base58 paths must give exactly kit's answers (strings, bytes, refusals), or RPC answers would change.
import { getBase58Decoder, getBase58Encoder, isAddress } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { base58ToBytes, bytesToBase58, isAddressText, SHORT_BASE58_BYTES, SHORT_BASE58_CHARS } from './base58';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const kitDecoder = getBase58Decoder();
const kitEncoder = getBase58Encoder();

/** Deterministic xorshift, so a failure reproduces. */
function prng(seed: number) {
  let x = seed;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

const outcome = (f: () => Uint8Array | string) => {
  try {
    const r = f();
    return typeof r === 'string' ? r : `bytes:${Buffer.from(r).toString('hex')}`;
  } catch {
    return 'refused';
  }
};

function randomText(rand: (n: number) => number, maxLength: number): string {
  let s = '1'.repeat(rand(4) === 0 ? rand(6) : 0);
  const length = rand(maxLength + 1);
  for (let i = 0; i < length; i++) s += rand(300) === 0 ? String.fromCharCode(rand(128)) : ALPHABET[rand(58)];
  return s;
}

describe('base58 fast paths', () => {
  it('bytes → text matches kit, leading zeros and both sides of the short-input limit included', () => {
    const rand = prng(0x5eed);
    for (let i = 0; i < 6000; i++) {
      const bytes = new Uint8Array(rand(SHORT_BASE58_BYTES + 40));
      for (let j = 0; j < bytes.length; j++) bytes[j] = rand(8) === 0 ? 0 : rand(8) === 0 ? 255 : rand(256);
      expect(bytesToBase58(bytes)).toBe(kitDecoder.decode(bytes));
    }
    for (const bytes of [
      new Uint8Array(0),
      new Uint8Array(32),
      new Uint8Array(64).fill(255),
      new Uint8Array(SHORT_BASE58_BYTES + 1).fill(7),
    ]) {
      expect(bytesToBase58(bytes)).toBe(kitDecoder.decode(bytes));
    }
  });

  it('text → bytes matches kit, refusals included', () => {
    const rand = prng(0xb58);
    const texts = [
      '',
      '1',
      '111',
      '0',
      'O',
      'I',
      'l',
      ' ',
      '1 ',
      'é',
      '+/',
      'z'.repeat(SHORT_BASE58_CHARS + 5),
      '1'.repeat(50),
    ];
    for (let i = 0; i < 6000; i++) texts.push(randomText(rand, SHORT_BASE58_CHARS + 20));
    for (const text of texts) {
      expect(
        outcome(() => base58ToBytes(text)),
        JSON.stringify(text),
      ).toBe(outcome(() => new Uint8Array(kitEncoder.encode(text))));
    }
  });

  it('isAddressText matches kit isAddress', () => {
    const rand = prng(0xadd);
    const texts = [
      '11111111111111111111111111111111',
      '1111111111111111111111111111111',
      'SigiLRegistry111111111111111111111111111111',
      'z'.repeat(44),
      'z'.repeat(45),
      '0'.repeat(32),
    ];
    for (let i = 0; i < 6000; i++) texts.push(randomText(rand, 46));
    for (let i = 0; i < 500; i++) {
      const bytes = new Uint8Array(31 + rand(3)).map(() => (rand(4) === 0 ? 0 : rand(256)));
      texts.push(kitDecoder.decode(bytes));
    }
    let valid = 0;
    for (const text of texts) {
      expect(isAddressText(text), JSON.stringify(text)).toBe(isAddress(text));
      if (isAddress(text)) valid++;
    }
    expect(valid).toBeGreaterThan(100); // both answers are exercised
  });
});
