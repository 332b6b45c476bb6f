// The fast SVM reads (litesvm's native binding + @scure/base) must give exactly what litesvm's public API gives,
// for every kind of account the demo chain holds: wallets, token accounts and mints, registry accounts, sysvars,
// executable programs, missing accounts.
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { LiteSVM } from 'litesvm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from './index';
import { publicSvmAccount, publicSvmProgramAccounts, svmAccount, svmProgramAccounts } from './svm-reads';
import { TOKEN_2022_PROGRAM_ADDRESS } from '../platform/chain/programs';

let chain: LocalChain;
beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: true });
});
afterAll(() => chain.close());

const OWNERS = [
  '11111111111111111111111111111111',
  'Sysvar1111111111111111111111111111111111111',
  'NativeLoader1111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  TOKEN_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
] as Address[];

// Data as base64 text: vitest compares large byte arrays (program binaries) element by element, slowly.
type Snapshot = ReturnType<typeof publicSvmAccount>;
const plain = (a: Snapshot) => (a ? { ...a, data: Buffer.from(a.data).toString('base64') } : a);
const plainList = (list: { address: Address; account: NonNullable<Snapshot> }[]) =>
  list.map((e) => ({ ...e, account: plain(e.account) }));

describe('fast SVM reads', () => {
  it('program scans equal the public API, owner by owner, in the same order', () => {
    let total = 0;
    for (const owner of [...OWNERS, chain.programId]) {
      const fast = svmProgramAccounts(chain.svm, owner);
      expect(plainList(fast)).toEqual(plainList(publicSvmProgramAccounts(chain.svm, owner)));
      for (const { account } of fast) expect(account.data).toBeInstanceOf(Uint8Array);
      total += fast.length;
    }
    expect(total).toBeGreaterThan(50);
  });

  it('single reads equal the public API for every account found, and for missing ones', async () => {
    const addresses = new Set<Address>(OWNERS);
    for (const owner of [...OWNERS, chain.programId])
      for (const { address } of publicSvmProgramAccounts(chain.svm, owner)) addresses.add(address);
    for (let i = 0; i < 5; i++) addresses.add((await generateKeyPairSigner()).address);
    let executable = 0;
    let missing = 0;
    for (const address of addresses) {
      const fast = svmAccount(chain.svm, address);
      expect(plain(fast), address).toEqual(plain(publicSvmAccount(chain.svm, address)));
      if (fast?.executable) executable++;
      if (!fast) missing++;
    }
    expect(executable).toBeGreaterThan(0);
    expect(missing).toBeGreaterThanOrEqual(5);
  });

  it('answers through the public API when the native binding is not there, and refuses what it refuses', () => {
    const { svm } = chain;
    const withoutBinding = {
      getAccount: (a: Address) => svm.getAccount(a),
      getProgramAccounts: (a: Address) => svm.getProgramAccounts(a),
    } as unknown as LiteSVM;
    expect(svmProgramAccounts(withoutBinding, chain.programId)).toEqual(svmProgramAccounts(svm, chain.programId));
    const alice = chain.scenario!.handles.alice!.account;
    expect(svmAccount(withoutBinding, alice)).toEqual(svmAccount(svm, alice));
    expect(svmAccount(withoutBinding, alice)).not.toBeNull();
    expect(() => publicSvmAccount(svm, 'not-an-address' as Address)).toThrow();
    expect(() => svmAccount(svm, 'not-an-address' as Address)).toThrow();
  });
});
