// Solana Name Service (`.sol`) adapter on @solana/kit: the SNS-IP 5 resolution order (tokenized → NFT holder;
// SOL record V2 with staleness and right-of-association; SOL record V1 signed by the owner; else the owner).
// The maintained SNS SDK does not support kit 8, so the derivations and layouts are written here (docs/universal.md).
import { sha256 } from '@noble/hashes/sha2.js';
import {
  address,
  createSolanaRpc,
  getAddressDecoder,
  getAddressEncoder,
  getProgramDerivedAddress,
  isOffCurveAddress,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  type Address,
} from '@solana/kit';
import { getTokenDecoder } from '@solana-program/token';
import { ApiError } from '@sigil/contract/errors';
import { verifyEd25519 } from '../../platform/crypto/wallet-signature';

/** SPL Name Service program (mainnet and devnet). */
export const SNS_NAME_PROGRAM_ID = address('namesLPneVptA9Z5rqUDD9tMTWEJwofgaYwp8cawRkX');
/** The `.sol` TLD name account (parent of every second-level `.sol` name). */
export const SNS_ROOT_DOMAIN_ACCOUNT = address('58PwtjSDuFHuUkYjH9BYnnQKHfwo9reZhC2zMJv9JPkx');
/** Name tokenizer program: NFT record and mint PDAs of tokenized names. */
export const SNS_NAME_TOKENIZER_ID = address('nftD3vbNkNqfj2Sd3HZwbpw4BxxKWr4AjGb9X38JeZk');
/** SNS records (V2) central state: the name class of every V2 record account. */
export const SNS_RECORDS_CENTRAL_STATE = address('2pMnqHvei2N5oDcVGCRdZx48gqti199wr5CsyTTafsbo');
export const SNS_HASH_PREFIX = 'SPL Name Service';
/** Name registry header: parentName (32) | owner (32) | class (32); data follows. */
export const SNS_REGISTRY_HEADER_LEN = 96;
/** NftRecord: tag u8 | nonce u8 | nameAccount | owner | nftMint; tag 2 = active. */
export const SNS_NFT_RECORD_ACTIVE = 2;
/** sns-records Validation enum. */
export const SNS_VALIDATION = { None: 0, Solana: 1, Ethereum: 2, UnverifiedSolana: 3 } as const;

const utf8 = (s: string) => new TextEncoder().encode(s);
const ZERO32 = new Uint8Array(32);
const addressBytes = (a: Address) => getAddressEncoder().encode(a) as Uint8Array;

export function snsHashedName(name: string): Uint8Array {
  return sha256(utf8(SNS_HASH_PREFIX + name));
}

/** PDA of the name program with seeds [hashed name, class or 32 zero bytes, parent or 32 zero bytes]. */
export async function snsNameAccount(
  hashedName: Uint8Array,
  nameClass: Address | null,
  parent: Address | null,
): Promise<Address> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: SNS_NAME_PROGRAM_ID,
    seeds: [hashedName, nameClass ? addressBytes(nameClass) : ZERO32, parent ? addressBytes(parent) : ZERO32],
  });
  return pda;
}

export interface SnsKeys {
  domain: Address;
  nftRecord: Address;
  mint: Address;
  solRecordV1: Address;
  solRecordV2: Address;
}

/**
 * Accounts for `labels` (without `.sol`): [name] → a second-level name under the root; [sub, name] → a subdomain
 * (hashed as `\0sub` under the parent). Records hang under the name: V1 `\x01SOL` (no class), V2 `\x02SOL` with the
 * records central state as class.
 */
export async function snsKeys(labels: string[]): Promise<SnsKeys> {
  const parentName = labels[labels.length - 1]!;
  let domain = await snsNameAccount(snsHashedName(parentName), null, SNS_ROOT_DOMAIN_ACCOUNT);
  if (labels.length === 2) domain = await snsNameAccount(snsHashedName(`\0${labels[0]}`), null, domain);
  const [[nftRecord], [mint], solRecordV1, solRecordV2] = await Promise.all([
    getProgramDerivedAddress({
      programAddress: SNS_NAME_TOKENIZER_ID,
      seeds: [utf8('nft_record'), addressBytes(domain)],
    }),
    getProgramDerivedAddress({
      programAddress: SNS_NAME_TOKENIZER_ID,
      seeds: [utf8('tokenized_name'), addressBytes(domain)],
    }),
    snsNameAccount(snsHashedName('\x01SOL'), null, domain),
    snsNameAccount(snsHashedName('\x02SOL'), SNS_RECORDS_CENTRAL_STATE, domain),
  ]);
  return { domain, nftRecord, mint, solRecordV1, solRecordV2 };
}

