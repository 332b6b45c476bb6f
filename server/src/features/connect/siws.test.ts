import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58, base64 } from '@scure/base';
import type { Address } from '@solana/kit';
import { getOffchainMessageV1Encoder } from '@solana/offchain-messages';
import { checkSiwsMessage, parseSiwsMessage, verifySigninProof, type SiwsExpectation, type SiwsMessage } from './siws';

const secretKey = new Uint8Array(32).fill(5);
const WALLET = base58.encode(ed25519.getPublicKey(secretKey));
const OTHER = base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(6)));
const NONCE = 'n_Signin42';
const NOW = Date.parse('2026-03-01T12:00:00.000Z');

// The wallet-standard builder's layout (createSignInMessageText), written out for the tests.
function build(
  input: Partial<
    Record<
      | 'domain'
      | 'address'
      | 'statement'
      | 'uri'
      | 'version'
      | 'chainId'
      | 'nonce'
      | 'issuedAt'
      | 'expirationTime'
      | 'notBefore'
      | 'requestId',
      string
    >
  > & { resources?: string[] },
): string {
  let text = `${input.domain ?? 'portal.sigil.dev'} wants you to sign in with your Solana account:\n${input.address ?? WALLET}`;
  if (input.statement) text += `\n\n${input.statement}`;
  const fields: string[] = [];
  if (input.uri) fields.push(`URI: ${input.uri}`);
  if (input.version) fields.push(`Version: ${input.version}`);
  if (input.chainId) fields.push(`Chain ID: ${input.chainId}`);
  if (input.nonce) fields.push(`Nonce: ${input.nonce}`);
  if (input.issuedAt) fields.push(`Issued At: ${input.issuedAt}`);
  if (input.expirationTime) fields.push(`Expiration Time: ${input.expirationTime}`);
  if (input.notBefore) fields.push(`Not Before: ${input.notBefore}`);
  if (input.requestId) fields.push(`Request ID: ${input.requestId}`);
  if (input.resources) fields.push('Resources:', ...input.resources.map((r) => `- ${r}`));
  if (fields.length) text += `\n\n${fields.join('\n')}`;
  return text;
}

const FULL = build({
  statement: 'Sign in to the Sigil developer portal.',
  uri: 'https://portal.sigil.dev/login',
  version: '1',
  chainId: 'mainnet',
  nonce: NONCE,
  issuedAt: '2026-03-01T11:59:30.000Z',
  expirationTime: '2026-03-01T12:04:30.000Z',
  notBefore: '2026-03-01T11:59:30Z',
  requestId: 'req-1',
  resources: ['https://portal.sigil.dev/terms', 'ipfs://bafy'],
});

const EXPECT: SiwsExpectation = {
  wallet: WALLET,
  nonce: NONCE,
  allowedDomains: ['portal.sigil.dev', 'partner.example'],
  nowMs: NOW,
};

function parsed(text: string): SiwsMessage {
  const result = parseSiwsMessage(text);
  if (!result.ok) throw new Error(`parse failed: ${result.detail}`);
  return result.message;
}
const parseReason = (text: string) => {
  const r = parseSiwsMessage(text);
  return r.ok ? 'ok' : `${r.reason}: ${r.detail}`;
};
const checkReason = (text: string, expect: Partial<SiwsExpectation> = {}) => {
  const r = checkSiwsMessage(parsed(text), { ...EXPECT, ...expect });
  return r.ok ? 'ok' : r.reason;
};

