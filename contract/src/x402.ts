// x402 pay-per-call: the pure protocol core shared by the server, the SDK and the portal.
// - the canonical request, the request hash, the request-bound reference and the redeem message;
// - the challenge (402 body and PAYMENT-REQUIRED header), the payment header in every accepted form,
//   the settlement receipt (PAYMENT-RESPONSE / X-PAYMENT-RESPONSE);
// - the CAIP-2 network id.
// Every decision the spec leaves open is written down in docs/x402.md; docs/x402-vectors.json pins the bytes.
import { z } from 'zod';
import { base58, base64 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { isBase58Address } from './names';

// ───────────────────────────── constants ─────────────────────────────

export const X402_VERSION = 2;
export const X402_SCHEME = 'exact';
export const X402_MAX_TIMEOUT_SECONDS = 60;
export const X402_REDEEM_WINDOW_SECONDS = 600;
export const X402_COMPUTE_UNIT_LIMIT_MAX = 40_000;
/** Micro-lamports per compute unit. */
export const X402_COMPUTE_UNIT_PRICE_MAX = 5_000_000n;

/** Header names. Version 2 names are preferred; the version 1 names are still accepted (requests) and sent (receipt). */
export const X402_HEADERS = {
  payment: 'PAYMENT-SIGNATURE',
  legacyPayment: 'X-PAYMENT',
  required: 'PAYMENT-REQUIRED',
  response: 'PAYMENT-RESPONSE',
  legacyResponse: 'X-PAYMENT-RESPONSE',
  payer: 'X-Payer',
} as const;

export const X402_REFERENCE_PREFIX = 'sigil-x402-ref:v1|';
export const X402_REDEEM_PREFIX = 'sigil-x402-redeem:v1|';

/** Codes a 402 challenge may carry in `error`/`code` (the x402 table of the spec, 402 rows). */
export const X402_CHALLENGE_CODES = [
  'PAYER_REQUIRED',
  'PAYMENT_PAYLOAD_INVALID',
  'REDEEM_SIGNATURE_REQUIRED',
  'REDEEM_SIGNATURE_INVALID',
  'PAYMENT_NETWORK_UNSUPPORTED',
  'PAYMENT_NOT_FINALIZED',
  'PAYMENT_ALREADY_USED',
  'PAYMENT_FAILED',
  'PAYMENT_STALE',
  'PAYMENT_WRONG_ASSET',
  'PAYMENT_WRONG_DESTINATION',
  'PAYMENT_AMOUNT_TOO_LOW',
  'PAYER_MISMATCH',
  'PAYMENT_LAYOUT_INVALID',
  'REFERENCE_MISSING',
  'REFERENCE_MISMATCH',
  'REFERENCE_REUSED',
  'REFERENCE_EXPIRED',
  'MULTISIG_AUTHORITY_UNSUPPORTED',
  'PAYMENT_UNVERIFIABLE',
  'VERIFIER_UNAVAILABLE',
  'PAYMENT_INVALID',
  'SETTLEMENT_FAILED',
] as const;
export type X402ChallengeCode = (typeof X402_CHALLENGE_CODES)[number];

// ───────────────────────────── canonical request ─────────────────────────────

const PERCENT = 0x25;
const PLUS = 0x2b;
const SPACE = 0x20;
const HEX_UPPER = '0123456789ABCDEF';

function hexValue(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30; // 0-9
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37; // A-F
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57; // a-f
  return -1;
}

/**
 * Percent-decodes at the byte level (the text is first taken as UTF-8). A `%` not followed by two hex digits
 * is kept as a literal `%` byte, so it re-encodes as `%25`; decoded bytes need not be valid UTF-8.
 */
function percentDecodeBytes(text: string, plusIsSpace: boolean): Uint8Array {
  const input = utf8ToBytes(text);
  const out = new Uint8Array(input.length);
  let n = 0;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i]!;
    if (byte === PERCENT) {
      const hi = hexValue(input[i + 1]);
      const lo = hexValue(input[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out[n++] = (hi << 4) | lo;
        i += 2;
        continue;
      }
    }
    out[n++] = plusIsSpace && byte === PLUS ? SPACE : byte;
  }
  return out.subarray(0, n);
}

