import { describe, expect, it } from 'vitest';
import {
  ChallengeSchema,
  DISCLAIMER,
  PROVES,
  SessionReadSchema,
  SessionSchema,
  handleControlString,
  memoString,
  parseChallengeRequest,
  parseVerifyRequest,
  parseVerifySigninRequest,
  parseVerifyTxRequest,
  walletControlString,
} from './connect';
import { ApiError } from './errors';

const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const NONCE = 'n_7QpX2kd9';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return `${e.status} ${e.code}`;
    throw e;
  }
  return 'no error';
}

describe('signed strings', () => {
  it('wallet control is the literal v2 audience-bound string', () => {
    expect(walletControlString('key_01HZX', WALLET, NONCE)).toBe(
      'sigil-connect:v2:wallet-control:key_01HZX:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM:n_7QpX2kd9',
    );
  });
  it('handle control wraps the registry statement with the epoch', () => {
    expect(handleControlString('portal.sigil.dev', 'alice', 3n, NONCE)).toBe(
      'sigil-connect:v2:handle-control:portal.sigil.dev:sigil-handles:ctl:v1:alice:3:n_7QpX2kd9',
    );
    expect(handleControlString('key_A', 'alice', 1, NONCE)).toBe(
      'sigil-connect:v2:handle-control:key_A:sigil-handles:ctl:v1:alice:1:n_7QpX2kd9',
    );
  });
  it('memo is sigil-verify:<audience>:<nonce>', () => {
    expect(memoString('key_A', NONCE)).toBe('sigil-verify:key_A:n_7QpX2kd9');
  });
  it('fixed texts', () => {
    expect(PROVES).toBe('wallet-control+attestations');
    expect(DISCLAIMER).toBe(
      'Proves current control of this handle or wallet and the listed attestations only; it is not proof of legal identity, personhood or KYC.',
    );
  });
});

describe('parseChallengeRequest', () => {
  it('accepts a handle (normalized, @ stripped) and a wallet with or without mode', () => {
    expect(parseChallengeRequest({ handle: '@Alice' })).toEqual({ kind: 'handle', handle: 'alice' });
    expect(parseChallengeRequest({ wallet: WALLET })).toEqual({ kind: 'wallet', wallet: WALLET, mode: null });
    expect(parseChallengeRequest({ wallet: WALLET, mode: 'tx' })).toEqual({
      kind: 'wallet',
      wallet: WALLET,
      mode: 'tx',
    });
    expect(parseChallengeRequest({ wallet: WALLET, mode: 'signin' })).toEqual({
      kind: 'wallet',
      wallet: WALLET,
      mode: 'signin',
    });
  });
  it('both, neither, mode without wallet → 400 INVALID_CHALLENGE_REQUEST', () => {
    expect(codeOf(() => parseChallengeRequest({ handle: 'alice', wallet: WALLET }))).toBe(
      '400 INVALID_CHALLENGE_REQUEST',
    );
    expect(codeOf(() => parseChallengeRequest({}))).toBe('400 INVALID_CHALLENGE_REQUEST');
    expect(codeOf(() => parseChallengeRequest({ mode: 'tx' }))).toBe('400 INVALID_CHALLENGE_REQUEST');
    expect(codeOf(() => parseChallengeRequest({ handle: 'alice', mode: 'signin' }))).toBe(
      '400 INVALID_CHALLENGE_REQUEST',
    );
    expect(codeOf(() => parseChallengeRequest({ wallet: WALLET, mode: 'sign' }))).toBe('400 INVALID_CHALLENGE_REQUEST');
    expect(codeOf(() => parseChallengeRequest('alice'))).toBe('400 INVALID_CHALLENGE_REQUEST');
    expect(codeOf(() => parseChallengeRequest(null))).toBe('400 INVALID_CHALLENGE_REQUEST');
  });
  it('bad base58 wallet → 400 INVALID_WALLET; bad handle → 400 INVALID_HANDLE', () => {
    expect(codeOf(() => parseChallengeRequest({ wallet: 'not-base58-0OIl' }))).toBe('400 INVALID_WALLET');
    expect(codeOf(() => parseChallengeRequest({ wallet: WALLET.slice(0, 20) }))).toBe('400 INVALID_WALLET');
    expect(codeOf(() => parseChallengeRequest({ wallet: 42 }))).toBe('400 INVALID_WALLET');
    expect(codeOf(() => parseChallengeRequest({ handle: 'Al ice' }))).toBe('400 INVALID_HANDLE');
    expect(codeOf(() => parseChallengeRequest({ handle: 'alice.x1' }))).toBe('400 INVALID_HANDLE'); // a domain, not a handle
    expect(codeOf(() => parseChallengeRequest({ handle: 7 }))).toBe('400 INVALID_HANDLE');
  });
});

