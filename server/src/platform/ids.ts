// Prefixed, time-sortable ids: `<prefix>` + 22 base58 characters encoding 16 bytes =
// 48-bit big-endian epoch ms ‖ 80 random bits. Fixed width, and the base58 alphabet is in ASCII order, so ids
// sort (as plain strings, in SQL too) by creation time; 80 random bits make collisions within a millisecond
// negligible. Every feature's ids (`key_`, `whsub_`, `sess_` …) come from `prefixedId`.
import { randomBytes } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** 58^22 > 2^128, so 16 bytes always fit in 22 characters. */
export const SORTABLE_ID_LENGTH = 22;

const DIGIT_CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** 58^5 < 2^30: a remainder below it, shifted by a 16-bit limb, stays below 2^46 — exact in a double. */
const CHUNK = 58 ** 5;
/** Five chunks of five digits: 25 base58 digits, of which the 3 leading are always 0 for 16 bytes (58^22 > 2^128). */
const CHUNKS = 5;
const limbs = new Float64Array(8);
const digits = Buffer.alloc(CHUNKS * 5);

/**
 * Fixed-width base58 of 16 big-endian bytes (left-padded with '1', base58's zero). Long division of the 8 16-bit limbs
 * by 58^5 in doubles: the same digits as dividing the whole number by 58 as a BigInt, several times cheaper (a delivery
 * attempt makes one id).
 */
export function base58Of16Bytes(bytes: Uint8Array): string {
  for (let i = 0; i < 8; i++) limbs[i] = (bytes[2 * i]! << 8) | bytes[2 * i + 1]!;
  for (let chunk = CHUNKS - 1; chunk >= 0; chunk--) {
    let rem = 0;
    for (let i = 0; i < 8; i++) {
      const cur = rem * 65536 + limbs[i]!;
      const q = Math.floor(cur / CHUNK);
      limbs[i] = q;
      rem = cur - q * CHUNK;
    }
    for (let k = 4; k >= 0; k--) {
      const q = Math.floor(rem / 58);
      digits[chunk * 5 + k] = DIGIT_CODES[rem - q * 58]!;
      rem = q;
    }
  }
  return digits.toString('latin1', digits.length - SORTABLE_ID_LENGTH);
}

/** The last id's time and random part in this process: ids made within one millisecond count up from it. */
let last: { ms: number; random: Buffer } = { ms: -1, random: Buffer.alloc(10) };

/**
 * Ids made in the same millisecond by this process sort in the order they were made (the random part of the
 * previous one plus one, as ULID's monotonic mode does), so "newest first" lists are exact within a replica; across
 * replicas, ids of the same millisecond sort arbitrarily.
 */
export function prefixedId(prefix: string, now: number = Date.now()): string {
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(now, 0, 6);
  const random = now === last.ms ? incremented(last.random) : randomBytes(10);
  last = { ms: now, random };
  random.copy(bytes, 6);
  return prefix + base58Of16Bytes(bytes);
}

/** The big-endian number plus one (a fresh random value in the astronomically unlikely case it overflows). */
function incremented(previous: Buffer): Buffer {
  const next = Buffer.from(previous);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 0xff) {
      next[i]!++;
      return next;
    }
    next[i] = 0;
  }
  return randomBytes(10);
}
