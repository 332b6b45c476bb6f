// /v1/auth/verify-signin: parse a Sign-In-With-Solana message (the wallet-standard `solana:signIn` text, an
// EIP-4361 sibling) and check it against the challenge. Pure: no I/O; the caller passes the clock.
//
// The format, as wallets produce it (fields optional except where we say, in this order, each at most once):
//
//   <domain> wants you to sign in with your Solana account:
//   <address>
//
//   <statement>                      (optional, one or more non-blank lines)
//
//   URI: <uri>
//   Version: 1
//   Chain ID: <chain id>
//   Nonce: <nonce>                   (required by us: it must be this challenge's nonce)
//   Issued At: <RFC 3339>
//   Expiration Time: <RFC 3339>
//   Not Before: <RFC 3339>
//   Request ID: <text>
//   Resources:
//   - <resource>
//
// We parse line by line rather than with one regular expression so that every refusal names its cause.
// Anything outside the grammar (unknown line, repeated or reordered field, CR, control characters) is
// `malformed`: a wallet shows the user this text, so ambiguity in it is not tolerated.

import { base64, base64nopad } from '@scure/base';
import { isBase58Address } from '@sigil/contract/names';
import {
  openOffchainMessage,
  verifyWalletSignedBytes,
  type WalletMessageForm,
} from '../../platform/crypto/wallet-signature';

export const SIWS_HEADER_SUFFIX = ' wants you to sign in with your Solana account:';

const FIELD_ORDER = [
  'URI',
  'Version',
  'Chain ID',
  'Nonce',
  'Issued At',
  'Expiration Time',
  'Not Before',
  'Request ID',
] as const;
type FieldName = (typeof FIELD_ORDER)[number];
const RESOURCES = 'Resources:';

export interface SiwsMessage {
  domain: string;
  address: string;
  statement: string | null;
  uri: string | null;
  version: string | null;
  chainId: string | null;
  nonce: string | null;
  issuedAt: string | null;
  expirationTime: string | null;
  notBefore: string | null;
  requestId: string | null;
  resources: string[] | null;
}

export type SiwsFailureReason =
  | 'malformed'
  | 'domain-not-allowed'
  | 'address-mismatch'
  | 'nonce-missing'
  | 'nonce-mismatch'
  | 'version-unsupported'
  | 'chain-id-not-allowed'
  | 'expired'
  | 'not-yet-valid'
  | 'issued-in-future'
  | 'signature-invalid';

export type SiwsFailure = { ok: false; reason: SiwsFailureReason; detail: string };
const fail = (reason: SiwsFailureReason, detail: string): SiwsFailure => ({ ok: false, reason, detail });

const FIELD_KEYS: Record<FieldName, keyof SiwsMessage> = {
  URI: 'uri',
  Version: 'version',
  'Chain ID': 'chainId',
  Nonce: 'nonce',
  'Issued At': 'issuedAt',
  'Expiration Time': 'expirationTime',
  'Not Before': 'notBefore',
  'Request ID': 'requestId',
};

// RFC 3339 date-time (what `Date#toISOString` and every SIWS builder emit).
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;
// C0 controls other than LF, and DEL.
const FORBIDDEN_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f]/;

function startsField(line: string): boolean {
  return line === RESOURCES || FIELD_ORDER.some((name) => line.startsWith(`${name}: `));
}

const shorten = (line: string) => JSON.stringify(line.length > 40 ? `${line.slice(0, 40)}…` : line);

/** Parses the message text. Only grammar is checked here; `checkSiwsMessage` compares it with a challenge. */
export function parseSiwsMessage(text: string): { ok: true; message: SiwsMessage } | SiwsFailure {
  if (text.includes('\r')) return fail('malformed', 'CR characters are not allowed; lines end with LF');
  if (FORBIDDEN_CONTROLS.test(text)) return fail('malformed', 'control characters are not allowed');
  const lines = text.split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop(); // a trailing newline is harmless

  const head = parseHeader(lines);
  if (!head.ok) return head;
  const message: SiwsMessage = {
    domain: head.domain,
    address: head.address,
    statement: null,
    uri: null,
    version: null,
    chainId: null,
    nonce: null,
    issuedAt: null,
    expirationTime: null,
    notBefore: null,
    requestId: null,
    resources: null,
  };
  const rest = lines.slice(2);
  if (rest.length === 0) return { ok: true, message };
  if (rest[0] !== '') return fail('malformed', 'line 3 must be empty');

  const body = splitBody(rest.slice(1));
  if (!body.ok) return body;
  message.statement = body.statement;
  const problem = readFields(body.fieldLines, message) ?? checkFieldValues(message);
  return problem ?? { ok: true, message };
}