function isUnreserved(byte: number): boolean {
  return (
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    byte === 0x2d || // -
    byte === 0x2e || // .
    byte === 0x5f || // _
    byte === 0x7e // ~
  );
}

/** RFC 3986 encoding: unreserved bytes literal, every other byte `%XX` with uppercase hex. */
function percentEncodeBytes(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) {
    out += isUnreserved(byte) ? String.fromCharCode(byte) : '%' + HEX_UPPER[byte >> 4] + HEX_UPPER[byte & 15];
  }
  return out;
}

function normalizeComponent(text: string, plusIsSpace: boolean): string {
  return percentEncodeBytes(percentDecodeBytes(text, plusIsSpace));
}

/**
 * The canonical path: split on `/`, each segment percent-decoded then re-encoded (RFC 3986 unreserved literal,
 * everything else `%XX` uppercase). Empty segments, hence leading and trailing slashes, are kept; case is kept;
 * `%2F` stays inside its segment as `%2F`. `+` is literal in a path (it re-encodes as `%2B`).
 */
export function canonicalPath(path: string): string {
  return path
    .split('/')
    .map((segment) => normalizeComponent(segment, false))
    .join('/');
}

/**
 * The canonical query (input as received, without `?`): split on `&`; empty pieces (from `&&`, a leading or a
 * trailing `&`) are dropped; each piece splits at its first `=` (a bare `k` becomes `k=`); `+` is a space;
 * key and value are percent-decoded then re-encoded; pairs are sorted by encoded key, then encoded value,
 * in byte order (encoded strings are ASCII, so this is plain code-unit order); duplicates are kept.
 */
export function canonicalQuery(query: string): string {
  const pairs: Array<[string, string]> = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const rawKey = eq === -1 ? piece : piece.slice(0, eq);
    const rawValue = eq === -1 ? '' : piece.slice(eq + 1);
    pairs.push([normalizeComponent(rawKey, true), normalizeComponent(rawValue, true)]);
  }
  const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  pairs.sort((a, b) => byteOrder(a[0], b[0]) || byteOrder(a[1], b[1]));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

export interface X402RequestParts {
  /** HTTP method in any case; it is upper-cased. */
  method: string;
  /** Path exactly as received on the wire, without the query. */
  path: string;
  /** Query exactly as received, without `?`; '' when there is none. */
  query: string;
  /** Exact body bytes; ignored for GET and HEAD. */
  body?: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** UPPERCASE METHOD + LF + canonical path + LF + canonical query + LF + hex(SHA-256(body)). */
export function canonicalRequest(req: X402RequestParts): string {
  const method = req.method.toUpperCase();
  const body = method === 'GET' || method === 'HEAD' ? EMPTY : (req.body ?? EMPTY);
  return `${method}\n${canonicalPath(req.path)}\n${canonicalQuery(req.query)}\n${bytesToHex(sha256(body))}`;
}

/** hex(SHA-256(canonical)), lowercase. */
export function requestHash(canonical: string): string {
  return bytesToHex(sha256(utf8ToBytes(canonical)));
}

export interface X402ReferenceInput {
  domainTag: string;
  canonical: string;
  /** Server-side secret of the challenge; never sent to the client. */
  nonce: string;
  /** Payer wallet, base58. */
  payer: string;
}

/** base58(SHA-256(`sigil-x402-ref:v1|<domainTag>` LF canonical LF nonce LF payer)): 32 bytes, address-shaped. */
export function deriveReference(input: X402ReferenceInput): string {
  const preimage = `${X402_REFERENCE_PREFIX}${input.domainTag}\n${input.canonical}\n${input.nonce}\n${input.payer}`;
  return base58.encode(sha256(utf8ToBytes(preimage)));
}

/** The string the payer wallet signs to redeem: `sigil-x402-redeem:v1|<domainTag>` LF `reference:<reference>`. */
export function redeemMessage(domainTag: string, reference: string): string {
  return `${X402_REDEEM_PREFIX}${domainTag}\nreference:${reference}`;
}

// ───────────────────────────── CAIP-2 ─────────────────────────────

const BASE58_CHARS = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** CAIP-2 id of an SVM chain: `solana:` + the first 32 characters of its base58 genesis hash (CAIP-2 solana rule). */
export function caip2FromGenesisHash(genesisHash: string): string {
  if (!BASE58_CHARS.test(genesisHash) || genesisHash.length < 32) {
    throw new Error('genesis hash must be base58 of at least 32 characters');
  }
  return `solana:${genesisHash.slice(0, 32)}`;
}

// ───────────────────────────── base64 JSON headers ─────────────────────────────

/** Header values are bounded before decoding: a payment header is a few hundred bytes. */
export const X402_MAX_HEADER_LENGTH = 8192;

/** Standard base64 (with padding) of the UTF-8 JSON text. */
export function encodeBase64Json(value: unknown): string {
  return base64.encode(utf8ToBytes(JSON.stringify(value)));
}

const BASE64_ANY = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/**
 * Decodes base64 JSON leniently on the alphabet (standard or URL-safe, padding optional), strictly on the rest
 * (no stray characters, UTF-8 must be valid, the JSON must parse). Returns undefined on any failure.
 */
export function decodeBase64Json(value: string): unknown {
  const text = value.trim();
  if (text === '' || text.length > X402_MAX_HEADER_LENGTH || !BASE64_ANY.test(text)) return undefined;
  const standard = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  const padded = standard + '='.repeat((4 - (standard.length % 4)) % 4);
  try {
    const json = new TextDecoder('utf-8', { fatal: true }).decode(base64.decode(padded));
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

// ───────────────────────────── schemas ─────────────────────────────

export const base58AddressSchema = z.string().refine(isBase58Address, 'must be a base58 32-byte address');

/** A transaction signature: base58 of 64 bytes (87 or 88 characters, fewer only with leading zero bytes). */
export function isBase58Signature(s: string): boolean {
  if (s.length < 64 || s.length > 88) return false;
  try {
    return base58.decode(s).length === 64;
  } catch {
    return false;
  }
}
export const base58SignatureSchema = z.string().refine(isBase58Signature, 'must be a base58 64-byte signature');

const U64_MAX = (1n << 64n) - 1n;
/** Smallest units as a decimal string: no sign, no leading zeros, fits in u64. */
export const amountStringSchema = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,19})$/, 'must be a decimal string of smallest units')
  .refine((s) => BigInt(s) <= U64_MAX, 'must fit in 64 bits');

