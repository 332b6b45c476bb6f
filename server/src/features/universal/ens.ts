// ENS (`.eth`) adapter with viem: ENSIP-15 normalization, one call to the Universal Resolver (strict errors mapped to
// our codes), ENSIP-9 coin types (ETH 60, BTC 0, SOL 501; ENSIP-11 covers EVM chains only, none of ours), SOL
// addresses base58, BTC addresses from their scriptPubKey. CCIP-Read is off: no contract picks URLs we fetch.
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  hexToBytes,
  http,
  type Address as EvmAddress,
  type PublicClient,
} from 'viem';
import { mainnet } from 'viem/chains';
import { normalize } from 'viem/ens';
import { ApiError } from '@sigil/contract/errors';
import type { UniversalChain } from '@sigil/contract/universal';

/** ENSIP-9 (SLIP-44) coin types of the chains we answer for; X1 has none. */
export const ENS_COIN_TYPES: Partial<Record<UniversalChain, bigint>> = { ETH: 60n, BTC: 0n, SOL: 501n };

export interface EnsAnswer {
  name: string;
  address: string;
  /** ENS records are set by the name's manager; nothing on chain proves the address holder agreed. */
  verified: false;
}

export interface EnsAdapter {
  resolve(name: string, chain: UniversalChain): Promise<EnsAnswer>;
}

export interface EnsAdapterOptions {
  rpcUrl: string;
  timeoutMs: number;
  /** Defaults to viem's mainnet Universal Resolver; tests point it at their own deployment. */
  universalResolverAddress?: EvmAddress;
}

/** EIP-3668 `OffchainLookup(address,string[],bytes,bytes4,bytes)`: not in the resolver ABI, so matched by selector. */
const OFFCHAIN_LOOKUP_SELECTOR = '0x556f1830';
const NOT_FOUND_ERRORS = new Set(['ResolverNotFound', 'ResolverNotContract']);
const NO_RECORD_ERRORS = new Set(['UnsupportedResolverProfile', 'ResolverError', 'EmptyAddress']);

export function createEnsAdapter(opts: EnsAdapterOptions): EnsAdapter {
  const client: PublicClient = createPublicClient({
    chain: mainnet,
    transport: http(opts.rpcUrl, { timeout: opts.timeoutMs, retryCount: 0 }),
    ccipRead: false,
  });

  return {
    async resolve(input, chain) {
      let name: string;
      try {
        name = normalize(input);
      } catch (err) {
        throw new ApiError(
          'INVALID_NAME',
          `"${input.slice(0, 100)}" is not a valid ENS name (ENSIP-15: ${(err as Error).message.split('\n')[0]})`,
        );
      }
      const coinType = ENS_COIN_TYPES[chain];
      if (coinType === undefined)
        throw new ApiError('NO_RECORD_FOR_CHAIN', `${name}: ENS has no coin type for ${chain}`);
      let raw: string | null;
      try {
        raw = await client.getEnsAddress({
          name,
          ...(chain === 'ETH' ? {} : { coinType }),
          strict: true,
          ...(opts.universalResolverAddress ? { universalResolverAddress: opts.universalResolverAddress } : {}),
        });
      } catch (err) {
        throw mapEnsError(err, name, chain);
      }
      if (!raw) throw new ApiError('NO_RECORD_FOR_CHAIN', `${name} has no ${chain} address`);
      const address = chain === 'ETH' ? raw : encodeForeign(chain, hexToBytes(raw as `0x${string}`));
      if (!address)
        throw new ApiError('NO_RECORD_FOR_CHAIN', `${name} has a ${chain} record that is not a valid ${chain} address`);
      return { name, address, verified: false };
    },
  };
}

function mapEnsError(err: unknown, name: string, chain: UniversalChain): ApiError {
  if (err instanceof BaseError) {
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) {
      const errorName =
        reverted.data?.errorName ?? (reverted.signature === OFFCHAIN_LOOKUP_SELECTOR ? 'OffchainLookup' : '');
      if (NOT_FOUND_ERRORS.has(errorName))
        return new ApiError('NAME_NOT_FOUND', `${name} is not registered (no resolver)`);
      if (NO_RECORD_ERRORS.has(errorName))
        return new ApiError('NO_RECORD_FOR_CHAIN', `${name} has no ${chain} address (${errorName})`);
      if (errorName === 'OffchainLookup') {
        return new ApiError(
          'NO_RECORD_FOR_CHAIN',
          `${name} resolves off chain (CCIP-Read), which this deployment does not follow`,
        );
      }
      return new ApiError('RPC_ERROR', `the ENS Universal Resolver reverted (${errorName || 'unknown error'})`);
    }
  }
  return new ApiError('RPC_ERROR', 'the Ethereum RPC is unreachable');
}

const base58check = createBase58check(sha256);

/** ENS stores non-EVM addresses in their binary form (ENSIP-9): SOL = 32-byte key; BTC = scriptPubKey. */
export function encodeForeign(chain: UniversalChain, bytes: Uint8Array): string | null {
  if (chain === 'SOL') return bytes.length === 32 ? base58.encode(bytes) : null;
  if (chain === 'BTC') return btcAddressFromScript(bytes);
  return null;
}

/** P2PKH, P2SH (base58check, versions 0x00/0x05), P2WPKH/P2WSH (bech32 v0), P2TR (bech32m v1), mainnet. */
export function btcAddressFromScript(s: Uint8Array): string | null {
  const is = (...pattern: (number | null)[]) =>
    s.length === pattern.length && pattern.every((b, i) => b === null || s[i] === b);
  const any = (n: number) => Array<null>(n).fill(null);
  if (is(0x76, 0xa9, 0x14, ...any(20), 0x88, 0xac))
    return base58check.encode(Uint8Array.of(0x00, ...s.subarray(3, 23)));
  if (is(0xa9, 0x14, ...any(20), 0x87)) return base58check.encode(Uint8Array.of(0x05, ...s.subarray(2, 22)));
  if (is(0x00, 0x14, ...any(20)) || is(0x00, 0x20, ...any(32)))
    return bech32.encode('bc', [0, ...bech32.toWords(s.subarray(2))]);
  if (is(0x51, 0x20, ...any(32))) return bech32m.encode('bc', [1, ...bech32m.toWords(s.subarray(2))]);
  return null;
}
