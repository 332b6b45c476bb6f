// The ledger caches account reads and program-account scans for one SVM write generation (svm-writes.ts). These
// tests pin the invalidation: every kind of write (a transaction, a direct setAccount / restoreAccount, accounts
// created inside CPIs, slot advances) shows in the very next read, at each commitment, and a cached scan gives what
// reading every candidate account afresh gives.
import {
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Encoder,
  type Address,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { LiteSVM } from 'litesvm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { findHandlePda, getRegisterInstruction, getTokenizeInstruction } from '../platform/chain/registry';
import { startLocalChain, type LocalChain } from './index';
import { COMMITMENTS, Ledger, restoreAccount, type Commitment } from './ledger';
import { publicSvmAccount } from './svm-reads';
import { trackWrites, writeGenerationOf } from './svm-writes';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';

const LAG = 3;
const SYSTEM = SYSTEM_PROGRAM_ADDRESS;
let chain: LocalChain;
let payer: KeyPairSigner;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false, finalityLagSlots: LAG });
  payer = await fundedWallet(chain);
  await chain.finalizeAll();
});
afterAll(() => chain.close());

const lamportsAt = async (at: Address, commitment: Commitment) =>
  (await chain.rpc.getAccountInfo(at, { commitment, encoding: 'base64' }).send()).value?.lamports ?? null;
const dataAt = async (at: Address, commitment: Commitment = 'processed') => {
  const value = (await chain.rpc.getAccountInfo(at, { commitment, encoding: 'base64' }).send()).value;
  return value ? { owner: value.owner, data: Array.from(getBase64Encoder().encode(value.data[0])) } : null;
};
/** Addresses owned by `program` whose data starts with `prefix` (a memcmp at 0), at a commitment. */
const ownedBy = async (program: Address, commitment: Commitment, filters: object[] = []) =>
  (
    await chain.rpc.getProgramAccounts(program, { commitment, encoding: 'base64', filters: filters as never }).send()
  ).map((a) => a.pubkey);
const systemWallets = (commitment: Commitment) => ownedBy(SYSTEM, commitment, [{ dataSize: 0n }]);
const transfer = async (to: Address, amount: bigint) =>
  chain.send(
    await signedTransaction(chain, payer, [getTransferSolInstruction({ source: payer, destination: to, amount })]),
  );

describe('the SVM write wrapper', () => {
  it('leaves the generation alone for reads and bumps it for any other method', () => {
    const { ledger, svm } = chain;
    const before = ledger.generation;
    svm.getAccount(payer.address);
    svm.getProgramAccounts(SYSTEM);
    svm.getBalance(payer.address);
    svm.latestBlockhash();
    svm.minimumBalanceForRentExemption(10n);
    svm.getClock();
    expect(ledger.generation).toBe(before);

    svm.expireBlockhash(); // not on the read-only list
    expect(ledger.generation).toBeGreaterThan(before);
    const afterExpire = ledger.generation;
    expect(svm.withLogBytesLimit(10_000n)).toBe(svm); // builders hand back the wrapper, not the bare instance
    expect(ledger.generation).toBeGreaterThan(afterExpire);
  });

  it('counts a method it has never heard of as a write', () => {
    class FutureLiteSVM extends LiteSVM {
      touched = 0;
      somethingNew(): number {
        return ++this.touched;
      }
    }
    const bare = new FutureLiteSVM();
    const svm = trackWrites(bare) as FutureLiteSVM;
    const generation = writeGenerationOf(svm);
    const before = generation.value;
    expect(svm.somethingNew()).toBe(1);
    expect(generation.value).toBeGreaterThan(before);
    expect(trackWrites(svm)).toBe(svm); // idempotent: one counter per instance
    svm.touched = 5; // assignments count too
    expect(generation.value).toBeGreaterThan(before + 2);
    expect(() => writeGenerationOf(bare)).toThrow(/not wrapped/);
    expect(() => new Ledger(bare, { finalityLagSlots: 1, slotMs: 400, genesisHash: 'x' })).toThrow(/not wrapped/);
  });
});