export const requestHashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters');

export const caip2NetworkSchema = z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'must be a CAIP-2 chain id');

/**
 * Native-rail `extra`. `feePayer`, `reference` and `redeemMessage` exist only when the request bound a payer
 * (X-Payer or `payer`): without one there is no reference, hence nothing to sign and no wallet to name.
 */
export const x402ExtraSchema = z
  .object({
    /** The payer's wallet (who pays the network fee and signs). */
    feePayer: base58AddressSchema.optional(),
    reference: base58AddressSchema.optional(),
    requestHash: requestHashSchema,
    redeemMessage: z.string().optional(),
  })
  .refine(
    (e) =>
      (e.reference === undefined) === (e.feePayer === undefined) &&
      (e.reference === undefined) === (e.redeemMessage === undefined),
    { message: 'feePayer, reference and redeemMessage come together (a payer binding) or not at all' },
  );

/** One native-rail entry of `accepts`. */
export const x402AcceptEntrySchema = z.object({
  scheme: z.literal(X402_SCHEME),
  network: caip2NetworkSchema,
  asset: base58AddressSchema,
  payTo: base58AddressSchema,
  amount: amountStringSchema,
  maxTimeoutSeconds: z.literal(X402_MAX_TIMEOUT_SECONDS),
  extra: x402ExtraSchema,
});
export type X402AcceptEntry = z.infer<typeof x402AcceptEntrySchema>;

/**
 * One facilitator-rail entry of `accepts` (x402's SVM `exact` scheme, settled by a facilitator that pays the fee).
 * `maxAmountRequired` as the spec names it; in the version 2 challenge also `amount` (same value), the name version 2
 * readers take. `network` is CAIP-2 in the version 2 challenge and x402's version 1 name in the version 1 body, which
 * also carries `resource`, `description` and `mimeType`. `extra.feePayer` is the facilitator's fee payer.
 */
