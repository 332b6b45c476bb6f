// Request ids: every request gets one, logged on each line and returned in `X-Request-Id`. An incoming
// `X-Request-Id` is kept when it is sane (so a caller's or proxy's id threads through), otherwise replaced.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { base58 } from '@scure/base';
import { REQUEST_ID_HEADER as REQUEST_ID } from '@sigil/contract/http-headers';

/** Lowercase: the key of node's request headers. */
export const REQUEST_ID_HEADER = REQUEST_ID.toLowerCase();

/** 1-128 characters of [A-Za-z0-9._:-], starting with a letter or digit: safe in logs and headers. */
const SANE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

// Randomness is drawn 4 KiB at a time: one randomBytes call per request was ~9 % of a cached resolve's CPU.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function random16(): Uint8Array {
  if (offset + 16 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  offset += 16;
  return pool.subarray(offset - 16, offset);
}

export function newRequestId(): string {
  return `req_${base58.encode(random16())}`;
}

export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && SANE.test(incoming) ? incoming : newRequestId();
}