describe('read caches see every write at once', () => {
  it('a transaction: getAccountInfo and getProgramAccounts change in the same slot', async () => {
    const target = (await generateKeyPairSigner()).address;
    // Prime the caches with the "absent" answers.
    expect(await lamportsAt(target, 'processed')).toBeNull();
    expect(await systemWallets('processed')).not.toContain(target);
    const generation = chain.ledger.generation;

    await transfer(target, 2_000_000n);
    expect(chain.ledger.generation).toBeGreaterThan(generation);
    expect(await lamportsAt(target, 'processed')).toBe(2_000_000n);
    expect(await systemWallets('processed')).toContain(target);
    // A second transaction in the same slot still shows at once.
    await transfer(target, 5n);
    expect(await lamportsAt(target, 'processed')).toBe(2_000_005n);
    expect((await chain.rpc.getBalance(target, { commitment: 'processed' }).send()).value).toBe(2_000_005n);
  });

  it('a direct setAccount / restoreAccount on the SVM, with no transaction or slot in between', async () => {
    const at = (await generateKeyPairSigner()).address;
    const program = (await generateKeyPairSigner()).address;
    const other = (await generateKeyPairSigner()).address;
    expect(await dataAt(at)).toBeNull();
    expect(await ownedBy(program, 'processed')).toEqual([]);

    restoreAccount(chain.svm, at, {
      lamports: 1_000_000n,
      owner: program,
      data: new Uint8Array([1, 2, 3]),
      executable: false,
    });
    expect(await dataAt(at)).toEqual({ owner: program, data: [1, 2, 3] });
    const twoThree = [
      { memcmp: { offset: 1n, bytes: getBase58Decoder().decode(new Uint8Array([2, 3])), encoding: 'base58' } },
    ];
    expect(await ownedBy(program, 'processed')).toEqual([at]);
    expect(await ownedBy(program, 'processed', twoThree)).toEqual([at]);

    chain.svm.setAccount({
      address: at,
      lamports: 1_000_000n as never,
      programAddress: program,
      data: new Uint8Array([9]),
      executable: false,
      space: 1n,
    });
    expect(await dataAt(at)).toEqual({ owner: program, data: [9] });
    expect(await ownedBy(program, 'processed', twoThree)).toEqual([]);
    expect(await ownedBy(program, 'processed')).toEqual([at]);

    restoreAccount(chain.svm, at, { lamports: 1_000_000n, owner: other, data: new Uint8Array([4]), executable: false });
    expect(await ownedBy(program, 'processed')).toEqual([]);
    expect(await ownedBy(other, 'processed')).toEqual([at]);

    restoreAccount(chain.svm, at, null);
    const gone = publicSvmAccount(chain.svm, at); // what the SVM itself now says, read without any cache
    expect(await lamportsAt(at, 'processed')).toBe(gone?.lamports ?? null);
    expect(await ownedBy(other, 'processed')).toEqual([]);
  });

  it('accounts created inside CPIs (tokenize: the emulator runs System + Token + ATA as CPIs)', async () => {
    const { programId } = chain;
    const owner = await fundedWallet(chain);
    const [handle] = await findHandlePda(programId, 'cache_nft');
    await chain.send(
      await signedTransaction(chain, owner, [
        getRegisterInstruction({
          programId,
          payer: owner.address,
          owner: owner.address,
          handle,
          name: 'cache_nft',
          handleType: 0,
        }),
      ]),
    );
    await chain.advance(1);
    const mint = await generateKeyPairSigner();
    const [ata] = await findAssociatedTokenPda({
      owner: owner.address,
      mint: mint.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const byMint = [{ memcmp: { offset: 0n, bytes: mint.address, encoding: 'base58' } }];
    // Prime: nothing yet.
    expect(await dataAt(mint.address)).toBeNull();
    expect(await dataAt(ata)).toBeNull();
    expect(await ownedBy(TOKEN_PROGRAM_ADDRESS, 'processed', byMint)).toEqual([]);
    const handleBefore = await dataAt(handle);

    const result = await chain.send(
      await signedTransaction(
        chain,
        owner,
        [
          getTokenizeInstruction({
            programId,
            owner: owner.address,
            handle,
            mint: mint.address,
            ownerTokenAccount: ata,
          }),
        ],
        {
          others: [mint],
        },
      ),
    );
    expect(result.err).toBeNull();
    expect((await dataAt(mint.address))?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect((await dataAt(ata))?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(await ownedBy(TOKEN_PROGRAM_ADDRESS, 'processed', byMint)).toEqual([ata]); // token accounts hold the mint at 0
    expect(await dataAt(handle)).not.toEqual(handleBefore); // tokenized flag + mint written
    // Not yet at confirmed, then there one slot later.
    expect(await ownedBy(TOKEN_PROGRAM_ADDRESS, 'confirmed', byMint)).toEqual([]);
    expect(await dataAt(handle, 'confirmed')).toEqual(handleBefore);
    await chain.advance(1);
    expect(await ownedBy(TOKEN_PROGRAM_ADDRESS, 'confirmed', byMint)).toEqual([ata]);
    expect(await dataAt(handle, 'confirmed')).not.toEqual(handleBefore);
    expect(
      (await chain.rpc.getTokenLargestAccounts(mint.address, { commitment: 'confirmed' }).send()).value.map((v) => [
        v.address,
        v.amount,
      ]),
    ).toEqual([[ata, '1']]);
  });

  it('confirmed and finalized views move with each slot (the version log), caches primed at every step', async () => {
    await chain.finalizeAll();
    const target = (await generateKeyPairSigner()).address;
    const read = async () => {
      const out: Record<string, unknown> = {};
      for (const c of COMMITMENTS) {
        // Twice: the second answer comes from the cache and must equal the first.
        const first = [await lamportsAt(target, c), (await systemWallets(c)).includes(target)];
        expect([await lamportsAt(target, c), (await systemWallets(c)).includes(target)]).toEqual(first);
        out[c] = first;
      }
      return out;
    };
    const absent = [null, false];
    expect(await read()).toEqual({ processed: absent, confirmed: absent, finalized: absent });

    await transfer(target, 1_000_000n); // slot s
    expect(await read()).toEqual({ processed: [1_000_000n, true], confirmed: absent, finalized: absent });
    await chain.advance(1); // s+1: confirmed sees s
    expect(await read()).toEqual({ processed: [1_000_000n, true], confirmed: [1_000_000n, true], finalized: absent });
    await transfer(target, 7n); // slot s+1
    expect(await read()).toEqual({ processed: [1_000_007n, true], confirmed: [1_000_000n, true], finalized: absent });
    await chain.advance(1); // s+2
    expect(await read()).toEqual({ processed: [1_000_007n, true], confirmed: [1_000_007n, true], finalized: absent });
    await chain.advance(1); // s+3 = s + LAG: finalized sees s
    expect(await read()).toEqual({
      processed: [1_000_007n, true],
      confirmed: [1_000_007n, true],
      finalized: [1_000_000n, true],
    });
    await chain.advance(1);
    expect(await read()).toEqual({
      processed: [1_000_007n, true],
      confirmed: [1_000_007n, true],
      finalized: [1_000_007n, true],
    });
  });
});

describe('cached answers equal fresh reads', () => {
  it('accountsOwnedBy = every candidate read afresh (SVM order, then versioned addresses), at each commitment', async () => {
    // Pending writes at every level: some accounts differ between processed, confirmed and finalized.
    const fresh = (await generateKeyPairSigner()).address;
    await transfer(fresh, 3_000_000n);
    await chain.advance(1);
    await transfer(fresh, 1n);
    await transfer(payer.address, 1n);
    const { ledger, svm } = chain;
    // The ledger's version log (private), read here only to rebuild the uncached answer.
    const versions = (ledger as unknown as { versions: Map<Address, unknown> }).versions;
    const reference = (owner: Address, commitment: Commitment) => {
      const candidates = new Set<Address>(svm.getProgramAccounts(owner).map((a) => a.address));
      if (commitment !== 'processed') for (const a of versions.keys()) candidates.add(a);
      return [...candidates].flatMap((a) => {
        const account =
          commitment === 'processed' || !versions.has(a) ? publicSvmAccount(svm, a) : ledger.readAccount(a, commitment);
        return account && account.owner === owner ? [{ address: a, account }] : [];
      });
    };
    let compared = 0;
    for (const owner of [SYSTEM, chain.programId, TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]) {
      for (const c of COMMITMENTS) {
        const cached = ledger.accountsOwnedBy(owner, c);
        expect(ledger.accountsOwnedBy(owner, c)).toBe(cached); // second call: the cached list itself
        expect(cached).toEqual(reference(owner, c));
        compared += cached.length;
      }
    }
    expect(compared).toBeGreaterThan(10);
    const processed = ledger.accountsOwnedBy(SYSTEM, 'processed').map((a) => a.address);
    const finalized = ledger.accountsOwnedBy(SYSTEM, 'finalized').map((a) => a.address);
    expect(processed).toContain(fresh);
    expect(finalized).not.toContain(fresh);
  });

  it('cached snapshots are frozen, and a write gives new ones', async () => {
    const first = chain.ledger.readAccount(payer.address, 'processed')!;
    expect(Object.isFrozen(first)).toBe(true);
    expect(chain.ledger.readAccount(payer.address, 'processed')).toBe(first);
    await transfer((await generateKeyPairSigner()).address, 1_000_000n);
    const second = chain.ledger.readAccount(payer.address, 'processed')!;
    expect(second).not.toBe(first);
    expect(second.lamports).toBeLessThan(first.lamports);
  });
});
