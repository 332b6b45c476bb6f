import { describe, expect, it } from 'vitest';
import { INSTRUCTION_DISCRIMINATORS, MARKET_INSTRUCTION_DISCRIMINATORS } from '../../../platform/chain/registry';
import { DERIVERS } from './table';

describe('the derivation table', () => {
  it('has exactly one row per instruction the registry codecs decode (its own and the market’s)', () => {
    const decoded = [...Object.keys(INSTRUCTION_DISCRIMINATORS), ...Object.keys(MARKET_INSTRUCTION_DISCRIMINATORS)];
    expect(Object.keys(DERIVERS).sort()).toEqual(decoded.sort());
  });
});
