import { describe, expect, it } from 'vitest';
import { INSTRUCTION_DISCRIMINATORS, MARKET_INSTRUCTION_DISCRIMINATORS } from '../platform/chain/registry';
import { MARKET_APPLIERS } from './market-apply/table';
import { REGISTRY_APPLIERS } from './registry-apply/table';

describe("the emulator's apply tables", () => {
  it("have exactly one row per instruction the codecs decode: the registry's own here, the market's there", () => {
    expect(Object.keys(REGISTRY_APPLIERS).sort()).toEqual(Object.keys(INSTRUCTION_DISCRIMINATORS).sort());
    expect(Object.keys(MARKET_APPLIERS).sort()).toEqual(Object.keys(MARKET_INSTRUCTION_DISCRIMINATORS).sort());
  });
});
