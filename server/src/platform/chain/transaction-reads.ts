// The chain reader's transaction and cluster reads, all through kit's typed client: the slot, genesis hash and node
// version, and the payment reads (default `finalized`): signatures touching an address, landed transactions
// (decoded, or in wire form) and token accounts by owner.
import {
  address as toAddress,
  getBase58Encoder,
  type Address,
  type Base58EncodedBytes,
  type Base64EncodedWireTransaction,
} from '@solana/kit';
import { getMintDecoder, getTokenDecoder } from '@solana-program/token';
import { accountBytes, TOKEN_ACCOUNT_SIZE, type EncodedAccount } from './account-data';
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from './programs';
import type { ChainRpc } from './transport';
import {
  ChainError,
  DEFAULT_COMMITMENT,
  type ChainReader,
  type ChainTransaction,
  type Commitment,
  type MintInfo,
  type RecentBlockhash,
  type SignatureInfo,
  type SimulationResult,
  type TokenAccountRef,
  type TransactionTokenBalance,
  type WireTransaction,
} from './types';

export type TransactionReads = Pick<
  ChainReader,
  | 'getSlot'
  | 'getGenesisHash'
  | 'getVersion'
  | 'getSignaturesForAddress'
  | 'getTransaction'
  | 'getTransactionWire'
  | 'getTokenAccountsByOwner'
  | 'getMint'
  | 'getLatestBlockhash'
  | 'simulateTransaction'
>;

export function createTransactionReads(chain: ChainRpc): TransactionReads {
  // Defaults per read (docs/chain-reads.md): the slot as resolution reads it; payment reads `finalized`.
  const payments = DEFAULT_COMMITMENT.payments;
  return {
    getSlot: (commitment = DEFAULT_COMMITMENT.resolution) => getSlot(chain, commitment),
    getGenesisHash: () => getGenesisHash(chain),
    getVersion: () => getVersion(chain),
    getSignaturesForAddress: (address, options = {}, commitment = payments) =>
      getSignaturesForAddress(chain, address, options, commitment),
    getTransaction: (signature, commitment = payments) => getTransaction(chain, signature, commitment),
    getTransactionWire: (signature, commitment = payments) => getTransactionWire(chain, signature, commitment),
    getTokenAccountsByOwner: (owner, commitment = payments) => getTokenAccountsByOwner(chain, owner, commitment),
    // A mint's program and decimals never change once it exists: `confirmed` is final enough.
    getMint: (mint, commitment = DEFAULT_COMMITMENT.resolution) => getMint(chain, mint, commitment),
    // `confirmed`, as wallets do: a finalized blockhash is ~32 slots older and expires that much sooner.
    getLatestBlockhash: (commitment = DEFAULT_COMMITMENT.resolution) => getLatestBlockhash(chain, commitment),
    simulateTransaction: (wire, commitment = DEFAULT_COMMITMENT.resolution) =>
      simulateTransaction(chain, wire, commitment),
  };
}

// ---- the cluster ------------------------------------------------------------------------------------------------

function getSlot(chain: ChainRpc, commitment: Commitment) {
  return chain.read(
    'getSlot',
    () => chain.rpc.getSlot({ commitment }).send(),
    (slot) => BigInt(slot),
  );
}

function getGenesisHash(chain: ChainRpc) {
  return chain.read(
    'getGenesisHash',
    () => chain.rpc.getGenesisHash().send(),
    (hash) => {
      if (typeof hash !== 'string' || hash.length === 0)
        throw new ChainError('malformed', 'getGenesisHash: not a hash');
      return hash as string;
    },
  );
}

function getVersion(chain: ChainRpc) {
  return chain.read(
    'getVersion',
    () => chain.rpc.getVersion().send(),
    (version) => {
      if (typeof version?.['solana-core'] !== 'string') throw new ChainError('malformed', 'getVersion: no solana-core');
      const featureSet = version['feature-set'];
      return featureSet === undefined || featureSet === null
        ? { 'solana-core': version['solana-core'] }
        : { 'solana-core': version['solana-core'], 'feature-set': Number(featureSet) };
    },
  );
}

function getLatestBlockhash(chain: ChainRpc, commitment: Commitment): Promise<RecentBlockhash> {
  return chain.read(
    'getLatestBlockhash',
    () => chain.rpc.getLatestBlockhash({ commitment }).send(),
    (answer) => {
      const value = answer?.value;
      if (typeof value?.blockhash !== 'string' || value.blockhash.length === 0) {
        throw new ChainError('malformed', 'getLatestBlockhash: no blockhash');
      }
      return { blockhash: value.blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) };
    },
  );
}

