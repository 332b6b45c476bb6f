// The market's codecs: literal bytes for one instruction and one account, every instruction round-trips through the
// registry decoder (which hands market instructions to the market table), and the strict decode refuses bad bytes.
import { AccountRole, type Address } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { SYSTEM_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../programs';
import { decodeRegistryInstruction } from './instructions';
import {
  decodeMarketAccount,
  encodeMarketAccount,
  getMarketInstruction,
  MARKET_INSTRUCTIONS,
  type MarketInstructionName,
} from './market';
import { RegistryDecodeError } from './primitives';

const PROGRAM = 'SigiLRegistry1111111111111111111111111111111' as Address;
const A = '11111111111111111111111111111112' as Address;
const B = 'SysvarC1ock11111111111111111111111111111111' as Address;

describe('market codecs', () => {
  it('make_offer: literal data bytes, roles, decode', () => {
    const ix = getMarketInstruction(PROGRAM, 'make_offer', { amount: 258n }, { buyer: A, handle: B, offer: PROGRAM });
    expect([...ix.data!]).toEqual([214, 98, 97, 35, 59, 12, 44, 178, 2, 1, 0, 0, 0, 0, 0, 0]);
    expect(ix.accounts!.map((a) => a.role)).toEqual([
      AccountRole.WRITABLE_SIGNER,
      AccountRole.READONLY,
      AccountRole.WRITABLE,
      AccountRole.READONLY,
    ]);
    expect(
      decodeRegistryInstruction(
        ix.data!,
        ix.accounts!.map((a) => a.address),
        PROGRAM,
      ),
    ).toEqual({
      name: 'make_offer',
      args: { amount: 258n },
      accounts: { buyer: A, handle: B, offer: PROGRAM, systemProgram: SYSTEM_PROGRAM_ADDRESS },
      remaining: [],
    });
  });

  it('Offer account: literal layout and strict decode', () => {
    const data = encodeMarketAccount('Offer', { handle: A, buyer: A, amount: 5n, createdAt: 7, bump: 254 });
    expect(data.length).toBe(8 + 32 + 32 + 8 + 8 + 1);
    expect([...data.subarray(0, 8)]).toEqual([215, 88, 60, 71, 170, 162, 73, 229]);
    expect([...data.subarray(72, 89)]).toEqual([5, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 254]);
    expect(decodeMarketAccount('Offer', data)).toEqual({ handle: A, buyer: A, amount: 5n, createdAt: 7, bump: 254 });
    expect(() => decodeMarketAccount('Listing', data)).toThrow(RegistryDecodeError);
    expect(() => decodeMarketAccount('Offer', Uint8Array.of(...data, 1))).toThrow(RegistryDecodeError);
  });

  it('27 instructions; remaining signers and default programs survive a round trip; too few accounts refused', () => {
    const names = Object.keys(MARKET_INSTRUCTIONS) as MarketInstructionName[];
    expect(names).toHaveLength(27);
    const config = B;
    const ix = getMarketInstruction(
      PROGRAM,
      'set_reserved_claim_approval',
      { name: 'brand', domain: 'brand.com', claimant: A },
      { payer: A, config, reservation: B },
      [A, B],
    );
    const decoded = decodeRegistryInstruction(
      ix.data!,
      ix.accounts!.map((a) => a.address),
      PROGRAM,
    );
    expect(decoded).toMatchObject({
      name: 'set_reserved_claim_approval',
      args: { name: 'brand', domain: 'brand.com', claimant: A },
      remaining: [A, B],
    });
    const buy = getMarketInstruction(
      PROGRAM,
      'buy_listing',
      { expectedPrice: 1n },
      { buyer: A, handle: B, listing: A, seller: B, sellerTokenAccount: A, buyerTokenAccount: B, mint: A },
    );
    expect(buy.accounts![7]!.address).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(() => decodeRegistryInstruction(buy.data!, [A, B], PROGRAM)).toThrow(RegistryDecodeError);
  });
});
