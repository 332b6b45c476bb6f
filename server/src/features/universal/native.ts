// Native names (handles and registry domains) read through the one ChainReader, shaped for the keyed face:
// who controls the name, its live address records with verification status, and the slot of the read.
import { ApiError } from '@sigil/contract/errors';
import type { AddressRecord } from '@sigil/contract/universal';
import type { Address } from '@solana/kit';
import { isHandleReleased, isRecordLive, isRecordVerified, ZERO_ADDRESS } from '../../platform/chain/trust-rules';
import { ChainError, type AtSlot, type ChainReader, type HandleAccount } from '../../platform/chain/types';

export interface NativeName {
  name: string;
  namespace: string;
  owner: Address;
  tokenized: boolean;
  authority: Address;
  handleType: number | null;
  addresses: AddressRecord[];
  slot: bigint;
}

/** Chain failures → 502 RPC_ERROR (unreachable or undecodable: both transient from the caller's side). */
export async function withRpcErrors<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ChainError) {
      throw new ApiError(
        'RPC_ERROR',
        err.kind === 'malformed'
          ? 'the chain returned an account that does not decode'
          : 'the chain RPC is unreachable',
      );
    }
    throw err;
  }
}

/** A handle account read ahead (a batch's one multi-account read): what getHandle would answer for the name. */
export type HandleRead = Promise<AtSlot<HandleAccount | null>>;

export async function readNativeHandle(
  chain: ChainReader,
  name: string,
  withRecords: boolean,
  readAhead?: HandleRead,
): Promise<NativeName> {
  return withRpcErrors(async () => {
    const { value: handle, slot } = await (readAhead ?? chain.getHandle(name, 'confirmed'));
    if (!handle || isHandleReleased(handle)) throw new ApiError('HANDLE_NOT_REGISTERED', `@${name} is not registered`);
    const [authority, records] = await Promise.all([
      chain.getHandleAuthority(handle, 'confirmed'),
      withRecords ? chain.getRecords(handle.address, 'confirmed') : Promise.resolve([]),
    ]);
    if (!authority.authority)
      throw new ApiError('HANDLE_NOT_REGISTERED', `@${name} has no current authority (${authority.reason})`);
    const addresses: AddressRecord[] = records
      .filter((r) => r.kind === 'address' && isRecordLive(r, handle, authority))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((r) => {
        const verified = isRecordVerified(r, handle, authority);
        return {
          chain: r.key,
          address: r.value,
          verified,
          verifiedAt: verified ? r.verifiedAt : null,
          updatedAt: r.updatedAt,
        };
      });
    return {
      name: handle.name,
      namespace: 'handle',
      owner: handle.owner,
      tokenized: handle.tokenized,
      authority: authority.authority,
      handleType: handle.handleType,
      addresses,
      slot,
    };
  });
}

export async function readNativeDomain(chain: ChainReader, label: string, tld: string): Promise<NativeName> {
  return withRpcErrors(async () => {
    const { value: domain, slot } = await chain.getDomain(label, tld, 'confirmed');
    if (!domain || domain.owner === ZERO_ADDRESS)
      throw new ApiError('DOMAIN_NOT_REGISTERED', `${label}.${tld} is not registered`);
    // A tokenized domain follows its NFT exactly as a handle does; the reader's rule takes the same fields.
    const asHandle = {
      address: domain.address,
      owner: domain.owner,
      tokenized: domain.tokenized,
      mint: domain.mint,
    } as HandleAccount;
    const authority = await chain.getHandleAuthority(asHandle, 'confirmed');
    if (!authority.authority)
      throw new ApiError('DOMAIN_NOT_REGISTERED', `${label}.${tld} has no current authority (${authority.reason})`);
    return {
      name: `${domain.label}.${domain.tld}`,
      namespace: domain.tld,
      owner: domain.owner,
      tokenized: domain.tokenized,
      authority: authority.authority,
      handleType: null,
      addresses: [],
      slot,
    };
  });
}
