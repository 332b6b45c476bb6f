// The Solana JSON-RPC methods the local chain serves, with the response shapes of a real node (as @solana/kit's
// RPC types expect them; u64 values are bigints here and go out as JSON numbers).
import {
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { z } from 'zod';
import { base58ToBytes, bytesToBase58, isAddressText } from './base58';
import { SubmitError, type ChainCore } from './core';
import { Faults } from './faults';
import {
  COMMITMENTS,
  SLOTS_PER_EPOCH,
  type Commitment,
  type ReportedInstruction,
  type TransactionRecord,
} from './ledger';
import type { AccountSnapshot } from './svm-reads';
import { createBlockMethods } from './rpc-blocks';
import { RpcError, type MethodHandler } from './rpc-error';
import { readMintDecimals, readTokenAccount, TOKEN_PROGRAMS, uiTokenAmount } from './tokens';

export const RPC_API_VERSION = '2.2.0';
export const RPC_FEATURE_SET = 3294202862;
const U64_MAX = 18_446_744_073_709_551_615n;
const MAX_BASE58_BYTES = 128;

const invalidParams = (message: string) => new RpcError(-32602, message);

const base64Encoder = getBase64Encoder();
const base64Decoder = getBase64Decoder();
const toBase58 = bytesToBase58;
const toBase64 = (bytes: ReadonlyUint8Array) => base64Decoder.decode(bytes);
const fromBase58 = base58ToBytes;
const fromBase64 = (text: string) => new Uint8Array(base64Encoder.encode(text));
const messageDecoder = getCompiledTransactionMessageDecoder();
const transactionDecoder = getTransactionDecoder();

// ---- parameter schemas -------------------------------------------------------------------------------------------

const address = z
  .string()
  .refine(isAddressText, { message: 'Invalid param: Invalid' })
  .transform((s) => s as Address);
const commitment = z.enum(COMMITMENTS as [Commitment, ...Commitment[]]);
const u64 = z.union([z.number().int().nonnegative(), z.bigint()]).transform((n) => BigInt(n));
const dataSlice = z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() });
const accountEncoding = z.enum(['base58', 'base64', 'base64+zstd', 'jsonParsed']);
const accountConfig = z
  .object({
    commitment: commitment.optional(),
    encoding: accountEncoding.optional(),
    dataSlice: dataSlice.optional(),
    minContextSlot: u64.optional(),
  })
  .passthrough();
const commitmentConfig = z.object({ commitment: commitment.optional(), minContextSlot: u64.optional() }).passthrough();
const memcmp = z.object({
  memcmp: z.object({
    offset: z.number().int().nonnegative(),
    bytes: z.string(),
    encoding: z.enum(['base58', 'base64']).optional(),
  }),
});
const dataSize = z.object({ dataSize: z.number().int().nonnegative() });
const programAccountsConfig = accountConfig.extend({
  filters: z
    .array(z.union([memcmp, dataSize]))
    .max(4)
    .optional(),
  withContext: z.boolean().optional(),
});

// Every schema is built once, here: zod v4 compiles a schema on its first parse, so building one per call
// costs far more than the parse itself.
const optionalCommitmentConfig = commitmentConfig.optional();
const optionalAccountConfig = accountConfig.optional();
const optionalProgramAccountsConfig = programAccountsConfig.optional();
const text = z.string();
const addressList = z.array(address).max(100);
const signaturesForAddressConfig = z
  .object({
    limit: z.number().int().min(1).max(1000).optional(),
    before: z.string().optional(),
    until: z.string().optional(),
    commitment: commitment.optional(),
    minContextSlot: u64.optional(),
  })
  .passthrough()
  .optional();
const signatureList = z.array(z.string()).max(256);
const signatureStatusesConfig = z.object({ searchTransactionHistory: z.boolean().optional() }).passthrough().optional();
const getTransactionConfig = z
  .object({
    encoding: z.enum(['json', 'jsonParsed', 'base64', 'base58']).optional(),
    commitment: commitment.optional(),
    maxSupportedTransactionVersion: z.number().int().min(0).max(0).optional(),
  })
  .passthrough()
  .optional();
const sendTransactionConfig = z
  .object({
    encoding: z.enum(['base58', 'base64']).optional(),
    skipPreflight: z.boolean().optional(),
    preflightCommitment: commitment.optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    minContextSlot: u64.optional(),
  })
  .passthrough()
  .optional();
