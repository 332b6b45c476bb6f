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
  it('accepts the literal vector from raw bytes and from a string', async () => {
    const header = `t=${T},v1=${SIG}`;
    expect(await verifyWebhook(Buffer.from(BODY), header, SECRET, { now: T })).toEqual({
      ok: true,
      secretIndex: 0,
      timestamp: T,
    });
    expect(await verifyWebhook(BODY, header, SECRET, { now: T })).toEqual({ ok: true, secretIndex: 0, timestamp: T });
    expect((await verifyWebhook('{"memo":"café"}', `t=${T},v1=${CAFE_SIG}`, SECRET, { now: T })).ok).toBe(true);
  });

  it('supports rotation overlap: several secrets, several v1 values', async () => {
    expect(await verifyWebhook(BODY, `t=${T},v1=${OLD_SIG}`, [SECRET, OLD_SECRET], { now: T })).toEqual({
      ok: true,
      secretIndex: 1,
      timestamp: T,
    });
    expect(
      await verifyWebhook(BODY, `t=${T},v1=${'0'.repeat(64)},v1=${SIG}`, [OLD_SECRET, SECRET], { now: T }),
    ).toEqual({
      ok: true,
      secretIndex: 1,
      timestamp: T,
    });
    expect(await verifyWebhook(BODY, `t=${T},v1=${OLD_SIG}`, [SECRET], { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('rejects any change to body, timestamp or signature', async () => {
    expect(await verifyWebhook('{"id":"pev_2"}', `t=${T},v1=${SIG}`, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(await verifyWebhook(BODY + ' ', `t=${T},v1=${SIG}`, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(await verifyWebhook(BODY, `t=${T + 1},v1=${SIG}`, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    const flipped = SIG.slice(0, -1) + (SIG.endsWith('1') ? '0' : '1');
    expect(await verifyWebhook(BODY, `t=${T},v1=${flipped}`, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(await verifyWebhook(BODY, `t=${T},v1=${SIG}`, 'whsec_other', { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('enforces the timestamp tolerance (300 s default) on both sides', async () => {
    const header = `t=${T},v1=${SIG}`;
    expect((await verifyWebhook(BODY, header, SECRET, { now: T + 300 })).ok).toBe(true);
    expect((await verifyWebhook(BODY, header, SECRET, { now: T - 300 })).ok).toBe(true);
    expect(await verifyWebhook(BODY, header, SECRET, { now: T + 301 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(await verifyWebhook(BODY, header, SECRET, { now: T - 301 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect((await verifyWebhook(BODY, header, SECRET, { now: T + 1000, toleranceSeconds: 1000 })).ok).toBe(true);
    // The default clock is the system clock: a 2026 timestamp replayed far from now fails.
    expect(await verifyWebhook(BODY, `t=1000,v1=${SIG}`, SECRET)).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('rejects malformed headers and empty secrets', async () => {
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
      expect(await verifyWebhook(BODY, header, SECRET, { now: T }), String(header)).toEqual({
        ok: false,
        reason: 'malformed_header',
      });
    }
    expect(await verifyWebhook(BODY, `t=${T},v1=${SIG}`, [], { now: T })).toEqual({ ok: false, reason: 'no_secret' });
    expect(await verifyWebhook(BODY, `t=${T},v1=${SIG}`, '', { now: T })).toEqual({ ok: false, reason: 'no_secret' });
  });

  it('reads the header from a plain object or a Fetch Headers, in any case', async () => {
    const header = `t=${T},v1=${SIG}`;
    const ok = { ok: true, secretIndex: 0, timestamp: T };
    expect(await verifyWebhook(BODY, { 'Sigil-Signature': header }, SECRET, { now: T })).toEqual(ok);
    expect(await verifyWebhook(BODY, new Headers({ 'sigil-signature': header }), SECRET, { now: T })).toEqual(ok);
    expect(await verifyWebhook(BODY, new Headers(), SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
  });

  it('verifies the Standard Webhooks headers (literal vector: Python hmac over `<id>.<t>.<body>`)', async () => {
    const secret = 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';
    const signature = 'v1,tZQa4Tp8YmsHOqabHJ/zZqOGu2kPInpaS8CQIK8MqQ4=';
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(T), 'webhook-signature': signature };
    expect(await verifyWebhook(BODY, headers, ['whsec_bm90IGl0', secret], { now: T })).toEqual({
      ok: true,
      secretIndex: 1,
      timestamp: T,
    });
    expect(await verifyWebhook(BODY, { ...headers, 'webhook-id': 'msg_2' }, secret, { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    // A secret that is not base64 keys nothing; it never throws.
    expect(await verifyWebhook(BODY, headers, 'whsec_%%%', { now: T })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(await verifyWebhook(BODY, { ...headers, 'webhook-signature': 'v1,%%%' }, secret, { now: T })).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
  });

  it('ignores unknown schemes and spaces around parts', async () => {
    expect((await verifyWebhook(BODY, `t=${T}, v0=zzz, v1=${SIG}`, SECRET, { now: T })).ok).toBe(true);
    expect(parseSignatureHeader(`t=${T},v2=abc,v1=${SIG}`)).toEqual({ timestamp: T, signatures: [SIG] });
  });
});
