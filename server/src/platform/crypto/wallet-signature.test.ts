import { describe, expect, it } from 'vitest';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { base58, base64, base64nopad } from '@scure/base';
import type { Address } from '@solana/kit';
import {
  getOffchainMessageV0Encoder,
  getOffchainMessageV1Encoder,
  offchainMessageContentRestrictedAsciiOf1232BytesMax,
  offchainMessageContentUtf8Of1232BytesMax,
  type OffchainMessageApplicationDomain,
  type OffchainMessageV0,
} from '@solana/offchain-messages';
import { walletControlString } from '@sigil/contract/connect';
import {
  decodeSignature,
  isSmallOrderPublicKey,
  openOffchainMessage,
  verifyEd25519,
  verifyWalletMessage,
  verifyWalletMessageAsync,
  verifyWalletSignedBytes,
} from './wallet-signature';

// Real keypairs, signed with @noble/curves (independent of the verifier, which uses node:crypto).
function keypair(seedByte: number) {
  const secretKey = new Uint8Array(32).fill(seedByte);
  const publicKey = ed25519.getPublicKey(secretKey);
  return { secretKey, publicKey, address: base58.encode(publicKey) };
}
const alice = keypair(1);
const bob = keypair(2);
const enc = new TextEncoder();
const sign = (bytes: Uint8Array, who = alice) => ed25519.sign(bytes, who.secretKey);

const MESSAGE = walletControlString('key_A', alice.address, 'n_1');
const ZERO_DOMAIN = '11111111111111111111111111111111' as OffchainMessageApplicationDomain;

// Envelopes built the way signers build them, independently of the verifier's candidate builder.
const SIGNING_DOMAIN_HEX = 'ff736f6c616e61206f6666636861696e'; // \xff "solana offchain"
function kitV0(text: string, signer: string, domain: string = ZERO_DOMAIN): Uint8Array {
  const base = {
    version: 0,
    applicationDomain: domain as OffchainMessageApplicationDomain,
    requiredSignatories: [{ address: signer as Address }],
  } as const;
  const message: OffchainMessageV0 = /^[\x20-\x7e]+$/.test(text)
    ? { ...base, content: offchainMessageContentRestrictedAsciiOf1232BytesMax(text) }
    : { ...base, content: offchainMessageContentUtf8Of1232BytesMax(text) };
  return new Uint8Array(getOffchainMessageV0Encoder().encode(message));
}
function kitV1(text: string, signer: string): Uint8Array {
  return new Uint8Array(
    getOffchainMessageV1Encoder().encode({
      version: 1,
      requiredSignatories: [{ address: signer as Address }],
      content: text,
    }),
  );
}
/** Ledger app < 1.8: signing domain, version 0, format, u16 LE length, message. */
function ledgerLegacy(text: string, format: number): Uint8Array {
  const body = enc.encode(text);
  const header = Buffer.from(SIGNING_DOMAIN_HEX + '00' + format.toString(16).padStart(2, '0'), 'hex');
  const length = Buffer.from([body.length & 0xff, body.length >> 8]);
  return new Uint8Array(Buffer.concat([header, length, body]));
}

