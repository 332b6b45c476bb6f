import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, verifyWebhook } from './webhooks';

// Vectors computed independently (Python hmac): HMAC-SHA256(key = secret UTF-8, msg = "<t>." + body).
const T = 1767225600;
const BODY = '{"id":"pev_1"}';
const SECRET = 'whsec_test_secret';
const OLD_SECRET = 'whsec_rotated';
const SIG = '7ce6c57b52259ef95fb1776167ea11ed2ad069b574bcf9cc88f7a3c0d5da3be1'; // SECRET
const OLD_SIG = 'e0dec9ee116055376f274d9f86c8ba065b61ab2ea31221276ef7ea057bc61bd4'; // OLD_SECRET
const CAFE_SIG = 'f9ebd0b7b83ad84ef928abd9ea87ebfa80cc04c58ed58bae262d89ff233fbf89'; // SECRET, body {"memo":"café"}

describe('verifyWebhook', () => {
  it('accepts the literal vector from raw bytes and from a string', () => {
    const header = `t=${T},v1=${SIG}`;
    expect(verifyWebhook(Buffer.from(BODY), header, SECRET, { now: T })).toEqual({
      ok: true,
      secretIndex: 0,
      timestamp: T,
    });
    expect(verifyWebhook(BODY, header, SECRET, { now: T })).toEqual({ ok: true, secretIndex: 0, timestamp: T });
    expect(verifyWebhook('{"memo":"café"}', `t=${T},v1=${CAFE_SIG}`, SECRET, { now: T }).ok).toBe(true);
  });

  it('supports rotation overlap: several secrets, several v1 values', () => {
    expect(verifyWebhook(BODY, `t=${T},v1=${OLD_SIG}`, [SECRET, OLD_SECRET], { now: T })).toEqual({
      ok: true,
      secretIndex: 1,
      timestamp: T,
    });
    expect(verifyWebhook(BODY, `t=${T},v1=${'0'.repeat(64)},v1=${SIG}`, [OLD_SECRET, SECRET], { now: T })).toEqual({
      ok: true,
      secretIndex: 1,
      timestamp: T,
    });
    expect(verifyWebhook(BODY, `t=${T},v1=${OLD_SIG}`, [SECRET], { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('rejects any change to body, timestamp or signature', () => {
    expect(verifyWebhook('{"id":"pev_2"}', `t=${T},v1=${SIG}`, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyWebhook(BODY + ' ', `t=${T},v1=${SIG}`, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyWebhook(BODY, `t=${T + 1},v1=${SIG}`, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    const flipped = SIG.slice(0, -1) + (SIG.endsWith('1') ? '0' : '1');
    expect(verifyWebhook(BODY, `t=${T},v1=${flipped}`, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyWebhook(BODY, `t=${T},v1=${SIG}`, 'whsec_other', { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('enforces the timestamp tolerance (300 s default) on both sides', () => {
    const header = `t=${T},v1=${SIG}`;
    expect(verifyWebhook(BODY, header, SECRET, { now: T + 300 }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, SECRET, { now: T - 300 }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, SECRET, { now: T + 301 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifyWebhook(BODY, header, SECRET, { now: T - 301 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifyWebhook(BODY, header, SECRET, { now: T + 1000, toleranceSeconds: 1000 }).ok).toBe(true);
    // The default clock is the system clock: a 2026 timestamp replayed far from now fails.
    expect(verifyWebhook(BODY, `t=1000,v1=${SIG}`, SECRET)).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('rejects malformed headers and empty secrets', () => {
    for (const header of [
      undefined,
      null,
      '',
      `v1=${SIG}`,
      `t=${T}`,
      `t=${T},v1=${SIG.toUpperCase()}`,
      `t=${T},v1=${SIG.slice(2)}`,
      `t=abc,v1=${SIG}`,
      `t=${T},t=${T},v1=${SIG}`,
      `t=-1,v1=${SIG}`,
      `t=${T};v1=${SIG}`,
      `${T},${SIG}`,
    ]) {
      expect(verifyWebhook(BODY, header, SECRET, { now: T }), String(header)).toEqual({
        ok: false,
        reason: 'malformed_header',
      });
    }
    expect(verifyWebhook(BODY, `t=${T},v1=${SIG}`, [], { now: T })).toEqual({ ok: false, reason: 'no_secret' });
    expect(verifyWebhook(BODY, `t=${T},v1=${SIG}`, '', { now: T })).toEqual({ ok: false, reason: 'no_secret' });
  });

  it('ignores unknown schemes and spaces around parts', () => {
    expect(verifyWebhook(BODY, `t=${T}, v0=zzz, v1=${SIG}`, SECRET, { now: T }).ok).toBe(true);
    expect(parseSignatureHeader(`t=${T},v2=abc,v1=${SIG}`)).toEqual({ timestamp: T, signatures: [SIG] });
  });
});
