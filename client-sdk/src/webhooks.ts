// Receiver side of Sigil webhooks (pay and identity streams): verify a delivery by its `Sigil-Signature` header or
// by the Standard Webhooks headers.
// Header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + '.' + raw body)>`; the HMAC key is the secret
// string exactly as issued (`whsec_…`, UTF-8). See README "Receiving pay webhooks".
// WebCrypto only (`globalThis.crypto.subtle`): no node: builtin and no dependency, so the same code runs in Node
// (≥ 20), browsers and edge runtimes. WebCrypto's HMAC is asynchronous, hence the Promise.
import { WEBHOOK_HEADERS } from '@sigil/contract/http-headers';

export const SIGNATURE_HEADER = WEBHOOK_HEADERS.signature;
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyWebhookFailure =
  /** The header is absent or not `t=<digits>,v1=<64 hex>[,v1=…]`. */
  | 'malformed_header'
  /** `t` is further than the tolerance from now (a replay, or a badly wrong clock). */
  | 'timestamp_out_of_tolerance'
  /** No v1 signature matches any of the given secrets. */
  | 'signature_mismatch'
  /** No secret was given. */
  | 'no_secret';

export type VerifyWebhookResult =
  | {
      ok: true;
      /** Which of the given secrets matched (for rotation bookkeeping). */ secretIndex: number;
      timestamp: number;
    }
  | { ok: false; reason: VerifyWebhookFailure };

export interface VerifyWebhookOptions {
  /** Accept `t` within this many seconds of now (either side). Default 300. */
  toleranceSeconds?: number;
  /** Current time in unix seconds (tests, or a trusted clock). Default: the system clock. */
  now?: number;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Request headers as a receiver has them (names in any case; Node's IncomingHttpHeaders fits). */
export type WebhookHeaders = Record<string, string | readonly string[] | undefined>;

/** A Fetch API `Headers` (edge runtimes, service workers, `Request.headers`). */
interface HeadersLike {
  get(name: string): string | null;
}

/**
 * Verifies a delivery (pay or identity stream). Pass the raw request body bytes exactly as received (a
 * Uint8Array/Buffer; a string is taken as its UTF-8 encoding — never a re-serialized JSON object), either the
 * `Sigil-Signature` header or the request's headers (a plain object or a Fetch `Headers`; then `Sigil-Signature` is
 * used when present, else the Standard Webhooks `webhook-id` / `webhook-timestamp` / `webhook-signature`), and the
 * webhook secret, or several during a rotation overlap. Every signature is tried against every secret; the
 * comparison is WebCrypto's `verify`, which does not stop at the first differing byte. Never throws.
 */
export async function verifyWebhook(
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined | WebhookHeaders | HeadersLike,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<VerifyWebhookResult> {
  const secretList = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => s.length > 0);
  if (secretList.length === 0) return { ok: false, reason: 'no_secret' };
  if (signatureHeader !== null && typeof signatureHeader === 'object') {
    const header = headerReader(signatureHeader);
    const sigil = header(SIGNATURE_HEADER.toLowerCase());
    const standard = header('webhook-signature');
    if (sigil !== undefined || standard === undefined) return verifyWebhook(rawBody, sigil, secretList, options);
    return verifyStandard(rawBody, header('webhook-id'), header('webhook-timestamp'), standard, secretList, options);
  }

  const parsed = parseSignatureHeader(signatureHeader);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  if (!fresh(parsed.timestamp, options)) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const signed = concat(utf8(`${parsed.timestamp}.`), bytesOf(rawBody));
  const candidates = parsed.signatures.map(hexToBytes);
  const index = await matchingSecret(
    secretList.map((secret) => utf8(secret)),
    candidates,
    signed,
  );
  return index < 0
    ? { ok: false, reason: 'signature_mismatch' }
    : { ok: true, secretIndex: index, timestamp: parsed.timestamp };
}

/** `t=…,v1=…[,v1=…]` → timestamp and v1 signatures; unknown keys (future schemes) are ignored. */
export function parseSignatureHeader(
  header: string | null | undefined,
): { timestamp: number; signatures: string[] } | null {
  if (typeof header !== 'string' || header.length === 0 || header.length > 4096) return null;
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!HEX_SHA256.test(value)) return null;
      signatures.push(value);
    }
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

/**
 * Standard Webhooks: `webhook-signature` = space-separated `v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<body>`,
 * keyed by the base64-decoded part of `whsec_<base64>`.
 */
async function verifyStandard(
  rawBody: Uint8Array | string,
  id: string | undefined,
  timestamp: string | undefined,
  signatures: string,
  secrets: string[],
  options: VerifyWebhookOptions,
): Promise<VerifyWebhookResult> {
  if (!id || !timestamp || !/^\d{1,12}$/.test(timestamp) || signatures.length > 4096) {
    return { ok: false, reason: 'malformed_header' };
  }
  const candidates = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => base64ToBytes(s.slice(3)))
    .filter((b): b is Uint8Array<ArrayBuffer> => b !== null && b.length === 32);
  if (candidates.length === 0) return { ok: false, reason: 'malformed_header' };
  const t = Number(timestamp);
  if (!fresh(t, options)) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  // A secret that is not base64 keys nothing: it matches no signature (an empty key never verifies one).
  const keys = secrets.map((secret) => base64ToBytes(secret.replace(/^whsec_/, '')) ?? new Uint8Array(0));
  const index = await matchingSecret(keys, candidates, concat(utf8(`${id}.${t}.`), bytesOf(rawBody)));
  return index < 0 ? { ok: false, reason: 'signature_mismatch' } : { ok: true, secretIndex: index, timestamp: t };
}

/** The index of the first key under which some candidate is the HMAC-SHA256 of `signed`; -1 if none. */
async function matchingSecret(
  keys: Uint8Array<ArrayBuffer>[],
  candidates: Uint8Array<ArrayBuffer>[],
  signed: Uint8Array<ArrayBuffer>,
): Promise<number> {
  for (let i = 0; i < keys.length; i++) {
    if (keys[i]!.length === 0) continue;
    const key = await crypto.subtle.importKey('raw', keys[i]!, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    // Every candidate is checked (no early exit on the first match): timing says nothing about which one matched.
    const verdicts = await Promise.all(candidates.map((c) => crypto.subtle.verify('HMAC', key, c, signed)));
    if (verdicts.includes(true)) return i;
  }
  return -1;
}

function fresh(timestamp: number, options: VerifyWebhookOptions): boolean {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  return Math.abs(now - timestamp) <= (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
}

function headerReader(headers: WebhookHeaders | HeadersLike): (name: string) => string | undefined {
  if (typeof (headers as HeadersLike).get === 'function') {
    return (name) => (headers as HeadersLike).get(name) ?? undefined;
  }
  const record = headers as WebhookHeaders;
  return (name) => {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : record[key];
    return typeof value === 'string' ? value : undefined;
  };
}

const utf8 = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text);

const bytesOf = (body: Uint8Array | string): Uint8Array => (typeof body === 'string' ? utf8(body) : body);

function concat(head: Uint8Array, tail: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

/** 64 lowercase hex digits (checked by the parser) → 32 bytes. */
function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Standard base64 → bytes; null when it is not base64. */
function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
