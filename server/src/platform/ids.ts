// Prefixed, time-sortable ids: `<prefix>` + 22 base58 characters encoding 16 bytes =
// 48-bit big-endian epoch ms ‖ 80 random bits. Fixed width, and the base58 alphabet is in ASCII order, so ids
// sort (as plain strings, in SQL too) by creation time; 80 random bits make collisions within a millisecond
// negligible. Every feature's ids (`key_`, `whsub_`, `sess_` …) come from `prefixedId`.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';

/** 58^22 > 2^128, so 16 bytes always fit in 22 characters. */
export const SORTABLE_ID_LENGTH = 22;

const LEADING_ZEROS = /^1+/;

/**
 * Fixed-width base58 of 16 big-endian bytes (left-padded with '1', base58's zero). @scure/base writes one '1' per
 * leading zero byte and then the number's digits (never starting with '1'): those digits, padded to the width, are the
 * fixed-width form — about twice as cheap as dividing the number by 58 as a BigInt (a delivery attempt makes one id).
 */
export function base58Of16Bytes(bytes: Uint8Array): string {
  return base58.encode(bytes).replace(LEADING_ZEROS, '').padStart(SORTABLE_ID_LENGTH, '1');
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
