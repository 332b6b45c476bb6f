// The X-API-Key header as the key step reads it, in one place: the key step (trpc/procedures.ts) and the keyed
// replay below Fastify (fast-replay.ts) must agree on which secret a request carries.
import type { IncomingHttpHeaders } from 'node:http';
import { API_KEY_HEADER } from '@sigil/contract/http-headers';

/** Node's request headers are keyed lowercase. */
const API_KEY = API_KEY_HEADER.toLowerCase();

/**
 * The secret a request carries: the header's value trimmed; `''` when there is no header or it is blank; undefined
 * when the header arrived as several values (ambiguous: no secret is taken from it).
 */
export function apiKeySecretOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers[API_KEY];
  if (header === undefined) return '';
  return Array.isArray(header) ? undefined : header.trim();
}

/** True when the request carries an X-API-Key header at all (even an empty or bad one): then the key path decides. */
export function hasApiKeyHeader(headers: IncomingHttpHeaders): boolean {
  return headers[API_KEY] !== undefined;
}
