// Authority over a handle decides who may be trusted (reverse lookups, records). These tests pin the rules.
import { describe, expect, it } from 'vitest';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { createChainReader } from './reader';
import { ChainError } from './types';
import { createFakeChain } from '@sigil/test/support/fake-rpc';
import { PROGRAM_ID, putHandle, putNft, testAddress, tokenAccountBytes } from '@sigil/test/support/fake-rpc-accounts';

const OWNER = testAddress(1);
const HOLDER = testAddress(2);
const MINT = testAddress(3);
const ZERO = '11111111111111111111111111111111';

function setup() {
  const chain = createFakeChain();
  const reader = createChainReader({
    rpcUrl: 'http://fake.invalid',
    programId: PROGRAM_ID,
    timeoutMs: 1000,
    transport: chain.transport,
  });
  return { chain, reader };
}

/** The RPC names `ata` as the mint's largest token account, whatever it holds. */
function largestAccountIs(chain: ReturnType<typeof createFakeChain>, ata: string) {
  chain.overrides.set('getTokenLargestAccounts', () => ({
    context: { slot: 1 },
    value: [{ address: ata, amount: '1', decimals: 0, uiAmount: 1, uiAmountString: '1' }],
  }));
}

describe('handle authority', () => {
  it('untokenized: the owner, without any RPC call', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'alice', owner: OWNER });
    chain.calls.length = 0;
    expect(await reader.getHandleAuthority(handle)).toEqual({ authority: OWNER, source: 'owner' });
    expect(chain.calls).toEqual([]);
  });

  it('released (owner zeroed): nobody', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'gone', owner: ZERO as never });
    expect(await reader.getHandleAuthority(handle)).toEqual({ authority: null, source: 'owner', reason: 'released' });
  });

  it('tokenized, NFT in the holder’s associated token account: the holder, not the recorded owner', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'nft', owner: OWNER, tokenized: true, mint: MINT });
    await putNft(chain, MINT, HOLDER);
    expect(await reader.getHandleAuthority(handle)).toEqual({ authority: HOLDER, source: 'nft-holder' });
  });

  it('tokenized, NFT in a token account that is not the holder’s ATA: nobody', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'nft', owner: OWNER, tokenized: true, mint: MINT });
    await putNft(chain, MINT, HOLDER, testAddress(44));
    expect(await reader.getHandleAuthority(handle)).toEqual({
      authority: null,
      source: 'nft-holder',
      reason: 'nft-not-in-ata',
    });
  });

  it('tokenized, token burned (all balances 0): nobody', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'nft', owner: OWNER, tokenized: true, mint: MINT });
    const ata = await putNft(chain, MINT, HOLDER);
    chain.accounts.set(ata, { owner: TOKEN_PROGRAM_ADDRESS, data: tokenAccountBytes(MINT, HOLDER, 0n) });
    expect(await reader.getHandleAuthority(handle)).toEqual({
      authority: null,
      source: 'nft-holder',
      reason: 'nft-burned',
    });
  });

  it('tokenized, mint account gone (node answers invalid params): nobody', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'nft', owner: OWNER, tokenized: true, mint: MINT });
    expect(await reader.getHandleAuthority(handle)).toEqual({
      authority: null,
      source: 'nft-holder',
      reason: 'nft-burned',
    });
  });

  it('tokenized, the largest account holds another mint: malformed, not trusted', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'nft', owner: OWNER, tokenized: true, mint: MINT });
    const ata = await putNft(chain, MINT, HOLDER);
    largestAccountIs(chain, ata);
    chain.accounts.set(ata, { owner: TOKEN_PROGRAM_ADDRESS, data: tokenAccountBytes(testAddress(99), HOLDER, 1n) });
    const err = await reader.getHandleAuthority(handle).catch((e) => e);
    expect(err).toBeInstanceOf(ChainError);
    expect(err.kind).toBe('malformed');
    expect(err.account).toBe(ata);
  });

  it('tokenized, the "token account" is owned by some other program: malformed', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'nft', owner: OWNER, tokenized: true, mint: MINT });
    const ata = await putNft(chain, MINT, HOLDER);
    largestAccountIs(chain, ata);
    chain.accounts.get(ata)!.owner = testAddress(66);
    const err = await reader.getHandleAuthority(handle).catch((e) => e);
    expect(err).toBeInstanceOf(ChainError);
    expect(err.kind).toBe('malformed');
  });

  it('tokenized without a mint: malformed handle', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'nft', owner: OWNER, tokenized: true, mint: null });
    const err = await reader.getHandleAuthority(handle).catch((e) => e);
    expect(err).toBeInstanceOf(ChainError);
    expect(err.kind).toBe('malformed');
    expect(err.account).toBe(handle.address);
  });
});
