// How the local chain's JSON-RPC answers read the ledger and encode what they return, as a real node does: the
// commitment's slot (with minContextSlot), accounts in the asked encoding (with the malformed-data fault applied),
// program-account filters, token amounts, and transactions with their meta in the json or binary forms.
import type { Address } from '@solana/kit';
import type { z } from 'zod';
import type { ChainCore } from './core';
import { Faults } from './faults';
import type { Commitment, ReportedInstruction, TransactionRecord } from './ledger';
import {
  fromBase58,
  fromBase64,
  invalidParams,
  messageDecoder,
  RPC_API_VERSION,
  toBase58,
  toBase64,
  transactionDecoder,
  MAX_BASE58_BYTES,
  U64_MAX,
  type accountEncoding,
  type dataSlice,
  type programAccountsConfig,
} from './rpc-params';
import { RpcError } from './rpc-error';
import type { AccountSnapshot } from './svm-reads';
import { readMintDecimals, readTokenAccount, uiTokenAmount } from './tokens';

type Filters = z.infer<typeof programAccountsConfig>['filters'];
type CompiledFilter = { dataSize: number } | { offset: number; wanted: Uint8Array };

/** Decodes the memcmp bytes once per request, not once per account scanned. */
export function compileFilters(filters: Filters): CompiledFilter[] {
  return (filters ?? []).map((filter) => {
    if ('dataSize' in filter) return { dataSize: filter.dataSize };
    const { offset, bytes, encoding } = filter.memcmp;
    try {
      return { offset, wanted: encoding === 'base64' ? fromBase64(bytes) : fromBase58(bytes) };
    } catch {
      throw invalidParams(`Invalid params: memcmp bytes are not valid ${encoding ?? 'base58'}`);
    }
  });
}

/** The reads every method shares, over one chain. */
export function chainReads(core: ChainCore) {
  const { ledger, faults } = core;
  const context = (slot: bigint) => ({ slot, apiVersion: RPC_API_VERSION });

  const readSlot = (config: { commitment?: Commitment; minContextSlot?: bigint } | undefined) => {
    const c = config?.commitment ?? 'finalized';
    const slot = ledger.slotAt(c);
    if (config?.minContextSlot !== undefined && config.minContextSlot > slot) {
      throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
    }
    return { commitment: c, slot };
  };

  function encodeAccount(
    address: Address,
    account: AccountSnapshot | null,
    encoding: z.infer<typeof accountEncoding> | undefined,
    slice: z.infer<typeof dataSlice> | undefined,
  ) {
    if (!account) return null;
    let data = faults.isMalformed(address) ? Faults.garbage(account.data.length) : account.data;
    if (slice) data = data.subarray(slice.offset, slice.offset + slice.length);
    let encoded: unknown;
    if (encoding === 'base64+zstd')
      throw invalidParams('Invalid params: base64+zstd encoding is not supported by the local chain');
    if (encoding === undefined || encoding === 'base58') {
      if (data.length > MAX_BASE58_BYTES) {
        throw new RpcError(
          -32600,
          'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
        );
      }
      // No encoding given = the legacy "binary" form: a bare base58 string.
      encoded = encoding === undefined ? toBase58(data) : [toBase58(data), 'base58'];
    } else {
      // jsonParsed falls back to base64, as a node does for accounts it cannot parse.
      encoded = [toBase64(data), 'base64'];
    }
    return {
      data: encoded,
      executable: account.executable,
      lamports: account.lamports,
      owner: account.owner,
      rentEpoch: U64_MAX,
      space: BigInt(account.data.length),
    };
  }

  function matchesFilters(address: Address, account: AccountSnapshot, filters: CompiledFilter[]): boolean {
    const data = faults.isMalformed(address) ? Faults.garbage(account.data.length) : account.data;
    for (const filter of filters) {
      if ('dataSize' in filter) {
        if (data.length !== filter.dataSize) return false;
        continue;
      }
      const { offset, wanted } = filter;
      if (offset + wanted.length > data.length) return false;
      for (let i = 0; i < wanted.length; i++) if (data[offset + i] !== wanted[i]) return false;
    }
    return true;
  }

  function tokenAmountOf(address: Address, c: Commitment) {
    const token = readTokenAccount(ledger.readAccount(address, c));
    if (!token) throw invalidParams('Invalid param: could not find account');
    const decimals = readMintDecimals(ledger.readAccount(token.mint, c));
    if (decimals === null) throw invalidParams('Invalid param: could not find mint');
    return uiTokenAmount(token.amount, decimals);
  }

  return { context, readSlot, encodeAccount, matchesFilters, tokenAmountOf };
}

export type ChainReads = ReturnType<typeof chainReads>;

export function decodeWire(encoded: string, encoding: 'base58' | 'base64'): Uint8Array {
  try {
    return encoding === 'base64' ? fromBase64(encoded) : fromBase58(encoded);
  } catch {
    throw invalidParams(`invalid ${encoding} encoding`);
  }
}

export const reportInstruction = (ix: ReportedInstruction) => ({
  programIdIndex: ix.programIdIndex,
  accounts: ix.accounts,
  data: toBase58(ix.data),
  stackHeight: ix.stackHeight,
});

export function transactionJson(record: TransactionRecord) {
  const transaction = transactionDecoder.decode(record.wire);
  const message = messageDecoder.decode(transaction.messageBytes);
  if (message.version === 1) throw new RpcError(-32603, 'version 1 transactions are not stored');
  const json: Record<string, unknown> = {
    accountKeys: message.staticAccounts,
    header: {
      numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
      numRequiredSignatures: message.header.numSignerAccounts,
    },
    instructions: message.instructions.map((ix) => ({
      programIdIndex: ix.programAddressIndex,
      accounts: ix.accountIndices ?? [],
      data: toBase58(ix.data ?? new Uint8Array()),
      stackHeight: null,
    })),
    recentBlockhash: message.lifetimeToken,
  };
  if (message.version === 0) {
    json.addressTableLookups = (message.addressTableLookups ?? []).map((l) => ({
      accountKey: l.lookupTableAddress,
      writableIndexes: l.writableIndexes,
      readonlyIndexes: l.readonlyIndexes,
    }));
  }
  const signatures = Object.values(transaction.signatures).map((s) => toBase58(s ?? new Uint8Array(64)));
  return { message: json, signatures };
}

export function encodeTransaction(record: TransactionRecord, encoding: 'json' | 'jsonParsed' | 'base64' | 'base58') {
  if (encoding === 'base64') return [toBase64(record.wire), 'base64'];
  if (encoding === 'base58') return [toBase58(record.wire), 'base58'];
  return transactionJson(record); // jsonParsed is served as json
}

export function metaJson(record: TransactionRecord) {
  const { meta } = record;
  return {
    computeUnitsConsumed: meta.computeUnitsConsumed,
    err: meta.err,
    fee: meta.fee,
    innerInstructions: meta.innerInstructions.map((inner) => ({
      index: inner.index,
      instructions: inner.instructions.map(reportInstruction),
    })),
    loadedAddresses: meta.loadedAddresses,
    logMessages: meta.logMessages,
    postBalances: meta.postBalances,
    postTokenBalances: meta.postTokenBalances,
    preBalances: meta.preBalances,
    preTokenBalances: meta.preTokenBalances,
    rewards: [],
    status: meta.err === null ? { Ok: null } : { Err: meta.err },
  };
}

export const requireConfirmed = (c: Commitment) => {
  if (c === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
};
