// The Solana JSON-RPC methods the local chain serves, with the response shapes of a real node (as @solana/kit's
// RPC types expect them; u64 values are bigints here and go out as JSON numbers): one table of small handlers, each
// given its params and the chain's shared reads (rpc-encode.ts); the block methods live in rpc-blocks.ts. Adding a
// method is adding a row.
import { SubmitError, type ChainCore } from './core';
import { SLOTS_PER_EPOCH } from './ledger';
import { createBlockMethods } from './rpc-blocks';
import {
  chainReads,
  compileFilters,
  decodeWire,
  encodeTransaction,
  metaJson,
  reportInstruction,
  requireConfirmed,
  type ChainReads,
} from './rpc-encode';
import { RpcError, type MethodHandler } from './rpc-error';
import {
  address,
  addressList,
  args,
  getTransactionConfig,
  invalidParams,
  messageDecoder,
  optionalAccountConfig,
  optionalCommitmentConfig,
  optionalProgramAccountsConfig,
  RPC_API_VERSION,
  RPC_FEATURE_SET,
  sendTransactionConfig,
  signatureList,
  signaturesForAddressConfig,
  signatureStatusesConfig,
  simulateTransactionConfig,
  text,
  u64,
} from './rpc-params';
import { readMintDecimals, readTokenAccount, TOKEN_PROGRAMS, uiTokenAmount } from './tokens';

export { RPC_API_VERSION } from './rpc-params';

/** What a handler works with: the chain, and the reads every method shares. */
type Tools = ChainReads & { core: ChainCore; ledger: ChainCore['ledger'] };
type Handler = (params: unknown, t: Tools) => unknown;

