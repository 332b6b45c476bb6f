import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from './errors';
import { parseWithFieldCodes } from './parse';

const schema = z.strictObject({ wallet: z.string().min(3), note: z.string().optional() });
const codes = { wallet: 'INVALID_WALLET' } as const;

function thrown(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('parseWithFieldCodes', () => {
  it('returns the parsed body', () => {
    expect(parseWithFieldCodes(schema, { wallet: 'abc' }, codes)).toEqual({ wallet: 'abc' });
  });
  it('a listed field answers its code, an unlisted one BAD_REQUEST, both named in the message', () => {
    expect(thrown(() => parseWithFieldCodes(schema, { wallet: 'a' }, codes))).toEqual({
      code: 'INVALID_WALLET',
      message: 'wallet: Too small: expected string to have >=3 characters',
    });
    expect(thrown(() => parseWithFieldCodes(schema, { wallet: 'abc', note: 1 }, codes)).code).toBe('BAD_REQUEST');
  });
  it('a body that is not an object answers the non-object code (BAD_REQUEST by default)', () => {
    expect(thrown(() => parseWithFieldCodes(schema, [1], codes))).toEqual({
      code: 'BAD_REQUEST',
      message: 'request body must be a JSON object',
    });
    expect(thrown(() => parseWithFieldCodes(schema, 'x', codes, 'INVALID_CHALLENGE_REQUEST')).code).toBe(
      'INVALID_CHALLENGE_REQUEST',
    );
  });
});