function simulateTransaction(chain: ChainRpc, wire: string, commitment: Commitment): Promise<SimulationResult> {
  return chain.read(
    'simulateTransaction',
    () =>
      chain.rpc
        .simulateTransaction(wire as Base64EncodedWireTransaction, {
          encoding: 'base64',
          sigVerify: false,
          replaceRecentBlockhash: true,
          commitment,
        })
        .send(),
    (answer) => {
      const value = answer?.value;
      if (!value || !('err' in value)) throw new ChainError('malformed', 'simulateTransaction: no result');
      return { err: value.err ?? null, logs: [...(value.logs ?? [])] };
    },
  );
}

// ---- payments (pay indexer, x402): finalized by default ---------------------------------------------------------

function getSignaturesForAddress(
  chain: ChainRpc,
  address: Address,
  options: { before?: string; until?: string; limit?: number },
  commitment: Commitment,
): Promise<SignatureInfo[]> {
  return chain.read(
    'getSignaturesForAddress',
    () =>
      chain.rpc
        .getSignaturesForAddress(address, {
          commitment: commitment === 'processed' ? 'confirmed' : commitment,
          ...(options.before ? { before: options.before as never } : {}),
          ...(options.until ? { until: options.until as never } : {}),
          ...(options.limit ? { limit: options.limit } : {}),
        })
        .send(),
    (list) =>
      (list as readonly { signature: string; slot: bigint; err: unknown; blockTime: bigint | null }[]).map((entry) => {
        if (typeof entry.signature !== 'string') {
          throw new ChainError('malformed', 'getSignaturesForAddress: entry without signature');
        }
        return {
          signature: entry.signature,
          slot: BigInt(entry.slot),
          err: entry.err ?? null,
          blockTime: entry.blockTime === null || entry.blockTime === undefined ? null : Number(entry.blockTime),
        };
      }),
  );
}