/** Line 1 `<domain> wants you to sign in…`, line 2 the base58 address. */
function parseHeader(lines: readonly string[]): { ok: true; domain: string; address: string } | SiwsFailure {
  const header = lines[0] ?? '';
  if (!header.endsWith(SIWS_HEADER_SUFFIX)) {
    return fail('malformed', `line 1 must be "<domain>${SIWS_HEADER_SUFFIX}"`);
  }
  const domain = header.slice(0, -SIWS_HEADER_SUFFIX.length);
  if (domain.length === 0 || /\s/.test(domain)) {
    return fail('malformed', 'line 1: the domain is empty or contains spaces');
  }
  const address = lines[1];
  if (address === undefined || !isBase58Address(address)) {
    return fail('malformed', 'line 2 must be a base58 wallet address');
  }
  return { ok: true, domain, address };
}

/** The lines after line 3: blocks separated by one blank line, [statement], [fields] or [statement, fields]. */
function splitBody(
  lines: readonly string[],
): { ok: true; statement: string | null; fieldLines: string[] } | SiwsFailure {
  const blocks: string[][] = [[]];
  for (const line of lines) {
    if (line === '') {
      if (blocks[blocks.length - 1]!.length === 0) return fail('malformed', 'two blank lines in a row');
      blocks.push([]);
    } else {
      blocks[blocks.length - 1]!.push(line);
    }
  }
  if (blocks[0]!.length === 0) return fail('malformed', 'two blank lines in a row');
  if (blocks.length > 2) return fail('malformed', 'unexpected blank line');
  let statement: string | null = null;
  let fieldLines: string[] = [];
  if (blocks.length === 2) {
    statement = blocks[0]!.join('\n');
    fieldLines = blocks[1]!;
    if (!startsField(fieldLines[0]!)) return fail('malformed', `unrecognized line ${shorten(fieldLines[0]!)}`);
  } else if (startsField(blocks[0]![0]!)) {
    fieldLines = blocks[0]!;
  } else {
    statement = blocks[0]!.join('\n');
  }
  if (statement !== null && statement.split('\n').some(startsField)) {
    return fail('malformed', 'a field line appears inside the statement');
  }
  return { ok: true, statement, fieldLines };
}

/** Reads the `Name: value` lines (each at most once, in FIELD_ORDER) and Resources into `message`. */
function readFields(fieldLines: readonly string[], message: SiwsMessage): SiwsFailure | null {
  let position = -1;
  for (let i = 0; i < fieldLines.length; i++) {
    const line = fieldLines[i]!;
    if (line === RESOURCES) {
      const items = fieldLines.slice(i + 1);
      const bad = items.find((item) => !item.startsWith('- ') || item.length === 2);
      if (bad !== undefined) return fail('malformed', `unrecognized line after Resources: ${shorten(bad)}`);
      message.resources = items.map((item) => item.slice(2));
      break;
    }
    const index = FIELD_ORDER.findIndex((name) => line.startsWith(`${name}: `));
    if (index === -1) return fail('malformed', `unrecognized line ${shorten(line)}`);
    if (index <= position) return fail('malformed', `field "${FIELD_ORDER[index]}" is repeated or out of order`);
    position = index;
    const name = FIELD_ORDER[index]!;
    const value = line.slice(name.length + 2);
    if (value.trim() === '') return fail('malformed', `field "${name}" is empty`);
    (message as unknown as Record<string, string>)[FIELD_KEYS[name]] = value;
  }
  return null;
}

/** The URI parses, the times are RFC 3339, and the expiration follows the issue and not-before times. */
function checkFieldValues(message: SiwsMessage): SiwsFailure | null {
  if (message.uri !== null) {
    try {
      new URL(message.uri);
    } catch {
      return fail('malformed', 'URI is not a valid URI');
    }
  }
  for (const [name, value] of [
    ['Issued At', message.issuedAt],
    ['Expiration Time', message.expirationTime],
    ['Not Before', message.notBefore],
  ] as const) {
    if (value !== null && (!RFC3339.test(value) || Number.isNaN(Date.parse(value)))) {
      return fail('malformed', `${name} is not an RFC 3339 date-time`);
    }
  }
  const issued = message.issuedAt === null ? null : Date.parse(message.issuedAt);
  const expires = message.expirationTime === null ? null : Date.parse(message.expirationTime);
  const notBefore = message.notBefore === null ? null : Date.parse(message.notBefore);
  if (expires !== null && issued !== null && expires <= issued) {
    return fail('malformed', 'Expiration Time is not after Issued At');
  }
  if (expires !== null && notBefore !== null && expires <= notBefore) {
    return fail('malformed', 'Expiration Time is not after Not Before');
  }
  return null;
}

