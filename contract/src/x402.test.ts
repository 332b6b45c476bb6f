import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  X402_HEADERS,
  caip2FromGenesisHash,
  canonicalPath,
  canonicalQuery,
  canonicalRequest,
  decodeBase64Json,
  decodeChallengeHeader,
  decodeSettlementReceipt,
  deriveReference,
  encodeChallengeHeader,
  encodePaymentHeader,
  encodeSettlementReceipt,
  parsePaymentHeader,
  redeemMessage,
  requestHash,
  x402ChallengeSchema,
  type X402Challenge,
} from './x402';

interface Vector {
  note: string;
  method: string;
  path: string;
  query: string;
  body?: string;
  bodyBase64?: string;
  domainTag: string;
  nonce: string;
  payer: string;
  canonical: string;
  requestHash: string;
  reference: string;
}

// Canonical strings in this file were written by hand; hashes and references come from python3 hashlib
// (docs/x402-vectors.gen.py), so these tests check the TypeScript against an independent derivation.
const vectors: Vector[] = JSON.parse(readFileSync(new URL('../../docs/x402-vectors.json', import.meta.url), 'utf8'));

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const SIG = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
const REF = 'Fv7rX4AbK2R4R1wmtTv4CWYXtehM8oH25tkMyiQxa6j1';
const PAYER = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const MINT = 'So11111111111111111111111111111111111111112';

describe('canonical request vectors (docs/x402-vectors.json)', () => {
  it('has at least 12 vectors', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(12);
  });
  for (const v of vectors) {
    it(v.note, () => {
      const body = v.bodyBase64 !== undefined ? Buffer.from(v.bodyBase64, 'base64') : Buffer.from(v.body ?? '', 'utf8');
      const canonical = canonicalRequest({
        method: v.method,
        path: v.path,
        query: v.query,
        body: new Uint8Array(body),
      });
      expect(canonical).toBe(v.canonical);
      expect(requestHash(canonical)).toBe(v.requestHash);
      expect(deriveReference({ domainTag: v.domainTag, canonical, nonce: v.nonce, payer: v.payer })).toBe(v.reference);
    });
  }
});

describe('canonicalization rules', () => {
  it('keeps %2F inside a segment (segment count unchanged)', () => {
    expect(canonicalPath('/a%2fb/c')).toBe('/a%2Fb/c');
    expect(canonicalPath('/a%2fb/c')).not.toBe(canonicalPath('/a/b/c'));
  });
  it('distinguishes case and trailing slashes', () => {
    expect(canonicalPath('/v1/resolve/Alice')).not.toBe(canonicalPath('/v1/resolve/alice'));
    expect(canonicalPath('/v1/resolve/alice/')).toBe('/v1/resolve/alice/');
  });
  it('is idempotent', () => {
    for (const v of vectors) {
      const p = canonicalPath(v.path);
      expect(canonicalPath(p)).toBe(p);
      const q = canonicalQuery(v.query);
      expect(canonicalQuery(q)).toBe(q);
    }
  });
  it('re-encodes percent-decoded bytes that are not UTF-8 byte for byte', () => {
    expect(canonicalPath('/%ff%FE')).toBe('/%FF%FE');
    expect(canonicalQuery('k=%80')).toBe('k=%80');
  });
  it('treats + as space only in the query', () => {
    expect(canonicalPath('/a+b')).toBe('/a%2Bb');
    expect(canonicalQuery('a+b=c+d')).toBe('a%20b=c%20d');
  });
  it('empty query stays empty; a query of only separators is empty', () => {
    expect(canonicalQuery('')).toBe('');
    expect(canonicalQuery('&&&')).toBe('');
  });
  it('a body changes the hash for POST but not for GET', () => {
    const body = new TextEncoder().encode('x');
    expect(canonicalRequest({ method: 'POST', path: '/', query: '', body })).not.toBe(
      canonicalRequest({ method: 'POST', path: '/', query: '' }),
    );
    expect(canonicalRequest({ method: 'GET', path: '/', query: '', body })).toBe(
      canonicalRequest({ method: 'GET', path: '/', query: '' }),
    );
  });
});

