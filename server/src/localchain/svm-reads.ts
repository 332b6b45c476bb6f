// Account reads from LiteSVM without kit's address codec. litesvm's public getAccount / getProgramAccounts convert
// every address through getAddressCodec() (a new codec per call, BigInt base58): ~40 µs per account, most of a
// cache miss. Its native binding (the instance's `inner`, litesvm 1.5) takes and returns raw 32-byte keys, which
// @scure/base converts to exactly kit's strings (base58.test.ts). Should the binding not be there (another litesvm
// version) or an address not be a valid one, the public API answers instead, as before. svm-reads.test.ts checks
// both paths give the same snapshots for every account of the demo chain.
import { base58 } from '@scure/base';
import type { Address } from '@solana/kit';
import type { LiteSVM } from 'litesvm';
import { isAddressText } from './base58';

/** An account as the local chain stores and serves it. */
export interface AccountSnapshot {
  lamports: bigint;
  owner: Address;
  data: Uint8Array;
  executable: boolean;
}

interface NativeAccount {
  lamports(): bigint;
  data(): Uint8Array;
  owner(): Uint8Array;
  executable(): boolean;
}

/** The part of litesvm's native binding we read through (read-only methods only). */
interface NativeReads {
  getAccount(pubkey: Uint8Array): NativeAccount | null;
  getProgramAccounts(programId: Uint8Array): { address: Uint8Array; account(): NativeAccount }[];
}

function nativeReads(svm: LiteSVM): NativeReads | null {
  const inner = (svm as unknown as { inner?: Partial<NativeReads> }).inner;
  return inner && typeof inner.getAccount === 'function' && typeof inner.getProgramAccounts === 'function'
    ? (inner as NativeReads)
    : null;
}

function snapshot(account: NativeAccount): AccountSnapshot {
  return {
    lamports: account.lamports(),
    owner: base58.encode(account.owner()) as Address,
    data: new Uint8Array(account.data()),
    executable: account.executable(),
  };
}

/** The account as the SVM holds it now (a fresh copy), or null. */
export function svmAccount(svm: LiteSVM, address: Address): AccountSnapshot | null {
  const native = nativeReads(svm);
  if (native && isAddressText(address)) {
    const account = native.getAccount(base58.decode(address));
    return account ? snapshot(account) : null;
  }
  return publicSvmAccount(svm, address);
}

/** Every account the SVM holds for `owner`, in the SVM's order (fresh copies). */
export function svmProgramAccounts(svm: LiteSVM, owner: Address): { address: Address; account: AccountSnapshot }[] {
  const native = nativeReads(svm);
  if (native && isAddressText(owner)) {
    return native.getProgramAccounts(base58.decode(owner)).map((entry) => ({
      address: base58.encode(entry.address) as Address,
      account: snapshot(entry.account()),
    }));
  }
  return publicSvmProgramAccounts(svm, owner);
}

/** Through litesvm's public API (the reference the fast paths are tested against). */
export function publicSvmAccount(svm: LiteSVM, address: Address): AccountSnapshot | null {
  const account = svm.getAccount(address);
  if (!account.exists) return null;
  return {
    lamports: account.lamports,
    owner: account.programAddress,
    data: new Uint8Array(account.data),
    executable: account.executable,
  };
}

export function publicSvmProgramAccounts(
  svm: LiteSVM,
  owner: Address,
): { address: Address; account: AccountSnapshot }[] {
  return svm.getProgramAccounts(owner).map(({ address, lamports, programAddress, data, executable }) => ({
    address,
    account: { lamports, owner: programAddress, data: new Uint8Array(data), executable },
  }));
}