/** The signed message of a SOL record V1: UTF-8 of the lowercase hex of (recorded key ‖ record account key). */
export function snsSolRecordV1Message(recorded: Uint8Array, recordKey: Address): Uint8Array {
  return utf8(Buffer.concat([recorded, addressBytes(recordKey)]).toString('hex'));
}

export interface SnsAnswer {
  address: string;
  /** Proved on chain: NFT holder, owner, or a V2 record with a valid right of association. */
  verified: boolean;
  via: 'nft-holder' | 'sol-record-v2' | 'sol-record-v1' | 'owner';
}

export interface SnsAdapter {
  resolveSol(labels: string[]): Promise<SnsAnswer>;
}

/** What the SNS reads take first: the Solana RPC and the per-call deadline. */
export interface SnsDeps {
  rpc: ReturnType<typeof createSolanaRpc>;
  timeoutMs: number;
}

export function createSnsAdapter(opts: { rpcUrl: string; timeoutMs: number }): SnsAdapter {
  const deps: SnsDeps = { rpc: createSolanaRpc(opts.rpcUrl), timeoutMs: opts.timeoutMs };
  return { resolveSol: (labels) => resolveSol(deps, labels) };
}

const commitment = 'confirmed' as const;
const malformed = (what: string) => new ApiError('RPC_ERROR', `SNS account ${what} does not decode`);
const bytesOf = (value: { data: readonly [string, string] | unknown; owner: string } | null): Uint8Array | null =>
  value ? new Uint8Array(Buffer.from((value.data as [string, string])[0], 'base64')) : null;

/** The SNS-IP 5 order: tokenized → NFT holder; SOL record V2; SOL record V1; else the owner (not a PDA). */
export async function resolveSol(deps: SnsDeps, labels: string[]): Promise<SnsAnswer> {
  const name = `${labels.join('.')}.sol`;
  const keys = await snsKeys(labels);
  const wanted = [keys.nftRecord, keys.solRecordV1, keys.solRecordV2, keys.domain];
  const { value: accounts } = await call(deps, (abortSignal) =>
    deps.rpc.getMultipleAccounts(wanted, { commitment, encoding: 'base64' }).send({ abortSignal }),
  );
  const [nftRecordInfo, v1Info, v2Info, registryInfo] = accounts;
  const registry = bytesOf(registryInfo ?? null);
  if (!registry || registryInfo!.owner !== SNS_NAME_PROGRAM_ID) {
    throw new ApiError('NAME_NOT_FOUND', `${name} is not registered`);
  }
  if (registry.length < SNS_REGISTRY_HEADER_LEN) throw malformed(keys.domain);
  const owner = getAddressDecoder().decode(registry.subarray(32, 64));

  // 1. Tokenized (active NFT record) → the NFT holder.
  const nftRecord = bytesOf(nftRecordInfo ?? null);
  if (nftRecord && nftRecordInfo!.owner === SNS_NAME_TOKENIZER_ID && nftRecord[0] === SNS_NFT_RECORD_ACTIVE) {
    return { address: await nftHolder(deps, keys.mint, name), verified: true, via: 'nft-holder' };
  }
  // 2. SOL record V2, then 3. SOL record V1.
  const fromRecord =
    fromRecordV2(name, keys, owner, bytesOf(v2Info ?? null)) ?? fromRecordV1(keys, owner, bytesOf(v1Info ?? null));
  if (fromRecord) return fromRecord;

  // 4. The owner, unless it is a program-derived address (no private key: funds sent there may be stuck).
  if (isOffCurveAddress(owner)) {
    throw new ApiError('NO_RECORD_FOR_CHAIN', `${name} is owned by a program-derived address and has no SOL record`);
  }
  return { address: owner, verified: true, via: 'owner' };
}

/**
 * SOL record V2: must be Solana-validated for both staleness and right of association; a stale one (staleness id ≠
 * current owner) is skipped (null), a wrong one refuses resolution (SNS-IP 5).
 */