// The synchronous verifier and the thread-pool one run the same rules over the same candidates: one suite, both.
describe.each([
  ['verifyWalletMessage', verifyWalletMessage],
  ['verifyWalletMessageAsync', verifyWalletMessageAsync],
] as const)('%s', (_name, verifyFn) => {
  const verify = async (input: Parameters<typeof verifyWalletMessage>[0]) => verifyFn(input);
  it('accepts a signature over the raw bytes (string or bytes)', async () => {
    const signature = sign(enc.encode(MESSAGE));
    expect(await verify({ message: MESSAGE, signature, signer: alice.address })).toEqual({ ok: true, form: 'raw' });
    expect(await verify({ message: enc.encode(MESSAGE), signature, signer: alice.address })).toEqual({
      ok: true,
      form: 'raw',
    });
  });

  it('accepts the SIMD-0048 v0 envelope (kit layout, zero application domain)', async () => {
    const envelope = kitV0(MESSAGE, alice.address);
    expect(Buffer.from(envelope.subarray(0, 17)).toString('hex')).toBe(SIGNING_DOMAIN_HEX + '00');
    expect(await verify({ message: MESSAGE, signature: sign(envelope), signer: alice.address })).toEqual({
      ok: true,
      form: 'offchain-v0',
    });
  });

  it('accepts the v0 envelope of a multi-line message, with kit (UTF-8) or Ledger (ASCII incl. LF) format byte', async () => {
    const text = 'example.com wants you to sign in with your Solana account:\n' + alice.address + '\n\nNonce: n_1';
    const kitEnvelope = kitV0(text, alice.address);
    expect(kitEnvelope[49]).toBe(1); // kit: LF is not restricted ASCII
    expect(await verify({ message: text, signature: sign(kitEnvelope), signer: alice.address })).toEqual({
      ok: true,
      form: 'offchain-v0',
    });
    const ledgerEnvelope = kitEnvelope.slice();
    ledgerEnvelope[49] = 0; // Ledger's builder counts LF as printable ASCII
    expect(await verify({ message: text, signature: sign(ledgerEnvelope), signer: alice.address })).toEqual({
      ok: true,
      form: 'offchain-v0',
    });
  });

  it('accepts the SIMD-0048 v1 envelope', async () => {
    const envelope = kitV1(MESSAGE, alice.address);
    expect(envelope[16]).toBe(1);
    expect(await verify({ message: MESSAGE, signature: sign(envelope), signer: alice.address })).toEqual({
      ok: true,
      form: 'offchain-v1',
    });
  });

  it('accepts the legacy Ledger header', async () => {
    const envelope = ledgerLegacy(MESSAGE, 0);
    expect(envelope.length).toBe(20 + MESSAGE.length);
    expect(await verify({ message: MESSAGE, signature: sign(envelope), signer: alice.address })).toEqual({
      ok: true,
      form: 'offchain-ledger',
    });
  });

  it('accepts a v0 envelope with a configured non-zero application domain only when configured', async () => {
    const domain = bob.address; // any 32 bytes
    const signature = sign(kitV0(MESSAGE, alice.address, domain));
    expect(await verify({ message: MESSAGE, signature, signer: alice.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(
      await verify({ message: MESSAGE, signature, signer: alice.address, applicationDomains: [ZERO_DOMAIN, domain] }),
    ).toEqual({
      ok: true,
      form: 'offchain-v0',
    });
  });

  it('rejects a wrong signer', async () => {
    const signature = sign(enc.encode(MESSAGE), bob);
    expect(await verify({ message: MESSAGE, signature, signer: alice.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('rejects a tampered message', async () => {
    const signature = sign(enc.encode(MESSAGE));
    expect(await verify({ message: MESSAGE + 'x', signature, signer: alice.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const flipped = signature.slice();
    flipped[10] ^= 1;
    expect(await verify({ message: MESSAGE, signature: flipped, signer: alice.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('rejects wrong lengths and malformed signers', async () => {
    const signature = sign(enc.encode(MESSAGE));
    expect(await verify({ message: MESSAGE, signature: signature.subarray(0, 63), signer: alice.address })).toEqual({
      ok: false,
      reason: 'invalid-signature-length',
    });
    expect((await verify({ message: MESSAGE, signature: new Uint8Array(65), signer: alice.address })).ok).toBe(false);
    expect(await verify({ message: MESSAGE, signature, signer: 'not-an-address' })).toEqual({
      ok: false,
      reason: 'invalid-signer',
    });
    expect(await verify({ message: MESSAGE, signature, signer: base58.encode(new Uint8Array(31).fill(9)) })).toEqual({
      ok: false,
      reason: 'invalid-signer',
    });
  });

  it("rejects a signature over a different envelope's bytes", async () => {
    // An envelope naming another signer, or wrapping another message, is not this message's envelope.
    const otherSigner = sign(kitV0(MESSAGE, bob.address));
    expect(await verify({ message: MESSAGE, signature: otherSigner, signer: alice.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const otherMessage = sign(kitV1(MESSAGE + ' ', alice.address));
    expect(await verify({ message: MESSAGE, signature: otherMessage, signer: alice.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const wrongLength = ledgerLegacy(MESSAGE, 0);
    wrongLength[18] += 1; // header length no longer matches the message
    expect(await verify({ message: MESSAGE, signature: sign(wrongLength), signer: alice.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const unknownVersion = kitV1(MESSAGE, alice.address);
    unknownVersion[16] = 2;
    expect(await verify({ message: MESSAGE, signature: sign(unknownVersion), signer: alice.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('rejects a v1 (unbound) string signature presented for a v2 challenge', async () => {
    const v1 = `sigil-connect:v1:wallet-control:${alice.address}:n_1`;
    for (const signed of [enc.encode(v1), kitV0(v1, alice.address), kitV1(v1, alice.address), ledgerLegacy(v1, 0)]) {
      expect(await verify({ message: MESSAGE, signature: sign(signed), signer: alice.address })).toEqual({
        ok: false,
        reason: 'mismatch',
      });
    }
  });

  it('refuses small-order public keys, for which OpenSSL would accept a forged signature', async () => {
    const identity = new Uint8Array(32);
    identity[0] = 1;
    const R = ed25519.Point.BASE.multiply(5n).toBytes();
    const S = new Uint8Array(32);
    S[0] = 5; // [S]B = R and [k]A = identity, so the cofactorless equation holds for every message
    const forged = new Uint8Array([...R, ...S]);
    expect(isSmallOrderPublicKey(identity)).toBe(true);
    expect(verifyEd25519(forged, enc.encode(MESSAGE), identity)).toBe(false);
    expect(await verify({ message: MESSAGE, signature: forged, signer: base58.encode(identity) })).toEqual({
      ok: false,
      reason: 'weak-signer',
    });
    const nonCanonicalIdentity = Buffer.from('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex');
    expect(isSmallOrderPublicKey(nonCanonicalIdentity)).toBe(true);
    expect(isSmallOrderPublicKey(alice.publicKey)).toBe(false);
  });

  it('refuses every small-order point, whichever sign bit it carries', async () => {
    for (const hex of ED25519_TORSION_SUBGROUP) {
      const point = Buffer.from(hex, 'hex');
      const flipped = Buffer.from(point);
      flipped[31]! ^= 0x80;
      for (const key of [point, flipped]) {
        expect(isSmallOrderPublicKey(key)).toBe(true);
        const signer = base58.encode(key);
        expect(await verify({ message: MESSAGE, signature: sign(enc.encode(MESSAGE)), signer })).toEqual({
          ok: false,
          reason: 'weak-signer',
        });
      }
    }
  });

  it('checks a signer seen before as strictly as a new one (its imported key is kept)', async () => {
    const carol = keypair(3);
    const signature = sign(enc.encode(MESSAGE), carol);
    expect(await verify({ message: MESSAGE, signature, signer: carol.address })).toEqual({ ok: true, form: 'raw' });
    expect(await verify({ message: MESSAGE + '.', signature, signer: carol.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(await verify({ message: MESSAGE, signature: sign(enc.encode(MESSAGE)), signer: carol.address })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(await verify({ message: MESSAGE, signature: signature.subarray(0, 63), signer: carol.address })).toEqual({
      ok: false,
      reason: 'invalid-signature-length',
    });
  });
});

describe('verifyWalletSignedBytes (client presents what was signed)', () => {
  const text = 'example.com wants you to sign in with your Solana account:\n' + alice.address + '\n\nNonce: n_1';
  it('raw bytes → raw form, message unchanged', () => {
    const bytes = enc.encode(text);
    const result = verifyWalletSignedBytes({ signedBytes: bytes, signature: sign(bytes), signer: alice.address });
    expect(result).toEqual({ ok: true, form: 'raw', message: bytes });
  });
  it('a complete envelope (any application domain) → its inner message', () => {
    for (const [envelope, form] of [
      [kitV0(text, alice.address, bob.address), 'offchain-v0'],
      [kitV1(text, alice.address), 'offchain-v1'],
      [ledgerLegacy(text, 1), 'offchain-ledger'],
    ] as const) {
      const result = verifyWalletSignedBytes({
        signedBytes: envelope,
        signature: sign(envelope),
        signer: alice.address,
      });
      expect(result.ok && result.form).toBe(form);
      expect(result.ok && new TextDecoder().decode(result.message)).toBe(text);
    }
  });
  it('an envelope naming another signer is refused even when signed by the claimed signer', () => {
    const envelope = kitV1(text, bob.address);
    expect(
      verifyWalletSignedBytes({ signedBytes: envelope, signature: sign(envelope), signer: alice.address }),
    ).toEqual({
      ok: false,
      reason: 'signer-not-in-envelope',
    });
  });
  it('an envelope signed by someone else is refused', () => {
    const envelope = kitV0(text, alice.address);
    expect(
      verifyWalletSignedBytes({ signedBytes: envelope, signature: sign(envelope, bob), signer: alice.address }),
    ).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });
  it('openOffchainMessage: null for plain text and for broken envelopes', () => {
    expect(openOffchainMessage(enc.encode(text))).toBeNull();
    const broken = ledgerLegacy(text, 1);
    broken[19] = 0xff;
    expect(openOffchainMessage(broken)).toBeNull();
    expect(openOffchainMessage(kitV1(text, alice.address))?.signatories).toEqual([alice.address]);
  });
});

describe('decodeSignature', () => {
  const signature = sign(enc.encode(MESSAGE));
  it('base58 → 64 bytes', () => {
    expect(decodeSignature(base58.encode(signature))).toEqual({ ok: true, bytes: signature, encoding: 'base58' });
  });
  it('base64 only when allowed (padded and unpadded)', () => {
    expect(decodeSignature(base64.encode(signature)).ok).toBe(false);
    expect(decodeSignature(base64.encode(signature), { allowBase64: true })).toEqual({
      ok: true,
      bytes: signature,
      encoding: 'base64',
    });
    expect(decodeSignature(base64nopad.encode(signature), { allowBase64: true })).toEqual({
      ok: true,
      bytes: signature,
      encoding: 'base64',
    });
  });
  it('typed errors: empty, not decodable, wrong length', () => {
    expect(decodeSignature('')).toMatchObject({ ok: false, reason: 'empty' });
    expect(decodeSignature('0OIl+/')).toMatchObject({
      ok: false,
      reason: 'not-decodable',
      message: 'signature is not base58',
    });
    expect(decodeSignature(base58.encode(signature.subarray(0, 63)))).toMatchObject({
      ok: false,
      reason: 'wrong-length',
      message: 'signature must be 64 bytes (got 63)',
    });
    expect(decodeSignature(base64.encode(new Uint8Array(65)), { allowBase64: true })).toMatchObject({
      ok: false,
      reason: 'wrong-length',
    });
    expect(decodeSignature('1'.repeat(200))).toMatchObject({ ok: false, reason: 'wrong-length' });
  });
});