describe('signed strings', () => {
  it('redeem message is literal', () => {
    expect(redeemMessage('api.sigil.test', REF)).toBe(`sigil-x402-redeem:v1|api.sigil.test\nreference:${REF}`);
  });
  it('reference depends on the nonce and on the payer', () => {
    const canonical = vectors[0]!.canonical;
    const base = { domainTag: 'api.sigil.test', canonical, nonce: 'n', payer: PAYER };
    expect(deriveReference(base)).not.toBe(deriveReference({ ...base, nonce: 'm' }));
    expect(deriveReference(base)).not.toBe(deriveReference({ ...base, payer: MINT }));
  });
});

describe('CAIP-2', () => {
  it('takes the first 32 characters of the genesis hash', () => {
    expect(caip2FromGenesisHash('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d')).toBe(
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    );
  });
  it('rejects a non-base58 genesis hash', () => {
    expect(() => caip2FromGenesisHash('0OIl'.repeat(11))).toThrow();
    expect(() => caip2FromGenesisHash('short')).toThrow();
  });
});

describe('parsePaymentHeader', () => {
  it('accepts the v1 form with signature', () => {
    const header = b64(
      JSON.stringify({
        x402Version: 1,
        scheme: 'exact',
        network: 'solana:abc',
        payload: { signature: SIG, payerSig: 'sig' },
      }),
    );
    expect(parsePaymentHeader(header)).toEqual({
      ok: true,
      payment: { form: 'v1', x402Version: 1, scheme: 'exact', network: 'solana:abc', signature: SIG, payerSig: 'sig' },
    });
  });
  it('accepts the v2 accepted form with reference and no payerSig', () => {
    const header = b64(
      JSON.stringify({
        x402Version: 2,
        accepted: { scheme: 'exact', network: 'solana:abc', amount: '5' },
        payload: { reference: REF },
      }),
    );
    expect(parsePaymentHeader(header)).toEqual({
      ok: true,
      payment: { form: 'v2', x402Version: 2, scheme: 'exact', network: 'solana:abc', reference: REF },
    });
  });
  it('accepts URL-safe base64 without padding', () => {
    const json = JSON.stringify({
      x402Version: 2,
      scheme: 'exact',
      network: 'solana:a?>',
      payload: { reference: REF },
    });
    const urlSafe = Buffer.from(json).toString('base64url');
    expect(urlSafe).toMatch(/[-_]/);
    expect(parsePaymentHeader(urlSafe).ok).toBe(true);
  });
  it('round-trips encodePaymentHeader', () => {
    const header = encodePaymentHeader({ network: 'solana:abc', signature: SIG, payerSig: 'ps' });
    expect(JSON.parse(Buffer.from(header, 'base64').toString())).toEqual({
      x402Version: 2,
      accepted: { scheme: 'exact', network: 'solana:abc' },
      payload: { signature: SIG, payerSig: 'ps' },
    });
    expect(parsePaymentHeader(header)).toMatchObject({ ok: true, payment: { signature: SIG, payerSig: 'ps' } });
  });

  const invalid: Array<[string, string]> = [
    ['empty', ''],
    ['not base64', '!!!not base64!!!'],
    ['base64 of non-JSON', b64('hello')],
    ['JSON array', b64('[]')],
    ['JSON null', b64('null')],
    ['no payload', b64(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'n' }))],
    [
      'neither signature nor reference',
      b64(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'n', payload: { payerSig: 'x' } })),
    ],
    [
      'malformed signature',
      b64(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'n', payload: { signature: 'abc' } })),
    ],
    [
      'malformed reference',
      b64(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'n', payload: { reference: '0x12' } })),
    ],
    [
      'wrong scheme',
      b64(JSON.stringify({ x402Version: 1, scheme: 'upto', network: 'n', payload: { signature: SIG } })),
    ],
    [
      'wrong scheme in accepted',
      b64(JSON.stringify({ x402Version: 2, accepted: { scheme: 'upto', network: 'n' }, payload: { signature: SIG } })),
    ],
    [
      'accepted without network',
      b64(JSON.stringify({ x402Version: 2, accepted: { scheme: 'exact' }, payload: { signature: SIG } })),
    ],
    ['missing version', b64(JSON.stringify({ scheme: 'exact', network: 'n', payload: { signature: SIG } }))],
    [
      'signature not a string',
      b64(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'n', payload: { signature: 5 } })),
    ],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]).toString('base64')],
    ['too long', 'A'.repeat(9000)],
  ];
  for (const [name, header] of invalid) {
    it(`rejects ${name} with PAYMENT_PAYLOAD_INVALID`, () => {
      const result = parsePaymentHeader(header);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.code).toBe('PAYMENT_PAYLOAD_INVALID');
        expect(result.message.length).toBeGreaterThan(0);
      }
    });
  }
});