const simulateTransactionConfig = z
  .object({
    encoding: z.enum(['base58', 'base64']).optional(),
    sigVerify: z.boolean().optional(),
    replaceRecentBlockhash: z.boolean().optional(),
    commitment: commitment.optional(),
    minContextSlot: u64.optional(),
    innerInstructions: z.boolean().optional(),
    accounts: z.object({ addresses: z.array(address), encoding: accountEncoding.optional() }).optional(),
  })
  .passthrough()
  .optional();

function parse<T extends z.ZodTypeAny>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw invalidParams(`Invalid params: ${issue?.path.join('.') || 'params'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

/** Positional params: `[required..., optional config]`. */
function args<T extends z.ZodTypeAny[]>(params: unknown, ...schemas: T): { [K in keyof T]: z.infer<T[K]> } {
  const list = params === undefined || params === null ? [] : params;
  if (!Array.isArray(list)) throw invalidParams('Invalid params: params must be an array');
  if (list.length > schemas.length)
    throw invalidParams(`Invalid params: expected at most ${schemas.length} parameters`);
  return schemas.map((schema, i) => parse(schema, list[i])) as { [K in keyof T]: z.infer<T[K]> };
}

// ---- helpers -----------------------------------------------------------------------------------------------------

export function createRpcMethods(core: ChainCore): Record<string, MethodHandler> {
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

  type Filters = z.infer<typeof programAccountsConfig>['filters'];
  type CompiledFilter = { dataSize: number } | { offset: number; wanted: Uint8Array };

  /** Decodes the memcmp bytes once per request, not once per account scanned. */
  function compileFilters(filters: Filters): CompiledFilter[] {
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

  function decodeWire(encoded: string, encoding: 'base58' | 'base64'): Uint8Array {
    try {
      return encoding === 'base64' ? fromBase64(encoded) : fromBase58(encoded);
    } catch {
      throw invalidParams(`invalid ${encoding} encoding`);
    }
  }

  const reportInstruction = (ix: ReportedInstruction) => ({
    programIdIndex: ix.programIdIndex,
    accounts: ix.accounts,
    data: toBase58(ix.data),
    stackHeight: ix.stackHeight,
  });

  function transactionJson(record: TransactionRecord) {
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

  function encodeTransaction(record: TransactionRecord, encoding: 'json' | 'jsonParsed' | 'base64' | 'base58') {
    if (encoding === 'base64') return [toBase64(record.wire), 'base64'];
    if (encoding === 'base58') return [toBase58(record.wire), 'base58'];
    return transactionJson(record); // jsonParsed is served as json
  }

  function metaJson(record: TransactionRecord) {
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

  const requireConfirmed = (c: Commitment) => {
    if (c === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  };

  // ---- methods ---------------------------------------------------------------------------------------------------

  return {
    ...createBlockMethods(core, args, { transaction: encodeTransaction, meta: metaJson }),
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': RPC_API_VERSION, 'feature-set': RPC_FEATURE_SET }),
    getGenesisHash: () => core.genesisHash,
    getIdentity: () => ({ identity: core.faucetAddress }),
    getFirstAvailableBlock: () => 0n,
    getTransactionCount: (params) => {
      const [config] = args(params, optionalCommitmentConfig);
      readSlot(config);
      return ledger.totalTransactions;
    },

    getSlot: (params) => {
      const [config] = args(params, optionalCommitmentConfig);
      return readSlot(config).slot;
    },
    getBlockHeight: (params) => {
      const [config] = args(params, optionalCommitmentConfig);
      return readSlot(config).slot; // one block per slot, none skipped
    },
    getBlockTime: (params) => {
      const [slot] = args(params, u64);
      if (slot > ledger.slot) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      return BigInt(ledger.blockTime(slot));
    },
    getEpochInfo: (params) => {
      const [config] = args(params, optionalCommitmentConfig);
      const { slot } = readSlot(config);
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: slot / SLOTS_PER_EPOCH,
        slotIndex: slot % SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: ledger.totalTransactions,
      };
    },
    getLatestBlockhash: (params) => {
      const [config] = args(params, optionalCommitmentConfig);
      const { commitment: c } = readSlot(config);
      const latest = ledger.latestBlockhash(c);
      return {
        context: context(latest.slot),
        value: { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight },
      };
    },
    isBlockhashValid: (params) => {
      const [blockhash, config] = args(params, text, optionalCommitmentConfig);
      const { slot } = readSlot(config);
      return { context: context(slot), value: ledger.isBlockhashValid(blockhash) };
    },
    getMinimumBalanceForRentExemption: (params) => {
      const [size] = args(params, u64, optionalCommitmentConfig);
      return core.svm.minimumBalanceForRentExemption(size);
    },
    getFeeForMessage: (params) => {
      const [encoded, config] = args(params, text, optionalCommitmentConfig);
      const { slot } = readSlot(config);
      const bytes = decodeWire(encoded, 'base64');
      try {
        const message = messageDecoder.decode(bytes);
        if (!ledger.isBlockhashValid(message.lifetimeToken)) return { context: context(slot), value: null };
        return { context: context(slot), value: 5000n * BigInt(message.header.numSignerAccounts) };
      } catch {
        throw invalidParams('invalid transaction message');
      }
    },
    getRecentPrioritizationFees: () => [],

    getBalance: (params) => {
      const [addr, config] = args(params, address, optionalCommitmentConfig);
      const { commitment: c, slot } = readSlot(config);
      return { context: context(slot), value: ledger.readAccount(addr, c)?.lamports ?? 0n };
    },
    getAccountInfo: (params) => {
      const [addr, config] = args(params, address, optionalAccountConfig);
      const { commitment: c, slot } = readSlot(config);
      return {
        context: context(slot),
        value: encodeAccount(addr, ledger.readAccount(addr, c), config?.encoding, config?.dataSlice),
      };
    },
    getMultipleAccounts: (params) => {
      const [addrs, config] = args(params, addressList, optionalAccountConfig);
      const { commitment: c, slot } = readSlot(config);
      return {
        context: context(slot),
        value: addrs.map((a) => encodeAccount(a, ledger.readAccount(a, c), config?.encoding, config?.dataSlice)),
      };
    },
    getProgramAccounts: (params) => {
      const [program, config] = args(params, address, optionalProgramAccountsConfig);
      const { commitment: c, slot } = readSlot(config);
      const filters = compileFilters(config?.filters);
      const value = ledger
        .accountsOwnedBy(program, c)
        .filter(({ address: a, account }) => matchesFilters(a, account, filters))
        .sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : 0))
        .map(({ address: a, account }) => ({
          pubkey: a,
          account: encodeAccount(a, account, config?.encoding, config?.dataSlice),
        }));
      return config?.withContext ? { context: context(slot), value } : value;
    },
    getTokenAccountBalance: (params) => {
      const [addr, config] = args(params, address, optionalCommitmentConfig);
      const { commitment: c, slot } = readSlot(config);
      return { context: context(slot), value: tokenAmountOf(addr, c) };
    },
    getTokenLargestAccounts: (params) => {
      const [mint, config] = args(params, address, optionalCommitmentConfig);
      const { commitment: c, slot } = readSlot(config);
      const decimals = readMintDecimals(ledger.readAccount(mint, c));
      if (decimals === null) throw invalidParams('Invalid param: could not find mint');
      const holders = TOKEN_PROGRAMS.flatMap((program) => ledger.accountsOwnedBy(program, c))
        .map(({ address: a, account }) => ({ address: a, token: readTokenAccount(account) }))
        .filter((h) => h.token?.mint === mint)
        .sort((x, y) => (x.token!.amount === y.token!.amount ? 0 : x.token!.amount > y.token!.amount ? -1 : 1))
        .slice(0, 20);
      return {
        context: context(slot),
        value: holders.map((h) => ({ address: h.address, ...uiTokenAmount(h.token!.amount, decimals) })),
      };
    },

    getSignaturesForAddress: (params) => {
      const [addr, cfg] = args(params, address, signaturesForAddressConfig);
      const { commitment: c } = readSlot(cfg);
      requireConfirmed(c);
      let records = ledger.signaturesFor(addr, c);
      if (cfg?.before) {
        const i = records.findIndex((r) => r.signature === cfg.before);
        records = i >= 0 ? records.slice(i + 1) : [];
      }
      if (cfg?.until) {
        const i = records.findIndex((r) => r.signature === cfg.until);
        if (i >= 0) records = records.slice(0, i);
      }
      return records.slice(0, cfg?.limit ?? 1000).map((r) => ({
        signature: r.signature,
        slot: r.slot,
        err: r.meta.err,
        memo: r.memos.length > 0 ? r.memos.map((m) => `[${new TextEncoder().encode(m).length}] ${m}`).join('; ') : null,
        blockTime: BigInt(r.blockTime),
        confirmationStatus: ledger.statusOf(r.slot),
      }));
    },
    getSignatureStatuses: (params) => {
      const [signatures] = args(params, signatureList, signatureStatusesConfig);
      return {
        context: context(ledger.slot),
        value: signatures.map((s) => {
          const record = ledger.getTransaction(s, 'processed');
          if (!record) return null;
          const status = ledger.statusOf(record.slot);
          return {
            slot: record.slot,
            confirmations: status === 'finalized' ? null : ledger.slot - record.slot,
            err: record.meta.err,
            status: record.meta.err === null ? { Ok: null } : { Err: record.meta.err },
            confirmationStatus: status,
          };
        }),
      };
    },
    getTransaction: (params) => {
      const [signature, cfg] = args(params, text, getTransactionConfig);
      const c = cfg?.commitment ?? 'finalized';
      requireConfirmed(c);
      const record = ledger.getTransaction(signature, c);
      if (!record) return null;
      if (record.version === 0 && cfg?.maxSupportedTransactionVersion === undefined) {
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      const transaction = encodeTransaction(record, cfg?.encoding ?? 'json');
      const out: Record<string, unknown> = {
        slot: record.slot,
        blockTime: BigInt(record.blockTime),
        meta: metaJson(record),
        transaction,
      };
      if (cfg?.maxSupportedTransactionVersion !== undefined) out.version = record.version;
      return out;
    },

    sendTransaction: async (params) => {
      const [encoded, cfg] = args(params, text, sendTransactionConfig);
      const wire = decodeWire(encoded, cfg?.encoding ?? 'base58');
      try {
        const result = await core.submit(wire, { skipPreflight: cfg?.skipPreflight });
        return result.signature;
      } catch (err) {
        if (err instanceof SubmitError) throw new RpcError(err.code, err.message, err.data);
        throw err;
      }
    },
    simulateTransaction: async (params) => {
      const [encoded, cfg] = args(params, text, simulateTransactionConfig);
      if (cfg?.sigVerify && cfg.replaceRecentBlockhash) {
        throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      }
      const { slot } = readSlot(cfg);
      const wire = decodeWire(encoded, cfg?.encoding ?? 'base58');
      let result;
      try {
        result = await core.simulate(wire, {
          sigVerify: cfg?.sigVerify,
          replaceRecentBlockhash: cfg?.replaceRecentBlockhash,
        });
      } catch (err) {
        if (err instanceof SubmitError) throw new RpcError(err.code, err.message, err.data);
        throw err;
      }
      const accounts = cfg?.accounts
        ? cfg.accounts.addresses.map((a) => {
            const i = result.accountKeys.indexOf(a);
            const account = i >= 0 ? result.postAccounts[i]! : ledger.readAccount(a, 'processed');
            return encodeAccount(a, account, cfg.accounts!.encoding ?? 'base64', undefined);
          })
        : null;
      const latest = ledger.latestBlockhash('processed');
      return {
        context: context(slot),
        value: {
          err: result.err,
          logs: result.logs,
          accounts,
          unitsConsumed: result.unitsConsumed,
          returnData: null,
          innerInstructions: cfg?.innerInstructions
            ? result.innerInstructions.map((inner) => ({
                index: inner.index,
                instructions: inner.instructions.map(reportInstruction),
              }))
            : null,
          replacementBlockhash: cfg?.replaceRecentBlockhash
            ? { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight }
            : null,
        },
      };
    },
    requestAirdrop: async (params) => {
      const [addr, lamports] = args(params, address, u64, optionalCommitmentConfig);
      if (lamports === 0n || lamports > 1_000_000n * 1_000_000_000n)
        throw invalidParams('Invalid params: airdrop amount out of range');
      try {
        return await core.airdrop(addr, lamports);
      } catch (err) {
        if (err instanceof SubmitError) throw new RpcError(-32603, `airdrop failed: ${err.message}`);
        throw err;
      }
    },
  };
}
