// Request ids: every request gets one, logged on each line and returned in `X-Request-Id`. An incoming
// `X-Request-Id` is kept when it is sane (so a caller's or proxy's id threads through), otherwise replaced.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { base58 } from '@scure/base';

export const REQUEST_ID_HEADER = 'x-request-id';

/** 1-128 characters of [A-Za-z0-9._:-], starting with a letter or digit: safe in logs and headers. */
const SANE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function newRequestId(): string {
  return `req_${base58.encode(randomBytes(16))}`;
}

export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && SANE.test(incoming) ? incoming : newRequestId();
}
