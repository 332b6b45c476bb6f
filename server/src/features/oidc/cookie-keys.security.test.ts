// The provider's cookie signer: Keygrip's format exactly (a cookie signed before stays valid), every key verifies
// and the first signs (rotation), and anything but the exact signature of the exact value is refused.
import { describe, expect, it } from 'vitest';
import { CookieKeys } from './cookie-keys';

const KEY = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MDEyMzQ1Njc4OTA';
const DATA = '_interaction=wXn2h5Y3bq1kQ9mKf0GzA';
/** What Keygrip 1.1 (`new Keygrip([KEY]).sign(DATA)`) answers. */
const KEYGRIP_SIGNATURE = '_L_OT4FN7J-Hm0FUiRhL5AmyhX8';

describe('cookie keys', () => {
  it('signs as Keygrip does, so cookies already issued stay valid', () => {
    const keys = new CookieKeys([KEY]);
    expect(keys.sign(DATA)).toBe(KEYGRIP_SIGNATURE);
    expect(keys.index(DATA, KEYGRIP_SIGNATURE)).toBe(0);
    expect(keys.verify(DATA, KEYGRIP_SIGNATURE)).toBe(true);
  });

  it('the first key signs, every key verifies (rotation)', () => {
    const rotated = new CookieKeys(['new-key', KEY]);
    expect(rotated.index(DATA, KEYGRIP_SIGNATURE)).toBe(1);
    expect(rotated.sign(DATA)).not.toBe(KEYGRIP_SIGNATURE);
    expect(rotated.index(DATA, rotated.sign(DATA))).toBe(0);
  });

  it('refuses another value, a changed, padded or truncated signature, and an unknown key', () => {
    const keys = new CookieKeys([KEY]);
    expect(keys.index('_interaction=other', KEYGRIP_SIGNATURE)).toBe(-1);
    expect(keys.index(DATA, `${KEYGRIP_SIGNATURE.slice(0, -1)}Y`)).toBe(-1);
    expect(keys.index(DATA, `${KEYGRIP_SIGNATURE}=`)).toBe(-1);
    expect(keys.index(DATA, KEYGRIP_SIGNATURE.slice(0, -1))).toBe(-1);
    expect(keys.index(DATA, '')).toBe(-1);
    expect(new CookieKeys(['another-key']).verify(DATA, KEYGRIP_SIGNATURE)).toBe(false);
    expect(() => new CookieKeys([])).toThrow('at least one cookie key');
  });
});
