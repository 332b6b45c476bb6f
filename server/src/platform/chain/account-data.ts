// Account data as the RPC answers it (base64, with its owner), checked before anything decodes it; shared by the
// account reads and the token-account scan of the transaction reads.
import type { Address } from '@solana/kit';
import { RegistryDecodeError } from './registry';
import { ChainError } from './types';

export type EncodedAccount = { data: readonly [string, string] | unknown; owner: Address } | null;

/** An SPL Token account's base layout; Token-2022 appends extensions after it. */
export const TOKEN_ACCOUNT_SIZE = 165;

/** Account bytes, or null when absent. The account must be owned by `owners` and base64-encoded. */
export function accountBytes(account: EncodedAccount, at: Address, owners: readonly Address[]): Uint8Array | null {
  if (account === null) return null;
  if (!owners.includes(account.owner)) {
    throw new ChainError('malformed', `account ${at} is owned by ${account.owner}, not ${owners.join(' or ')}`, at);
  }
  const data = account.data;
  if (!Array.isArray(data) || data[1] !== 'base64' || typeof data[0] !== 'string') {
    throw new ChainError('malformed', `account ${at}: data is not base64`, at);
  }
  return Buffer.from(data[0], 'base64');
}

/** Runs a registry decoder, turning its RegistryDecodeError into ChainError('malformed', account). */
export function decodeAs<T>(at: Address, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof RegistryDecodeError) throw new ChainError('malformed', `account ${at}: ${err.message}`, at);
    throw err;
  }
}

export function stripBump<T extends { bump: number }>(value: T): Omit<T, 'bump'> {
  const { bump: _bump, ...rest } = value;
  return rest;
}
