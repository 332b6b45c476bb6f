// The keyed reverse (docs/reverse.md): the public reverse's trust rules (platform/chain/trust-rules.ts), read for
// many wallets at once. One getMultipleAccounts for every primary pointer, one for every handle they name (pinned
// with minContextSlot to the pointers' slot), then the NFT holder of each tokenized handle: a batch of plain handles
// costs two RPC calls whatever its size.
import type { Address } from '@solana/kit';
import { ApiError } from '@sigil/contract/errors';
import { isBase58Address } from '@sigil/contract/names';
import type { KeyedReverseResult, ReverseBatchItem, ReverseBatchResult } from '@sigil/contract/reverse';
import { isHandleReleased, primaryFailure } from '../../platform/chain/trust-rules';
import {
  ChainError,
  type ChainReader,
  type HandleAccount,
  type HandleAuthority,
  type PrimaryPointerAccount,
} from '../../platform/chain/types';
import { withRpcErrors } from '../universal/index';

export interface ReverseService {
  /** GET /v1/reverse/:address */
  reverse(input: string): Promise<KeyedReverseResult>;
  /** POST /v1/reverse/batch: one item per input, in order; duplicates read once. */
  reverseBatch(inputs: string[]): Promise<ReverseBatchResult>;
  /**
   * The reverse verdict of valid wallets (at most 100), each with its trusted primary's account when there is one:
   * what Gate's `handle.primary` leaf and subject resolution read. A wallet whose own reads failed maps to its
   * ChainError; a failure of the shared reads throws.
   */
  explain(wallets: readonly Address[], minContextSlot?: bigint): Promise<ReverseVerdicts>;
}

export interface ReverseVerdict {
  result: Omit<KeyedReverseResult, 'input'>;
  /** The trusted primary handle's account (null when a rule failed). */
  handle: HandleAccount | null;
}

export interface ReverseVerdicts {
  verdicts: Map<Address, ReverseVerdict | ChainError>;
  slot: bigint;
}

export function createReverseService(deps: { chain: ChainReader }): ReverseService {
  return {
    reverse: (input) => reverseOne(deps.chain, input),
    reverseBatch: (inputs) => reverseBatch(deps.chain, inputs),
    explain: (wallets, minContextSlot) => explain(deps.chain, wallets, minContextSlot),
  };
}

const invalidWallet = (input: string) =>
  new ApiError('INVALID_WALLET', `"${input.slice(0, 64)}" is not a base58 address (32 bytes)`);

const rpcError = (err: ChainError) =>
  new ApiError(
    'RPC_ERROR',
    err.kind === 'malformed' ? 'the chain returned an account that does not decode' : 'the chain RPC is unreachable',
  );

export async function reverseOne(chain: ChainReader, input: string): Promise<KeyedReverseResult> {
  if (!isBase58Address(input)) throw invalidWallet(input);
  const wallet = input as Address;
  const { verdicts } = await withRpcErrors(() => explain(chain, [wallet]));
  const verdict = verdicts.get(wallet)!;
  if (verdict instanceof ChainError) throw rpcError(verdict);
  return { input, ...verdict.result };
}

export async function reverseBatch(chain: ChainReader, inputs: string[]): Promise<ReverseBatchResult> {
  const wallets = [...new Set(inputs.filter(isBase58Address))] as Address[];
  const { verdicts, slot } = await withRpcErrors(() => explain(chain, wallets));
  const results = inputs.map((input): ReverseBatchItem => {
    const verdict = isBase58Address(input) ? verdicts.get(input as Address)! : invalidWallet(input);
    const error = verdict instanceof ChainError ? rpcError(verdict) : verdict instanceof ApiError ? verdict : null;
    if (error) return { input, ok: false, error: { status: error.status, code: error.code, message: error.message } };
    return { input, ok: true, result: { input, ...(verdict as ReverseVerdict).result } };
  });
  return { results, slot: Number(slot) };
}

/** Reads pointers, then the handles they name, then the authority of each live handle; applies the rules. */
export async function explain(
  chain: ChainReader,
  wallets: readonly Address[],
  minContextSlot?: bigint,
): Promise<ReverseVerdicts> {
  const verdicts: ReverseVerdicts['verdicts'] = new Map();
  if (wallets.length === 0) return { verdicts, slot: 0n };
  const pointers = await chain.getPrimaries(wallets, { minContextSlot });
  const named = [
    ...new Set(
      pointers.value.filter((p): p is PrimaryPointerAccount => !!p && !(p instanceof ChainError)).map((p) => p.handle),
    ),
  ];
  const handles = named.length
    ? await chain.getHandlesByAddress(named, { minContextSlot: pointers.slot })
    : { value: [], slot: pointers.slot };
  const handleOf = new Map(named.map((at, i) => [at, handles.value[i]!]));

  // One authority read per live handle (none for a plain one; the NFT holder for a tokenized one).
  const authorities = new Map<Address, Promise<HandleAuthority | ChainError>>();
  const authorityOf = (handle: HandleAccount) => {
    let read = authorities.get(handle.address);
    if (!read) {
      read = chain.getHandleAuthority(handle).catch((err: unknown) => {
        if (err instanceof ChainError) return err;
        throw err;
      });
      authorities.set(handle.address, read);
    }
    return read;
  };

  await Promise.all(
    wallets.map(async (wallet, i) => {
      const pointer = pointers.value[i]!;
      if (pointer instanceof ChainError) return verdicts.set(wallet, pointer);
      const handle = pointer ? (handleOf.get(pointer.handle) ?? null) : null;
      if (handle instanceof ChainError) return verdicts.set(wallet, handle);
      // Authority is read for every live handle a pointer names, trusted or not: forwardMatch needs it.
      const live = handle && !isHandleReleased(handle) ? handle : null;
      const authority = live ? await authorityOf(live) : null;
      if (authority instanceof ChainError) return verdicts.set(wallet, authority);
      const failedRule = primaryFailure(pointer, handle, authority);
      const holder = authority?.authority ?? null;
      return verdicts.set(wallet, {
        handle: failedRule === null ? handle : null,
        result: {
          address: wallet,
          handle: failedRule === null ? handle!.name : null,
          failedRule,
          pointedHandle: live ? live.name : null,
          forwardMatch: holder === wallet,
          authority: holder,
          pointer: pointer
            ? {
                account: pointer.address,
                handleAccount: pointer.handle,
                setSlot: Number(pointer.setSlot),
                setAt: pointer.setAt,
              }
            : null,
          slot: Number(handles.slot),
        },
      });
    }),
  );
  return { verdicts, slot: handles.slot };
}