const METHODS: Record<string, Handler> = {
  getHealth: () => 'ok',
  getVersion: () => ({ 'solana-core': RPC_API_VERSION, 'feature-set': RPC_FEATURE_SET }),
  getGenesisHash: (_params, t) => t.core.genesisHash,
  getIdentity: (_params, t) => ({ identity: t.core.faucetAddress }),
  getFirstAvailableBlock: () => 0n,
  getTransactionCount: (params, t) => {
    const [config] = args(params, optionalCommitmentConfig);
    t.readSlot(config);
    return t.ledger.totalTransactions;
  },

  getSlot: (params, t) => {
    const [config] = args(params, optionalCommitmentConfig);
    return t.readSlot(config).slot;
  },
  getBlockHeight: (params, t) => {
    const [config] = args(params, optionalCommitmentConfig);
    return t.readSlot(config).slot; // one block per slot, none skipped
  },
  getBlockTime: (params, t) => {
    const [slot] = args(params, u64);
    if (slot > t.ledger.slot) throw new RpcError(-32004, `Block not available for slot ${slot}`);
    return BigInt(t.ledger.blockTime(slot));
  },
  getEpochInfo: (params, t) => {
    const [config] = args(params, optionalCommitmentConfig);
    const { slot } = t.readSlot(config);
    return {
      absoluteSlot: slot,
      blockHeight: slot,
      epoch: slot / SLOTS_PER_EPOCH,
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: t.ledger.totalTransactions,
    };
  },
  getLatestBlockhash: (params, t) => {
    const [config] = args(params, optionalCommitmentConfig);
    const { commitment: c } = t.readSlot(config);
    const latest = t.ledger.latestBlockhash(c);
    return {
      context: t.context(latest.slot),
      value: { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight },
    };
  },
  isBlockhashValid: (params, t) => {
    const [blockhash, config] = args(params, text, optionalCommitmentConfig);
    const { slot } = t.readSlot(config);
    return { context: t.context(slot), value: t.ledger.isBlockhashValid(blockhash) };
  },
  getMinimumBalanceForRentExemption: (params, t) => {
    const [size] = args(params, u64, optionalCommitmentConfig);
    return t.core.svm.minimumBalanceForRentExemption(size);
  },
  getFeeForMessage: (params, t) => {
    const [encoded, config] = args(params, text, optionalCommitmentConfig);
    const { slot } = t.readSlot(config);
    const bytes = decodeWire(encoded, 'base64');
    try {
      const message = messageDecoder.decode(bytes);
      if (!t.ledger.isBlockhashValid(message.lifetimeToken)) return { context: t.context(slot), value: null };
      return { context: t.context(slot), value: 5000n * BigInt(message.header.numSignerAccounts) };
    } catch {
      throw invalidParams('invalid transaction message');
    }
  },
  getRecentPrioritizationFees: () => [],

  getBalance: (params, t) => {
    const [addr, config] = args(params, address, optionalCommitmentConfig);
    const { commitment: c, slot } = t.readSlot(config);
    return { context: t.context(slot), value: t.ledger.readAccount(addr, c)?.lamports ?? 0n };
  },
  getAccountInfo: (params, t) => {
    const [addr, config] = args(params, address, optionalAccountConfig);
    const { commitment: c, slot } = t.readSlot(config);
    return {
      context: t.context(slot),
      value: t.encodeAccount(addr, t.ledger.readAccount(addr, c), config?.encoding, config?.dataSlice),
    };
  },
  getMultipleAccounts: (params, t) => {
    const [addrs, config] = args(params, addressList, optionalAccountConfig);
    const { commitment: c, slot } = t.readSlot(config);
    return {
      context: t.context(slot),
      value: addrs.map((a) => t.encodeAccount(a, t.ledger.readAccount(a, c), config?.encoding, config?.dataSlice)),
    };
  },
  getProgramAccounts: (params, t) => {
    const [program, config] = args(params, address, optionalProgramAccountsConfig);
    const { commitment: c, slot } = t.readSlot(config);
    const filters = compileFilters(config?.filters);
    const value = t.ledger
      .accountsOwnedBy(program, c)
      .filter(({ address: a, account }) => t.matchesFilters(a, account, filters))
      .sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : 0))
      .map(({ address: a, account }) => ({
        pubkey: a,
        account: t.encodeAccount(a, account, config?.encoding, config?.dataSlice),
      }));
    return config?.withContext ? { context: t.context(slot), value } : value;
  },
  getTokenAccountBalance: (params, t) => {
    const [addr, config] = args(params, address, optionalCommitmentConfig);
    const { commitment: c, slot } = t.readSlot(config);
    return { context: t.context(slot), value: t.tokenAmountOf(addr, c) };
  },
  getTokenLargestAccounts: (params, t) => {
    const [mint, config] = args(params, address, optionalCommitmentConfig);
    const { commitment: c, slot } = t.readSlot(config);
    const decimals = readMintDecimals(t.ledger.readAccount(mint, c));
    if (decimals === null) throw invalidParams('Invalid param: could not find mint');
    const holders = TOKEN_PROGRAMS.flatMap((program) => t.ledger.accountsOwnedBy(program, c))
      .map(({ address: a, account }) => ({ address: a, token: readTokenAccount(account) }))
      .filter((h) => h.token?.mint === mint)
      .sort((x, y) => (x.token!.amount === y.token!.amount ? 0 : x.token!.amount > y.token!.amount ? -1 : 1))
      .slice(0, 20);
    return {
      context: t.context(slot),
      value: holders.map((h) => ({ address: h.address, ...uiTokenAmount(h.token!.amount, decimals) })),
    };
  },

  getSignaturesForAddress: (params, t) => {
    const [addr, cfg] = args(params, address, signaturesForAddressConfig);
    const { commitment: c } = t.readSlot(cfg);
    requireConfirmed(c);
    let records = t.ledger.signaturesFor(addr, c);
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
      confirmationStatus: t.ledger.statusOf(r.slot),
    }));
  },
  getSignatureStatuses: (params, t) => {
    const [signatures] = args(params, signatureList, signatureStatusesConfig);
    return {
      context: t.context(t.ledger.slot),
      value: signatures.map((s) => {
        const record = t.ledger.getTransaction(s, 'processed');
        if (!record) return null;
        const status = t.ledger.statusOf(record.slot);
        return {
          slot: record.slot,
          confirmations: status === 'finalized' ? null : t.ledger.slot - record.slot,
          err: record.meta.err,
          status: record.meta.err === null ? { Ok: null } : { Err: record.meta.err },
          confirmationStatus: status,
        };
      }),
    };
  },
  getTransaction: (params, t) => {
    const [signature, cfg] = args(params, text, getTransactionConfig);
    const c = cfg?.commitment ?? 'finalized';
    requireConfirmed(c);
    const record = t.ledger.getTransaction(signature, c);
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

  sendTransaction: async (params, t) => {
    const [encoded, cfg] = args(params, text, sendTransactionConfig);
    const wire = decodeWire(encoded, cfg?.encoding ?? 'base58');
    try {
      const result = await t.core.submit(wire, { skipPreflight: cfg?.skipPreflight });
      return result.signature;
    } catch (err) {
      if (err instanceof SubmitError) throw new RpcError(err.code, err.message, err.data);
      throw err;
    }
  },
  simulateTransaction: async (params, t) => {
    const [encoded, cfg] = args(params, text, simulateTransactionConfig);
    if (cfg?.sigVerify && cfg.replaceRecentBlockhash) {
      throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    }
    const { slot } = t.readSlot(cfg);
    const wire = decodeWire(encoded, cfg?.encoding ?? 'base58');
    let result;
    try {
      result = await t.core.simulate(wire, {
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
          const account = i >= 0 ? result.postAccounts[i]! : t.ledger.readAccount(a, 'processed');
          return t.encodeAccount(a, account, cfg.accounts!.encoding ?? 'base64', undefined);
        })
      : null;
    const latest = t.ledger.latestBlockhash('processed');
    return {
      context: t.context(slot),
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
  requestAirdrop: async (params, t) => {
    const [addr, lamports] = args(params, address, u64, optionalCommitmentConfig);
    if (lamports === 0n || lamports > 1_000_000n * 1_000_000_000n)
      throw invalidParams('Invalid params: airdrop amount out of range');
    try {
      return await t.core.airdrop(addr, lamports);
    } catch (err) {
      if (err instanceof SubmitError) throw new RpcError(-32603, `airdrop failed: ${err.message}`);
      throw err;
    }
  },
};

export function createRpcMethods(core: ChainCore): Record<string, MethodHandler> {
  const tools: Tools = { ...chainReads(core), core, ledger: core.ledger };
  const table = Object.entries(METHODS).map(([name, handler]) => [name, (params: unknown) => handler(params, tools)]);
  return {
    ...createBlockMethods(core, args, { transaction: encodeTransaction, meta: metaJson }),
    ...(Object.fromEntries(table) as Record<string, MethodHandler>),
  };
}
