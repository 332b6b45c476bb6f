import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from './errors';
import { addCodedIssue, apiErrorOf, parseCoded, parseWithFieldCodes, withFieldCodes } from './parse';

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

describe('withFieldCodes', () => {
  const coded = withFieldCodes(
    z.object({ wallet: z.string().refine((v) => v !== 'bad', 'refused') }).superRefine((v, ctx) => {
      if (v.wallet === 'whole') addCodedIssue(ctx, 'INVALID_CHALLENGE_REQUEST', 'a rule that names no field');
    }),
    { fields: { wallet: 'INVALID_WALLET' } },
  );
  it("a field's own refinement keeps the field's code and its name in the message", () => {
    expect(thrown(() => parseCoded(coded, { wallet: 'bad' }))).toEqual({
      code: 'INVALID_WALLET',
      message: 'wallet: refused',
    });
  });
  it('a rule added with addCodedIssue answers its own code and message, whole', () => {
    expect(thrown(() => parseCoded(coded, { wallet: 'whole' }))).toEqual({
      code: 'INVALID_CHALLENGE_REQUEST',
      message: 'a rule that names no field',
    });
  });
  it('a schema without codes gives apiErrorOf nothing to say', () => {
    const plain = z.object({ wallet: z.string() }).safeParse({});
    expect(plain.success).toBe(false);
    expect(apiErrorOf(plain.error!)).toBeUndefined();
  });
});