/** getTransaction in one encoding; `processed` is not served for transactions, so it reads as `confirmed`. */
function sendGetTransaction(chain: ChainRpc, signature: string, commitment: Commitment, encoding: 'json' | 'base64') {
  return () =>
    chain.rpc
      .getTransaction(signature as never, {
        commitment: commitment === 'processed' ? 'confirmed' : commitment,
        encoding: encoding as 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send() as Promise<unknown>;
}

function getTransaction(chain: ChainRpc, signature: string, commitment: Commitment): Promise<ChainTransaction | null> {
  return chain.read('getTransaction', sendGetTransaction(chain, signature, commitment, 'json'), (raw) =>
    raw === null ? null : decodeTransaction(signature, raw as unknown as RawTransaction),
  );
}

function getTransactionWire(
  chain: ChainRpc,
  signature: string,
  commitment: Commitment,
): Promise<WireTransaction | null> {
  return chain.read('getTransaction', sendGetTransaction(chain, signature, commitment, 'base64'), (raw) => {
    if (raw === null) return null;
    const tx = raw as unknown as WireTransaction;
    if (!Array.isArray(tx.transaction) || typeof tx.transaction[0] !== 'string') {
      throw new ChainError('malformed', `getTransaction ${signature}: no base64 transaction`);
    }
    return tx;
  });
}

/**
 * getProgramAccounts with the owner filter (offset 32 of a token account) on both token programs: served by every
 * node and by the local chain. Token-2022 accounts may carry extensions (longer than 165 bytes).
 */
async function getTokenAccountsByOwner(
  chain: ChainRpc,
  owner: Address,
  commitment: Commitment,
): Promise<TokenAccountRef[]> {
  const out: TokenAccountRef[] = [];
  for (const programId of [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]) {
    const filters = [
      { memcmp: { offset: 32n, bytes: owner as unknown as Base58EncodedBytes, encoding: 'base58' as const } },
      ...(programId === TOKEN_PROGRAM_ADDRESS ? [{ dataSize: BigInt(TOKEN_ACCOUNT_SIZE) }] : []),
    ];
    const accounts = await chain.read(
      'getProgramAccounts',
      () => chain.rpc.getProgramAccounts(programId, { encoding: 'base64', commitment, filters }).send(),
      (list) => ownedTokenAccounts(list as readonly { pubkey: Address; account: EncodedAccount }[], owner, programId),
    );
    out.push(...accounts);
  }
  return out;
}

/** The base mint layout (82 bytes), the same for SPL Token and Token-2022 (whose extensions follow it). */
const MINT_SIZE = 82;

function getMint(chain: ChainRpc, mint: Address, commitment: Commitment): Promise<MintInfo | null> {
  return chain.read(
    'getAccountInfo',
    () => chain.rpc.getAccountInfo(mint, { encoding: 'base64', commitment }).send(),
    (answer) => {
      const account = answer?.value as EncodedAccount | undefined;
      const bytes = accountBytes(account ?? null, mint, [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]);
      if (bytes === null) return null;
      // A Token-2022 mint with extensions is padded past the token-account size, then typed 1 (= Mint).
      const extended = bytes.length > TOKEN_ACCOUNT_SIZE && bytes[TOKEN_ACCOUNT_SIZE] === 1;
      if (bytes.length !== MINT_SIZE && !extended) {
        throw new ChainError('malformed', `account ${mint} is not a mint`, mint);
      }
      const decimals = getMintDecoder().decode(bytes.subarray(0, MINT_SIZE)).decimals;
      return { address: mint, tokenProgram: account!.owner, decimals };
    },
  );
}

/** The token accounts of one program's answer that `owner` holds (mints and other account types skipped). */
function ownedTokenAccounts(
  list: readonly { pubkey: Address; account: EncodedAccount }[],
  owner: Address,
  programId: Address,
): TokenAccountRef[] {
  return list.flatMap(({ pubkey, account }) => {
    const bytes = accountBytes(account, pubkey, [programId]);
    if (!bytes || bytes.length < TOKEN_ACCOUNT_SIZE) return [];
    // A Token-2022 account with extensions has its account type (2 = Account) right after the base layout.
    if (bytes.length > TOKEN_ACCOUNT_SIZE && bytes[TOKEN_ACCOUNT_SIZE] !== 2) return [];
    const decoded = getTokenDecoder().decode(bytes.subarray(0, TOKEN_ACCOUNT_SIZE));
    if (decoded.owner !== owner) return [];
    return [{ address: pubkey, mint: decoded.mint, owner: decoded.owner, programId }];
  });
}

// ---- a landed transaction, json encoding --------------------------------------------------------------------------

interface RawInstruction {
  programIdIndex: number | bigint;
  accounts: readonly (number | bigint)[];
  data: string;
}
interface RawTokenBalance {
  accountIndex: number | bigint;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string };
}
export interface RawTransaction {
  slot: bigint;
  blockTime: bigint | null;
  meta: {
    err: unknown;
    preBalances: readonly bigint[];
    postBalances: readonly bigint[];
    preTokenBalances?: readonly RawTokenBalance[] | null;
    postTokenBalances?: readonly RawTokenBalance[] | null;
    innerInstructions?: readonly { index: number | bigint; instructions: readonly RawInstruction[] }[] | null;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
  transaction: {
    message: {
      accountKeys: readonly string[];
      header: { numRequiredSignatures: number | bigint };
      instructions: readonly RawInstruction[];
    };
  };
}

/** The RPC's json form → ChainTransaction. Throws on anything that does not add up (indices out of range). */
export function decodeTransaction(signature: string, raw: RawTransaction): ChainTransaction {
  const meta = raw.meta;
  if (!meta) throw new ChainError('malformed', `getTransaction ${signature}: no meta`);
  const message = raw.transaction.message;
  const accountKeys = [
    ...message.accountKeys,
    ...(meta.loadedAddresses?.writable ?? []),
    ...(meta.loadedAddresses?.readonly ?? []),
  ].map((k) => toAddress(k));
  const key = (index: number | bigint): Address => {
    const k = accountKeys[Number(index)];
    if (k === undefined) {
      throw new ChainError('malformed', `getTransaction ${signature}: account index ${index} out of range`);
    }
    return k;
  };
  const base58 = getBase58Encoder();
  const instruction = (ix: RawInstruction) => ({
    programId: key(ix.programIdIndex),
    accounts: ix.accounts.map(key),
    data: new Uint8Array(base58.encode(ix.data)),
  });
  const inner = new Map<number, RawInstruction[]>();
  for (const group of meta.innerInstructions ?? []) inner.set(Number(group.index), [...group.instructions]);
  const balances = (list: readonly RawTokenBalance[] | null | undefined): TransactionTokenBalance[] =>
    (list ?? []).map((b) => ({
      accountIndex: Number(b.accountIndex),
      account: key(b.accountIndex),
      mint: toAddress(b.mint),
      owner: b.owner ? toAddress(b.owner) : null,
      programId: b.programId ? toAddress(b.programId) : null,
      amount: BigInt(b.uiTokenAmount.amount),
    }));
  return {
    signature,
    slot: BigInt(raw.slot),
    blockTime: raw.blockTime === null || raw.blockTime === undefined ? null : Number(raw.blockTime),
    err: meta.err ?? null,
    accountKeys,
    signers: accountKeys.slice(0, Number(message.header.numRequiredSignatures)),
    instructions: message.instructions.map((ix, index) => ({
      ...instruction(ix),
      inner: (inner.get(index) ?? []).map(instruction),
    })),
    preBalances: meta.preBalances.map((b) => BigInt(b)),
    postBalances: meta.postBalances.map((b) => BigInt(b)),
    preTokenBalances: balances(meta.preTokenBalances),
    postTokenBalances: balances(meta.postTokenBalances),
  };
}