describe('challenge and receipt', () => {
  const entry = {
    scheme: 'exact' as const,
    network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    asset: MINT,
    payTo: PAYER,
    amount: '1000',
    maxTimeoutSeconds: 60 as const,
    extra: {
      feePayer: PAYER,
      reference: REF,
      requestHash: vectors[0]!.requestHash,
      redeemMessage: redeemMessage('t', REF),
    },
  };
  it('encodes the challenge as base64 JSON and decodes it back', () => {
    const challenge: X402Challenge = { x402Version: 2, accepts: [entry] };
    const header = encodeChallengeHeader(challenge);
    expect(JSON.parse(Buffer.from(header, 'base64').toString('utf8'))).toEqual(challenge);
    expect(decodeChallengeHeader(header)).toEqual(challenge);
  });
  it('a rejection carries error == code and a message', () => {
    const ok = { x402Version: 2, accepts: [entry], error: 'PAYMENT_STALE', code: 'PAYMENT_STALE', message: 'old' };
    expect(x402ChallengeSchema.safeParse(ok).success).toBe(true);
    expect(x402ChallengeSchema.safeParse({ ...ok, code: 'PAYMENT_FAILED' }).success).toBe(false);
    expect(x402ChallengeSchema.safeParse({ ...ok, message: undefined }).success).toBe(false);
    expect(x402ChallengeSchema.safeParse({ ...ok, error: 'NOT_A_CODE', code: 'NOT_A_CODE' }).success).toBe(false);
  });
  it('entry rules: amount decimal string, timeout 60, payer binding (feePayer + reference + redeemMessage) all or nothing', () => {
    const parse = (e: object) => x402ChallengeSchema.safeParse({ x402Version: 2, accepts: [e] }).success;
    expect(parse(entry)).toBe(true);
    expect(parse({ ...entry, extra: { requestHash: entry.extra.requestHash } })).toBe(true);
    expect(parse({ ...entry, extra: { ...entry.extra, reference: undefined } })).toBe(false);
    expect(parse({ ...entry, extra: { ...entry.extra, feePayer: undefined } })).toBe(false);
    expect(parse({ ...entry, extra: { ...entry.extra, redeemMessage: undefined } })).toBe(false);
    expect(parse({ ...entry, amount: 1000 })).toBe(false);
    expect(parse({ ...entry, amount: '01' })).toBe(false);
    expect(parse({ ...entry, amount: '18446744073709551616' })).toBe(false);
    expect(parse({ ...entry, maxTimeoutSeconds: 30 })).toBe(false);
    expect(parse({ ...entry, scheme: 'upto' })).toBe(false);
  });
  it('settlement receipt round-trips and is validated', () => {
    const receipt = { success: true, payer: PAYER, transaction: SIG, network: entry.network, amount: '1000' };
    const header = encodeSettlementReceipt(receipt);
    expect(JSON.parse(Buffer.from(header, 'base64').toString('utf8'))).toEqual(receipt);
    expect(decodeSettlementReceipt(header)).toEqual(receipt);
    expect(() => encodeSettlementReceipt({ ...receipt, amount: '-1' })).toThrow();
    expect(decodeSettlementReceipt(b64('{}'))).toBeNull();
  });
  it('header names', () => {
    expect(X402_HEADERS).toEqual({
      payment: 'PAYMENT-SIGNATURE',
      legacyPayment: 'X-PAYMENT',
      required: 'PAYMENT-REQUIRED',
      response: 'PAYMENT-RESPONSE',
      legacyResponse: 'X-PAYMENT-RESPONSE',
      payer: 'X-Payer',
    });
  });
  it('decodeBase64Json refuses stray characters', () => {
    expect(decodeBase64Json(b64('{}') + '*')).toBeUndefined();
    expect(decodeBase64Json(`  ${b64('{"a":1}')}  `)).toEqual({ a: 1 });
  });
});