describe('verify bodies', () => {
  it('verify: signer optional, must be base58 when present', () => {
    expect(parseVerifyRequest({ nonce: NONCE, signature: 'abc' })).toEqual({ nonce: NONCE, signature: 'abc' });
    expect(codeOf(() => parseVerifyRequest({ nonce: NONCE, signature: 'abc', signer: 'zz' }))).toBe(
      '400 INVALID_WALLET',
    );
    expect(codeOf(() => parseVerifyRequest({ nonce: NONCE }))).toBe('400 INVALID_SIGNATURE_ENCODING');
    expect(codeOf(() => parseVerifyRequest({ signature: 'abc' }))).toBe('400 BAD_REQUEST');
    expect(codeOf(() => parseVerifyRequest([]))).toBe('400 BAD_REQUEST');
  });
  it('verify-tx and verify-signin shapes', () => {
    expect(parseVerifyTxRequest({ nonce: NONCE, signedTransaction: 'AQ==' })).toEqual({
      nonce: NONCE,
      signedTransaction: 'AQ==',
    });
    expect(codeOf(() => parseVerifyTxRequest({ nonce: NONCE }))).toBe('400 BAD_REQUEST');
    expect(codeOf(() => parseVerifyTxRequest({ nonce: NONCE, signedTransaction: 'A'.repeat(5000) }))).toBe(
      '400 BAD_REQUEST',
    );
    expect(parseVerifySigninRequest({ nonce: NONCE, signedMessage: 'aGk=', signature: 's' })).toEqual({
      nonce: NONCE,
      signedMessage: 'aGk=',
      signature: 's',
    });
    expect(codeOf(() => parseVerifySigninRequest({ nonce: NONCE, signedMessage: 'aGk=' }))).toBe(
      '400 INVALID_SIGNATURE_ENCODING',
    );
  });
});

describe('response objects carry exactly the spec fields', () => {
  const challenge = {
    nonce: NONCE,
    handle: null,
    challenge: walletControlString('key_A', WALLET, NONCE),
    audience: 'key_A',
    signature_encoding: 'base58',
    expires_at: 1_760_000_300,
    proves: PROVES,
    disclaimer: DISCLAIMER,
  };
  it('challenge: memo optional, extra fields and other literals refused', () => {
    expect(ChallengeSchema.safeParse(challenge).success).toBe(true);
    expect(ChallengeSchema.safeParse({ ...challenge, memo: memoString('key_A', NONCE) }).success).toBe(true);
    expect(ChallengeSchema.safeParse({ ...challenge, extra: 1 }).success).toBe(false);
    expect(ChallengeSchema.safeParse({ ...challenge, signature_encoding: 'base64' }).success).toBe(false);
    expect(ChallengeSchema.safeParse({ ...challenge, disclaimer: 'x' }).success).toBe(false);
    expect(Object.keys(ChallengeSchema.shape).sort()).toEqual([
      'audience',
      'challenge',
      'disclaimer',
      'expires_at',
      'handle',
      'memo',
      'nonce',
      'proves',
      'signature_encoding',
    ]);
  });
  it('session has token fields, session read has not', () => {
    const read = {
      handle: 'alice',
      address: WALLET,
      verified: ['x'],
      source: 'owner',
      proves: PROVES,
      disclaimer: DISCLAIMER,
    };
    const session = { token: 'eyJ…', token_type: 'Bearer', expires_at: 1_760_086_400, ...read };
    expect(SessionSchema.safeParse(session).success).toBe(true);
    expect(SessionReadSchema.safeParse(read).success).toBe(true);
    expect(SessionReadSchema.safeParse(session).success).toBe(false);
    expect(SessionSchema.safeParse({ ...session, source: 'holder' }).success).toBe(false);
    expect(Object.keys(SessionSchema.shape).sort()).toEqual([
      'address',
      'disclaimer',
      'expires_at',
      'handle',
      'proves',
      'source',
      'token',
      'token_type',
      'verified',
    ]);
  });
});