export interface SiwsExpectation {
  /** The challenged wallet: line 2 must be exactly this address. */
  wallet: string;
  /** This challenge's nonce: the `Nonce:` line must carry exactly this. */
  nonce: string;
  /** Domains a sign-in message may name (host, or host:port); compared case-insensitively. */
  allowedDomains: readonly string[];
  /** The server's clock, Unix milliseconds. */
  nowMs: number;
  /** Tolerance for clients whose clock runs ahead (Issued At, Not Before). Default 60 s. */
  clockSkewSeconds?: number;
  /** When set, a present `Chain ID:` must be one of these. */
  allowedChainIds?: readonly string[];
}

export const DEFAULT_SIWS_CLOCK_SKEW_SECONDS = 60;

/** Compares a parsed message with the challenge: domain, address, nonce, and times that contradict it. */
export function checkSiwsMessage(message: SiwsMessage, expect: SiwsExpectation): { ok: true } | SiwsFailure {
  const domain = message.domain.toLowerCase();
  if (!expect.allowedDomains.some((allowed) => allowed.toLowerCase() === domain)) {
    return fail('domain-not-allowed', `sign-in domain "${message.domain}" is not allowed`);
  }
  if (message.address !== expect.wallet) return fail('address-mismatch', 'line 2 is not the challenged wallet');
  if (message.nonce === null) return fail('nonce-missing', 'the message has no Nonce line');
  if (message.nonce !== expect.nonce) return fail('nonce-mismatch', "the Nonce is not this challenge's nonce");
  if (message.version !== null && message.version !== '1') return fail('version-unsupported', 'Version must be 1');
  if (message.chainId !== null && expect.allowedChainIds && !expect.allowedChainIds.includes(message.chainId)) {
    return fail('chain-id-not-allowed', `Chain ID "${message.chainId}" is not this deployment's chain`);
  }
  const skewMs = (expect.clockSkewSeconds ?? DEFAULT_SIWS_CLOCK_SKEW_SECONDS) * 1000;
  if (message.expirationTime !== null && Date.parse(message.expirationTime) <= expect.nowMs) {
    return fail('expired', 'the message has expired (Expiration Time is past)');
  }
  if (message.notBefore !== null && Date.parse(message.notBefore) > expect.nowMs + skewMs) {
    return fail('not-yet-valid', 'the message is not valid yet (Not Before is in the future)');
  }
  if (message.issuedAt !== null && Date.parse(message.issuedAt) > expect.nowMs + skewMs) {
    return fail('issued-in-future', 'Issued At is in the future');
  }
  return { ok: true };
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** base64, padded or not (wallets send both); null when it is neither. Also used by memo-tx.ts. */
export function decodeBase64(input: string): Uint8Array | null {
  for (const coder of [base64, base64nopad]) {
    try {
      return coder.decode(input);
    } catch {
      // try the next
    }
  }
  return null;
}

export interface SigninProofInput extends SiwsExpectation {
  /** The exact signed bytes: base64 as sent in `signedMessage`, or already decoded. May be an off-chain envelope. */
  signedMessage: string | Uint8Array;
  /** The 64-byte signature (decode it first with decodeSignature, allowing base64). */
  signature: Uint8Array;
  /** v0 application domains to try when the wallet wrapped the message itself (wallet-signature.ts). */
  applicationDomains?: readonly string[];
}

/**
 * The whole verify-signin proof: decode, unwrap an off-chain envelope if the client sent one, parse and
 * check the message (cheap, first), then verify the signature by the challenged wallet over the raw bytes or
 * an envelope. Every failure maps to 401 CONTROL_PROOF_INVALID; `reason` says why.
 */
export function verifySigninProof(
  input: SigninProofInput,
): { ok: true; form: WalletMessageForm; message: SiwsMessage } | SiwsFailure {
  const bytes = typeof input.signedMessage === 'string' ? decodeBase64(input.signedMessage) : input.signedMessage;
  if (!bytes || bytes.length === 0) return fail('malformed', 'signedMessage is not base64');
  const inner = openOffchainMessage(bytes)?.content ?? bytes;
  let text: string;
  try {
    text = utf8Strict.decode(inner);
  } catch {
    return fail('malformed', 'the message is not UTF-8');
  }
  const parsed = parseSiwsMessage(text);
  if (!parsed.ok) return parsed;
  const checked = checkSiwsMessage(parsed.message, input);
  if (!checked.ok) return checked;
  const signed = verifyWalletSignedBytes({
    signedBytes: bytes,
    signature: input.signature,
    signer: input.wallet,
    applicationDomains: input.applicationDomains,
  });
  if (!signed.ok) return fail('signature-invalid', `the signature does not verify (${signed.reason})`);
  return { ok: true, form: signed.form, message: parsed.message };
}