describe('parseSiwsMessage', () => {
  it('parses every field of the standard layout', () => {
    expect(parsed(FULL)).toEqual({
      domain: 'portal.sigil.dev',
      address: WALLET,
      statement: 'Sign in to the Sigil developer portal.',
      uri: 'https://portal.sigil.dev/login',
      version: '1',
      chainId: 'mainnet',
      nonce: NONCE,
      issuedAt: '2026-03-01T11:59:30.000Z',
      expirationTime: '2026-03-01T12:04:30.000Z',
      notBefore: '2026-03-01T11:59:30Z',
      requestId: 'req-1',
      resources: ['https://portal.sigil.dev/terms', 'ipfs://bafy'],
    });
  });
  it('parses the minimal forms: no statement, statement only, nothing but address, trailing newline', () => {
    expect(parsed(build({ nonce: NONCE })).statement).toBeNull();
    expect(parsed(build({ nonce: NONCE })).nonce).toBe(NONCE);
    expect(parsed(build({ statement: 'Hi' })).statement).toBe('Hi');
    expect(parsed(build({})).nonce).toBeNull();
    expect(parsed(build({ nonce: NONCE }) + '\n').nonce).toBe(NONCE);
    expect(parsed(build({ statement: 'line one\nline two', nonce: NONCE })).statement).toBe('line one\nline two');
  });
  it('refuses malformed text with a precise detail', () => {
    const ok = build({ nonce: NONCE });
    expect(parseReason(ok.replace(/\n/g, '\r\n'))).toBe('malformed: CR characters are not allowed; lines end with LF');
    expect(parseReason(ok.replace('wants you to sign in', 'wants you to log in'))).toBe(
      'malformed: line 1 must be "<domain> wants you to sign in with your Solana account:"',
    );
    expect(parseReason(` wants you to sign in with your Solana account:\n${WALLET}`)).toBe(
      'malformed: line 1: the domain is empty or contains spaces',
    );
    expect(parseReason(build({ address: 'not-an-address' }))).toBe('malformed: line 2 must be a base58 wallet address');
    expect(
      parseReason(`portal.sigil.dev wants you to sign in with your Solana account:\n${WALLET}\nNonce: ${NONCE}`),
    ).toBe('malformed: line 3 must be empty');
    expect(parseReason(ok + '\nColor: blue')).toBe('malformed: unrecognized line "Color: blue"');
    expect(parseReason(ok + `\nNonce: ${NONCE}`)).toBe('malformed: field "Nonce" is repeated or out of order');
    expect(parseReason(ok + '\nURI: https://x.example')).toBe('malformed: field "URI" is repeated or out of order');
    expect(parseReason(ok + '\nIssued At: yesterday')).toBe('malformed: Issued At is not an RFC 3339 date-time');
    expect(parseReason(ok + '\nIssued At: 2026-02-30T25:00:00Z')).toBe(
      'malformed: Issued At is not an RFC 3339 date-time',
    );
    expect(parseReason(build({ uri: 'not a uri', nonce: NONCE }))).toBe('malformed: URI is not a valid URI');
    expect(parseReason(ok + '\nRequest ID:  ')).toBe('malformed: field "Request ID" is empty');
    expect(parseReason(ok + '\nResources:\n- a\nb')).toBe('malformed: unrecognized line after Resources: "b"');
    expect(parseReason(build({ statement: 'a', nonce: NONCE }) + '\n\nextra')).toBe('malformed: unexpected blank line');
    expect(parseReason(build({ statement: 'a' }).replace('\n\na', '\n\n\na'))).toBe(
      'malformed: two blank lines in a row',
    );
    expect(parseReason(build({ statement: `Welcome\nNonce: ${NONCE}` }))).toBe(
      'malformed: a field line appears inside the statement',
    );
    expect(parseReason(ok + '\u0007')).toBe('malformed: control characters are not allowed');
    expect(
      parseReason(build({ nonce: NONCE, issuedAt: '2026-03-01T12:00:00Z', expirationTime: '2026-03-01T11:00:00Z' })),
    ).toBe('malformed: Expiration Time is not after Issued At');
  });
});

