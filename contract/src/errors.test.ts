// ApiError: a 4xx is an answer, built without a stack; a 5xx keeps the stack that says where it came from.
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';

function thrownFromHere(code: ConstructorParameters<typeof ApiError>[0]): ApiError {
  return new ApiError(code, 'the message');
}

describe('ApiError', () => {
  it('a 4xx carries no stack frames, only its name and message', () => {
    const error = thrownFromHere('INVALID_HANDLE');
    expect(error.status).toBe(400);
    expect(error.stack).toBe('ApiError: the message');
    expect(error.toBody()).toEqual({ code: 'INVALID_HANDLE', message: 'the message' });
  });

  it('a 5xx keeps its stack, down to where it was made', () => {
    const error = thrownFromHere('RPC_ERROR');
    expect(error.status).toBe(502);
    expect(error.stack).toMatch(/^ApiError: the message\n\s+at /);
    expect(error.stack).toContain('thrownFromHere');
  });

  it("leaves the process's stack trace limit as it found it", () => {
    const before = Error.stackTraceLimit;
    thrownFromHere('RATE_LIMITED');
    thrownFromHere('INTERNAL_ERROR');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('plain').stack).toContain('\n    at ');
  });
});