export const x402FacilitatorEntrySchema = z.object({
  scheme: z.literal(X402_SCHEME),
  network: z.string().min(1),
  asset: base58AddressSchema,
  payTo: base58AddressSchema,
  maxAmountRequired: amountStringSchema,
  amount: amountStringSchema.optional(),
  maxTimeoutSeconds: z.literal(X402_MAX_TIMEOUT_SECONDS),
  resource: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  extra: z.object({ feePayer: base58AddressSchema }),
});
export type X402FacilitatorEntry = z.infer<typeof x402FacilitatorEntrySchema>;

/** Whether an `accepts` entry is a native-rail one (what the SDK and the MCP tools pay). */
export function isNativeEntry(entry: unknown): entry is X402AcceptEntry {
  return x402AcceptEntrySchema.safeParse(entry).success;
}

/** The native-rail entry among a challenge's `accepts`, or undefined. */
export function nativeEntryOf(challenge: { accepts: readonly unknown[] }): X402AcceptEntry | undefined {
  return challenge.accepts.find(isNativeEntry);
}

/** The paid resource (version 2): its URL, as x402 clients copy it into their payment. */
const x402ResourceSchema = z.object({ url: z.string(), description: z.string(), mimeType: z.string() });

/**
 * The 402 body and the PAYMENT-REQUIRED header. `error`, `code` and `message` only on a rejection, error === code.
 * With the facilitator rail on, its entry comes first (stock x402 clients take the first entry they can pay) and
 * `resource` names the paid URL.
 */
export const x402ChallengeSchema = z
  .object({
    x402Version: z.literal(X402_VERSION),
    resource: x402ResourceSchema.optional(),
    accepts: z.array(z.union([x402AcceptEntrySchema, x402FacilitatorEntrySchema])).min(1),
    error: z.enum(X402_CHALLENGE_CODES).optional(),
    code: z.enum(X402_CHALLENGE_CODES).optional(),
    message: z.string().optional(),
  })
  .refine((c) => c.error === c.code && (c.code === undefined) === (c.message === undefined), {
    message: 'error and code must be equal, and come with a message',
  });
export type X402Challenge = z.infer<typeof x402ChallengeSchema>;

/**
 * The version 1 rendering of a challenge, sent as the 402 body when the facilitator rail is on: version 1 clients
 * read only the body and refuse an entry they cannot parse, so it lists the facilitator entry only, in version 1
 * names. The PAYMENT-REQUIRED header keeps the version 2 challenge with every entry.
 */
export const x402ChallengeV1Schema = z
  .object({
    x402Version: z.literal(1),
    accepts: z.array(x402FacilitatorEntrySchema).min(1),
    error: z.enum(X402_CHALLENGE_CODES).optional(),
    code: z.enum(X402_CHALLENGE_CODES).optional(),
    message: z.string().optional(),
  })
  .refine((c) => c.error === c.code && (c.code === undefined) === (c.message === undefined), {
    message: 'error and code must be equal, and come with a message',
  });
export type X402ChallengeV1 = z.infer<typeof x402ChallengeV1Schema>;

/** Validates (a malformed challenge is a server bug, so it throws) and encodes as base64 JSON. */
export function encodeChallengeHeader(challenge: X402Challenge): string {
  return encodeBase64Json(x402ChallengeSchema.parse(challenge));
}

/** For clients: the challenge from a PAYMENT-REQUIRED header, or null if it is not one. */
export function decodeChallengeHeader(value: string): X402Challenge | null {
  const parsed = x402ChallengeSchema.safeParse(decodeBase64Json(value));
  return parsed.success ? parsed.data : null;
}

// Payment header. Unknown fields are tolerated (x402 clients add their own); the fields we read are strict.
const paymentInnerSchema = z.looseObject({
  signature: base58SignatureSchema.optional(),
  reference: base58AddressSchema.optional(),
  // Its format is the redeem verifier's business (REDEEM_SIGNATURE_INVALID), not the payload parser's.
  payerSig: z.string().min(1).max(512).optional(),
});

/** v1 form: `{x402Version, scheme, network, payload}`. */
export const x402PaymentV1Schema = z.looseObject({
  x402Version: z.number().int().min(1),
  scheme: z.string(),
  network: z.string().min(1),
  payload: paymentInnerSchema,
});

/** v2 form: `{x402Version, accepted: {scheme, network, …}, payload}`. */
export const x402PaymentV2Schema = z.looseObject({
  x402Version: z.number().int().min(1),
  accepted: z.looseObject({ scheme: z.string(), network: z.string().min(1) }),
  payload: paymentInnerSchema,
});