describe('checkSiwsMessage', () => {
  it('accepts the full message at a time inside its window', () => {
    expect(checkReason(FULL)).toBe('ok');
  });
  it('domain must be on the allowlist (case-insensitive host)', () => {
    expect(checkReason(build({ domain: 'partner.example', nonce: NONCE }))).toBe('ok');
    expect(checkReason(build({ domain: 'Portal.Sigil.Dev', nonce: NONCE }))).toBe('ok');
    expect(checkReason(build({ domain: 'evil.example', nonce: NONCE }))).toBe('domain-not-allowed');
    expect(checkReason(build({ domain: 'portal.sigil.dev.evil.example', nonce: NONCE }))).toBe('domain-not-allowed');
    expect(checkReason(build({ domain: 'portal.sigil.dev:8443', nonce: NONCE }))).toBe('domain-not-allowed');
  });
  it('address must be the challenged wallet', () => {
    expect(checkReason(build({ address: OTHER, nonce: NONCE }))).toBe('address-mismatch');
  });
  it('nonce must be present and be this nonce', () => {
    expect(checkReason(build({ statement: 'hello' }))).toBe('nonce-missing');
    expect(checkReason(build({ nonce: 'n_Other' }))).toBe('nonce-mismatch');
    expect(checkReason(build({ nonce: NONCE + 'x' }))).toBe('nonce-mismatch');
  });
  it('times that contradict the challenge', () => {
    expect(checkReason(build({ nonce: NONCE, expirationTime: '2026-03-01T11:59:59Z' }))).toBe('expired');
    expect(checkReason(build({ nonce: NONCE, expirationTime: '2026-03-01T12:00:00Z' }))).toBe('expired');
    expect(checkReason(build({ nonce: NONCE, expirationTime: '2026-03-01T12:00:01Z' }))).toBe('ok');
    expect(checkReason(build({ nonce: NONCE, notBefore: '2026-03-01T12:10:00Z' }))).toBe('not-yet-valid');
    expect(checkReason(build({ nonce: NONCE, notBefore: '2026-03-01T12:00:30Z' }))).toBe('ok'); // within the 60 s skew
    expect(checkReason(build({ nonce: NONCE, issuedAt: '2026-03-01T13:00:00+01:00' }))).toBe('ok'); // same instant
    expect(checkReason(build({ nonce: NONCE, issuedAt: '2026-03-01T12:05:00Z' }))).toBe('issued-in-future');
    expect(checkReason(build({ nonce: NONCE, issuedAt: '2026-03-01T12:05:00Z' }), { clockSkewSeconds: 600 })).toBe(
      'ok',
    );
  });
  it('version and chain id', () => {
    expect(checkReason(build({ version: '2', nonce: NONCE }))).toBe('version-unsupported');
    expect(checkReason(build({ chainId: 'devnet', nonce: NONCE }), { allowedChainIds: ['mainnet'] })).toBe(
      'chain-id-not-allowed',
    );
    expect(checkReason(build({ chainId: 'mainnet', nonce: NONCE }), { allowedChainIds: ['mainnet'] })).toBe('ok');
  });
});

describe('verifySigninProof', () => {
  const text = build({ statement: 'Sign in', nonce: NONCE, issuedAt: '2026-03-01T11:59:50Z' });
  const bytes = new TextEncoder().encode(text);
  const v1Envelope = new Uint8Array(
    getOffchainMessageV1Encoder().encode({
      version: 1,
      requiredSignatories: [{ address: WALLET as Address }],
      content: text,
    }),
  );
  const reason = (r: ReturnType<typeof verifySigninProof>) => (r.ok ? `ok ${r.form}` : r.reason);

  it('raw bytes sent as base64, signed raw', () => {
    const result = verifySigninProof({
      ...EXPECT,
      signedMessage: base64.encode(bytes),
      signature: ed25519.sign(bytes, secretKey),
    });
    expect(result.ok && result.form).toBe('raw');
    expect(result.ok && result.message.nonce).toBe(NONCE);
  });
  it('raw bytes sent, wallet signed them inside an off-chain envelope', () => {
    expect(
      reason(verifySigninProof({ ...EXPECT, signedMessage: bytes, signature: ed25519.sign(v1Envelope, secretKey) })),
    ).toBe('ok offchain-v1');
  });
  it('the envelope itself sent as the signed bytes', () => {
    expect(
      reason(
        verifySigninProof({
          ...EXPECT,
          signedMessage: base64.encode(v1Envelope),
          signature: ed25519.sign(v1Envelope, secretKey),
        }),
      ),
    ).toBe('ok offchain-v1');
  });
  it('a signature by another key, or over other bytes', () => {
    const other = new Uint8Array(32).fill(6);
    expect(reason(verifySigninProof({ ...EXPECT, signedMessage: bytes, signature: ed25519.sign(bytes, other) }))).toBe(
      'signature-invalid',
    );
    expect(
      reason(
        verifySigninProof({
          ...EXPECT,
          signedMessage: bytes,
          signature: ed25519.sign(new TextEncoder().encode(text + ' '), secretKey),
        }),
      ),
    ).toBe('signature-invalid');
  });
  it('a valid signature over a message naming another domain is still refused', () => {
    const evil = new TextEncoder().encode(build({ domain: 'evil.example', nonce: NONCE }));
    expect(
      reason(verifySigninProof({ ...EXPECT, signedMessage: evil, signature: ed25519.sign(evil, secretKey) })),
    ).toBe('domain-not-allowed');
  });
  it('garbage', () => {
    expect(reason(verifySigninProof({ ...EXPECT, signedMessage: '%%%', signature: new Uint8Array(64) }))).toBe(
      'malformed',
    );
    expect(
      reason(
        verifySigninProof({
          ...EXPECT,
          signedMessage: base64.encode(new Uint8Array([0xc3, 0x28])),
          signature: new Uint8Array(64),
        }),
      ),
    ).toBe('malformed');
  });
});
