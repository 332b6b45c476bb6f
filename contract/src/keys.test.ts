import { describe, expect, it } from 'vitest';
import {
  CreateKeyRequestSchema,
  CreateKeyResponseSchema,
  KEY_ID_PATTERN,
  ListKeysResponseSchema,
  TIER_LIMITS,
  UsageResponseSchema,
} from './keys';

const key = {
  id: 'key_1C4mDxkUA8gUQ4bJHwXqVn',
  name: null,
  tier: 'free',
  prefix: 'sigil_sk_4Fz9',
  created_at: 1_900_000_000_000,
  revoked_at: null,
  last_used_at: null,
};

describe('keys contract', () => {
  it('has the spec limits', () => {
    expect(TIER_LIMITS).toStrictEqual({ free: { minute: 300, day: 15000 }, partner: { minute: 1000, day: 100000 } });
  });

  it('POST /v1/keys request: optional trimmed name of 1-64 characters, nothing else', () => {
    expect(CreateKeyRequestSchema.parse({})).toStrictEqual({});
    expect(CreateKeyRequestSchema.parse({ name: '  prod  ' })).toStrictEqual({ name: 'prod' });
    expect(CreateKeyRequestSchema.safeParse({ name: '' }).success).toBe(false);
    expect(CreateKeyRequestSchema.safeParse({ name: '   ' }).success).toBe(false);
    expect(CreateKeyRequestSchema.safeParse({ name: 'x'.repeat(65) }).success).toBe(false);
    expect(CreateKeyRequestSchema.safeParse({ tier: 'partner' }).success).toBe(false); // a caller cannot pick its tier
  });

  it('responses accept the documented shapes', () => {
    expect(CreateKeyResponseSchema.parse({ key, secret: 'sigil_sk_abc' })).toStrictEqual({
      key,
      secret: 'sigil_sk_abc',
    });
    expect(
      ListKeysResponseSchema.parse({ keys: [{ ...key, usage: { minute: 1, day: 2 } }] }).keys[0].usage,
    ).toStrictEqual({ minute: 1, day: 2 });
    const usage = {
      tier: 'free',
      limits: { minute: 300, day: 15000 },
      usage: { minute: 1, day: 2 },
      reset: { minute: 1_900_000_020_000, day: 1_900_051_200_000 },
      keys: [
        {
          id: key.id,
          name: null,
          tier: 'free',
          revoked_at: null,
          limits: { minute: 300, day: 15000 },
          usage: { minute: 1, day: 2 },
        },
      ],
    };
    expect(UsageResponseSchema.parse(usage)).toStrictEqual(usage);
    expect(
      ListKeysResponseSchema.safeParse({
        keys: [{ ...key, created_at: '2030-01-01T00:00:00Z', usage: { minute: 0, day: 0 } }],
      }).success,
    ).toBe(false);
  });

  it('key id pattern', () => {
    expect(KEY_ID_PATTERN.test(key.id)).toBe(true);
    expect(KEY_ID_PATTERN.test('key_0C4mDxkUA8gUQ4bJHwXqVn')).toBe(false); // 0 is not base58
    expect(KEY_ID_PATTERN.test('portal.sigil.local')).toBe(false);
  });
});
