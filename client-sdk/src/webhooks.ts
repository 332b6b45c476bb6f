// Receiver side of Sigil webhooks (pay and identity streams): verify a delivery by its `Sigil-Signature` header or
// by the Standard Webhooks headers.
// Header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + '.' + raw body)>`; the HMAC key is the secret
// string exactly as issued (`whsec_…`, UTF-8). See README "Receiving pay webhooks".
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_HEADERS } from '@sigil/contract/webhooks';

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

/**
 * Verifies a delivery (pay or identity stream). Pass the raw request body bytes exactly as received (a
 * Buffer/Uint8Array; a string is taken as its UTF-8 encoding — never a re-serialized JSON object), either the
 * `Sigil-Signature` header or the request's headers (then `Sigil-Signature` is used when present, else the Standard
 * Webhooks `webhook-id` / `webhook-timestamp` / `webhook-signature`), and the webhook secret, or several during a
 * rotation overlap. Every signature is tried against every secret with a constant-time comparison.
 */
export function verifyWebhook(
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined | WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): VerifyWebhookResult {
  const secretList = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => s.length > 0);
  if (secretList.length === 0) return { ok: false, reason: 'no_secret' };
  if (signatureHeader !== null && typeof signatureHeader === 'object') {
    const header = (name: string) => {
      const key = Object.keys(signatureHeader).find((k) => k.toLowerCase() === name);
      const value = key === undefined ? undefined : signatureHeader[key];
      return typeof value === 'string' ? value : undefined;
    };
    const sigil = header(SIGNATURE_HEADER.toLowerCase());
    if (sigil !== undefined || header('webhook-signature') === undefined) {
      return verifyWebhook(rawBody, sigil, secretList, options);
    }
    return verifyStandard(
      rawBody,
      header('webhook-id'),
      header('webhook-timestamp'),
      header('webhook-signature')!,
      secretList,
      options,
    );
  }

  const parsed = parseSignatureHeader(signatureHeader);
  if (!parsed) return { ok: false, reason: 'malformed_header' };

  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.timestamp) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const candidates = parsed.signatures.map((hex) => Buffer.from(hex, 'hex'));
  for (let i = 0; i < secretList.length; i++) {
    const expected = createHmac('sha256', secretList[i]!).update(`${parsed.timestamp}.`).update(body).digest();
    // Every candidate is compared (no early exit on the first mismatch): timing reveals nothing about which
    // bytes matched. Lengths are equal by construction (32 bytes), as timingSafeEqual requires.
    let matched = false;
    for (const candidate of candidates) matched = timingSafeEqual(candidate, expected) || matched;
    if (matched) return { ok: true, secretIndex: i, timestamp: parsed.timestamp };
  }
  return { ok: false, reason: 'signature_mismatch' };
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
function verifyStandard(
  rawBody: Uint8Array | string,
  id: string | undefined,
  timestamp: string | undefined,
  signatures: string,
  secrets: string[],
  options: VerifyWebhookOptions,
): VerifyWebhookResult {
  if (!id || !timestamp || !/^\d{1,12}$/.test(timestamp) || signatures.length > 4096) {
    return { ok: false, reason: 'malformed_header' };
  }
  const candidates = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'))
    .filter((b) => b.length === 32);
  if (candidates.length === 0) return { ok: false, reason: 'malformed_header' };
  const t = Number(timestamp);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  for (let i = 0; i < secrets.length; i++) {
    const key = Buffer.from(secrets[i]!.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${t}.`).update(body).digest();
    let matched = false;
    for (const candidate of candidates) matched = timingSafeEqual(candidate, expected) || matched;
    if (matched) return { ok: true, secretIndex: i, timestamp: t };
  }
  return { ok: false, reason: 'signature_mismatch' };
}