function fromRecordV2(name: string, keys: SnsKeys, owner: Address, v2: Uint8Array | null): SnsAnswer | null {
  if (!v2) return null;
  const record = parseRecordV2(v2);
  if (!record) throw malformed(keys.solRecordV2);
  if (record.content.length !== 32) throw malformed(keys.solRecordV2);
  if (record.stalenessValidation !== SNS_VALIDATION.Solana || record.roaValidation !== SNS_VALIDATION.Solana) {
    const why = `${name}: the SOL record V2 is not Solana-validated, so it cannot be trusted`;
    throw new ApiError('NO_RECORD_FOR_CHAIN', why);
  }
  if (!Buffer.from(record.stalenessId).equals(Buffer.from(addressBytes(owner)))) return null;
  if (!Buffer.from(record.roaId).equals(Buffer.from(record.content))) {
    const why = `${name}: the SOL record V2 right of association does not match its content`;
    throw new ApiError('NO_RECORD_FOR_CHAIN', why);
  }
  return { address: getAddressDecoder().decode(record.content), verified: true, via: 'sol-record-v2' };
}

/** SOL record V1: 32-byte key + the owner's ed25519 signature over the documented message; else null. */
function fromRecordV1(keys: SnsKeys, owner: Address, v1: Uint8Array | null): SnsAnswer | null {
  if (!v1 || v1.length < SNS_REGISTRY_HEADER_LEN + 96) return null;
  const recorded = v1.subarray(SNS_REGISTRY_HEADER_LEN, SNS_REGISTRY_HEADER_LEN + 32);
  const signature = v1.subarray(SNS_REGISTRY_HEADER_LEN + 32, SNS_REGISTRY_HEADER_LEN + 96);
  const valid = verifyEd25519(signature, snsSolRecordV1Message(recorded, keys.solRecordV1), addressBytes(owner));
  // Signed by the owner, not by the recorded key: an instruction of the owner, not a proof of that key.
  return valid ? { address: getAddressDecoder().decode(recorded), verified: false, via: 'sol-record-v1' } : null;
}

async function nftHolder(deps: SnsDeps, mint: Address, name: string): Promise<Address> {
  const largest = await call(deps, async (abortSignal) => {
    try {
      return await deps.rpc.getTokenLargestAccounts(mint, { commitment }).send({ abortSignal });
    } catch (err) {
      if (isSolanaError(err, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)) return null; // mint gone
      throw err;
    }
  });
  const top = largest?.value[0];
  if (top) {
    const info = await call(deps, (abortSignal) =>
      deps.rpc.getAccountInfo(top.address, { commitment, encoding: 'base64' }).send({ abortSignal }),
    );
    const data = bytesOf(info.value);
    if (data && data.length >= 165) {
      const token = getTokenDecoder().decode(data);
      if (token.mint === mint && token.amount === 1n) return token.owner;
    }
  }
  throw new ApiError('NAME_NOT_FOUND', `${name} is tokenized and its NFT has no holder`);
}

/** One RPC call under the deadline; any failure that is not already an answer is 502 RPC_ERROR. */
async function call<T>(deps: SnsDeps, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
  try {
    return await send(AbortSignal.timeout(deps.timeoutMs));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError('RPC_ERROR', 'the Solana RPC is unreachable');
  }
}

interface RecordV2 {
  stalenessValidation: number;
  roaValidation: number;
  stalenessId: Uint8Array;
  roaId: Uint8Array;
  content: Uint8Array;
}

const VALIDATION_ID_LEN: Record<number, number> = { 0: 0, 1: 32, 2: 20, 3: 32 };

/** sns-records account: registry header (96) | staleness u16 | roa u16 | content length u32 | ids | content. */
export function parseRecordV2(data: Uint8Array): RecordV2 | null {
  const at = SNS_REGISTRY_HEADER_LEN;
  if (data.length < at + 8) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const stalenessValidation = view.getUint16(at, true);
  const roaValidation = view.getUint16(at + 2, true);
  const contentLength = view.getUint32(at + 4, true);
  const stalenessLen = VALIDATION_ID_LEN[stalenessValidation];
  const roaLen = VALIDATION_ID_LEN[roaValidation];
  if (stalenessLen === undefined || roaLen === undefined) return null;
  const start = at + 8;
  const end = start + stalenessLen + roaLen + contentLength;
  if (data.length < end) return null;
  return {
    stalenessValidation,
    roaValidation,
    stalenessId: data.subarray(start, start + stalenessLen),
    roaId: data.subarray(start + stalenessLen, start + stalenessLen + roaLen),
    content: data.subarray(start + stalenessLen + roaLen, end),
  };
}
