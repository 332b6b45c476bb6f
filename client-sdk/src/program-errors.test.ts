import { describe, expect, it } from 'vitest';
import { decodeProgramError } from './program-errors';

describe('the SDK exposes the program-error decoder', () => {
  it('names a preflight failure of a registry transaction', () => {
    const preflight = {
      code: -32002,
      message: 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1792',
      data: { err: { InstructionError: [0, { Custom: 6034 }] }, logs: [] },
    };
    expect(decodeProgramError(preflight)).toMatchObject({ name: 'BidTooLow', code: 6034, hex: '0x1792' });
  });
});
