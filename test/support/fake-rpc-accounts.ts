// Builders that put registry and token accounts into a FakeChain for reader tests. Test-only.
import { getAddressDecoder, none, type Address } from '@solana/kit';
import { AccountState, findAssociatedTokenPda, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { encodeHandle, findHandlePda, type HandleData } from '../../server/src/platform/chain/registry';
import type { FakeChain } from './fake-rpc';

/** A deterministic address from one repeated byte (never all-zero for n ≥ 1). */
export const testAddress = (n: number): Address => getAddressDecoder().decode(new Uint8Array(32).fill(n));

export const PROGRAM_ID = testAddress(200);

export function tokenAccountBytes(mint: Address, owner: Address, amount: bigint): Uint8Array {
  return Uint8Array.from(
    getTokenEncoder().encode({
      mint,
      owner,
      amount,
      delegate: none(),
      state: AccountState.Initialized,
      isNative: none(),
      delegatedAmount: 0n,
      closeAuthority: none(),
    }),
  );
}

export async function putHandle(chain: FakeChain, data: Partial<HandleData> & { name: string; owner: Address }) {
  const [address, bump] = await findHandlePda(PROGRAM_ID, data.name);
  const full: HandleData = {
    handleType: 0,
    tokenized: false,
    mint: null,
    registrationEpoch: 1n,
    registeredAt: 1_700_000_000,
    registeredSlot: 100n,
    bump,
    ...data,
  };
  chain.accounts.set(address, { owner: PROGRAM_ID, data: encodeHandle(full) });
  const { bump: _b, ...account } = full;
  return { ...account, address };
}

/** Puts the NFT of `mint` into `holder`'s associated token account (or into `at`, a non-ATA account). */
export async function putNft(chain: FakeChain, mint: Address, holder: Address, at?: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner: holder, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const address = at ?? ata;
  chain.mints.add(mint);
  chain.accounts.set(address, { owner: TOKEN_PROGRAM_ADDRESS, data: tokenAccountBytes(mint, holder, 1n) });
  return address;
}
