import { describe, expect, it } from 'vitest';
import { signWebhook, webhookSignatureV1 } from './signing';

describe('signWebhook', () => {
  it('is t=<t>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)> — literal vectors', () => {
    expect(signWebhook('whsec_test_secret', 1767225600, '{"id":"pev_1"}')).toBe(
      't=1767225600,v1=7ce6c57b52259ef95fb1776167ea11ed2ad069b574bcf9cc88f7a3c0d5da3be1',
    );
    expect(signWebhook('whsec_rotated', 1767225600, '{"id":"pev_1"}')).toBe(
      't=1767225600,v1=e0dec9ee116055376f274d9f86c8ba065b61ab2ea31221276ef7ea057bc61bd4',
    );
  });

  it('signs the UTF-8 bytes: string and byte bodies agree', () => {
    const body = '{"memo":"café"}';
    const expected = 'f9ebd0b7b83ad84ef928abd9ea87ebfa80cc04c58ed58bae262d89ff233fbf89';
    expect(webhookSignatureV1('whsec_test_secret', 1767225600, body)).toBe(expected);
    expect(webhookSignatureV1('whsec_test_secret', 1767225600, new TextEncoder().encode(body))).toBe(expected);
  });

  it('rejects a non-integer timestamp', () => {
    expect(() => signWebhook('s', 1.5, '')).toThrow(RangeError);
    expect(() => signWebhook('s', -1, '')).toThrow(RangeError);
  });
});