/** A payment header reduced to what redemption needs, whatever form it came in. */
export interface X402Payment {
  form: 'v1' | 'v2';
  x402Version: number;
  scheme: typeof X402_SCHEME;
  network: string;
  /** At least one of signature and reference is present. */
  signature?: string;
  reference?: string;
  /** Absent → REDEEM_SIGNATURE_REQUIRED (decided by the redeemer, not here). */
  payerSig?: string;
}

export type ParsePaymentResult =
  { ok: true; payment: X402Payment } | { ok: false; code: 'PAYMENT_PAYLOAD_INVALID'; message: string };

function payloadInvalid(message: string): ParsePaymentResult {
  return { ok: false, code: 'PAYMENT_PAYLOAD_INVALID', message };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/** Parses a PAYMENT-SIGNATURE / X-PAYMENT header value (base64 JSON, v1 or v2 form). */
export function parsePaymentHeader(headerValue: string): ParsePaymentResult {
  return parsePaymentJson(decodeBase64Json(headerValue));
}

/** parsePaymentHeader for a header already decoded with decodeBase64Json (undefined: it did not decode). */
export function parsePaymentJson(json: unknown): ParsePaymentResult {
  if (json === undefined) return payloadInvalid('payment header is not base64 of a JSON object');
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return payloadInvalid('payment header is not base64 of a JSON object');
  }
  // `accepted` present means the v2 form; its scheme/network win over any top-level ones.
  const isV2 = 'accepted' in json;
  const parsed = isV2 ? x402PaymentV2Schema.safeParse(json) : x402PaymentV1Schema.safeParse(json);
  if (!parsed.success) return payloadInvalid(`payment header: ${firstIssue(parsed.error)}`);
  const data = parsed.data as z.infer<typeof x402PaymentV1Schema> & Partial<z.infer<typeof x402PaymentV2Schema>>;
  const scheme = isV2 ? data.accepted!.scheme : data.scheme;
  const network = isV2 ? data.accepted!.network : data.network;
  if (scheme !== X402_SCHEME) return payloadInvalid(`payment header: unsupported scheme ${JSON.stringify(scheme)}`);
  const { signature, reference, payerSig } = data.payload;
  if (signature === undefined && reference === undefined) {
    return payloadInvalid('payment header: payload.signature or payload.reference is required');
  }
  const payment: X402Payment = { form: isV2 ? 'v2' : 'v1', x402Version: data.x402Version, scheme, network };
  if (signature !== undefined) payment.signature = signature;
  if (reference !== undefined) payment.reference = reference;
  if (payerSig !== undefined) payment.payerSig = payerSig;
  return { ok: true, payment };
}

/** For clients: the v2 header value (`accepted` form) for a payment. */
export function encodePaymentHeader(p: {
  network: string;
  signature?: string;
  reference?: string;
  payerSig: string;
}): string {
  const payload: Record<string, string> = {};
  if (p.signature !== undefined) payload.signature = p.signature;
  if (p.reference !== undefined) payload.reference = p.reference;
  payload.payerSig = p.payerSig;
  return encodeBase64Json({
    x402Version: X402_VERSION,
    accepted: { scheme: X402_SCHEME, network: p.network },
    payload,
  });
}

/** The settlement receipt sent in PAYMENT-RESPONSE and X-PAYMENT-RESPONSE (same value). */
export const x402SettlementReceiptSchema = z.object({
  success: z.boolean(),
  payer: base58AddressSchema,
  /** The payment transaction's signature. */
  transaction: base58SignatureSchema,
  network: caip2NetworkSchema,
  /** Smallest units transferred by the payment instruction, decimal string. */
  amount: amountStringSchema,
});
export type X402SettlementReceipt = z.infer<typeof x402SettlementReceiptSchema>;

export function encodeSettlementReceipt(receipt: X402SettlementReceipt): string {
  return encodeBase64Json(x402SettlementReceiptSchema.parse(receipt));
}

/** For clients: the receipt from a PAYMENT-RESPONSE header, or null. */
export function decodeSettlementReceipt(value: string): X402SettlementReceipt | null {
  const parsed = x402SettlementReceiptSchema.safeParse(decodeBase64Json(value));
  return parsed.success ? parsed.data : null;
}
