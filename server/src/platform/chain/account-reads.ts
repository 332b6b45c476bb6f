// The chain reader's account reads: the registry's accounts (handle, primary pointer, records, attestations,
// domain, invoice) and who holds authority over a handle (docs/chain-reads.md). The registry reads go on the plain
// JSON-RPC path; the NFT-holder lookup through kit's typed client.
import { getBase58Decoder, isSolanaError, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS, type Address } from '@solana/kit';
import { findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token';
import { accountBytes, decodeAs, stripBump, TOKEN_ACCOUNT_SIZE, type EncodedAccount } from './account-data';
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from './programs';
import {
  ACCOUNT_DISCRIMINATORS,
  ACCOUNT_OFFSETS,
  decodeAttestation,
  decodeDomain,
  decodeHandle,
  decodeInvoice,
  decodePrimaryPointer,
  decodeRecord,
  findDomainPda,
  findHandlePda,
  findNamespacePda,
  findPrimaryPointerPda,
  findAttestationPda,
  findRecordPda,
  RECORD_KIND_TEXT,
  decodeMarketAccount,
  type MarketAccountData,
  type MarketAccountName,
} from './registry';
import { isHandleReleased } from './trust-rules';
import type { ChainRpc } from './transport';
import {
  ChainError,
  DEFAULT_COMMITMENT,
  type AtSlot,
  type AttestationAccount,
  type ChainReader,
  type Commitment,
  type DomainAccount,
  type HandleAccount,
  type HandleAuthority,
  type InvoiceAccount,
  type Many,
  type ManyAccountsOptions,
  type RecordKey,
  type PrimaryPointerAccount,
  type RecordAccount,
  type RegistryScan,
} from './types';

export type AccountReads = Pick<
  ChainReader,
  | 'getHandle'
  | 'getHandleWithAttestations'
  | 'getHandleByAddress'
  | 'getHandleAuthority'
  | 'getPrimary'
  | 'getPrimaries'
  | 'getHandles'
  | 'getHandlesByAddress'
  | 'getTokenBalance'
  | 'getHandleAccounts'
  | 'getRecords'
  | 'getAttestations'
  | 'getDomain'
  | 'getInvoice'
  | 'getMarketAccount'
  | 'scanHandles'
  | 'scanTextRecords'
>;

/** What every account read needs: the calls, the registry program, and the reader's PDA memo. */
interface AccountReadContext {
  chain: ChainRpc;
  programId: Address;
  pda: (key: string, derive: () => Promise<readonly [Address, number]>) => Promise<Address>;
}

type AccountAnswer = { context: { slot: bigint }; value: unknown };

/** The memcmp bytes of the registry scans, base58 once at load (kit's base58 goes through BigInt on every call). */
const SCAN_DISCRIMINATORS = {
  Handle: getBase58Decoder().decode(ACCOUNT_DISCRIMINATORS.Handle),
  Record: getBase58Decoder().decode(ACCOUNT_DISCRIMINATORS.Record),
  Attestation: getBase58Decoder().decode(ACCOUNT_DISCRIMINATORS.Attestation),
} as const;

export function createAccountReads(chain: ChainRpc, programId: Address): AccountReads {
  const ctx: AccountReadContext = { chain, programId, pda: createPdaMemo() };
  // Defaults per read (docs/chain-reads.md): resolution reads `confirmed`, the invoice (payments) `finalized`.
  const resolution = DEFAULT_COMMITMENT.resolution;
  return {
    getHandle: (name, commitment = resolution) => getHandle(ctx, name, commitment),
    getHandleWithAttestations: (name, commitment = resolution) => getHandleWithAttestations(ctx, name, commitment),
    getHandleByAddress: (handle, commitment = resolution) => getHandleByAddress(ctx, handle, commitment),
    getHandleAuthority: (handle, commitment = resolution) => getHandleAuthority(ctx, handle, commitment),
    getPrimary: (wallet, commitment = resolution) => getPrimary(ctx, wallet, commitment),
    getPrimaries: (wallets, options = {}) => getPrimaries(ctx, wallets, { commitment: resolution, ...options }),
    getHandles: (names, options = {}) => getHandles(ctx, names, { commitment: resolution, ...options }),
    getHandlesByAddress: (handles, options = {}) =>
      getHandlesByAddress(ctx, handles, { commitment: resolution, ...options }),
    getHandleAccounts: (handle, wanted, options = {}) =>
      getHandleAccounts(ctx, handle, wanted, { commitment: resolution, ...options }),
    getTokenBalance: (owner, mint, options = {}) =>
      getTokenBalance(ctx, owner, mint, { commitment: resolution, ...options }),
    getRecords: (handle, commitment = resolution) => getRecords(ctx, handle, commitment),
    getAttestations: (handle, commitment = resolution) => getAttestations(ctx, handle, commitment),
    getDomain: (label, tld, commitment = resolution) => getDomain(ctx, label, tld, commitment),
    getInvoice: (invoice, commitment = DEFAULT_COMMITMENT.payments) => getInvoice(ctx, invoice, commitment),
    getMarketAccount: (name, account, commitment = resolution) => getMarketAccount(ctx, name, account, commitment),
    scanHandles: (commitment = resolution) => scanHandles(ctx, commitment),
    scanTextRecords: (key, commitment = resolution) => scanTextRecords(ctx, key, commitment),
  };
}

/** PDA derivation hashes and checks the curve: memoize the few thousand names a process sees (bounded). */
function createPdaMemo(): AccountReadContext['pda'] {
  const memo = new Map<string, Address>();
  return async (key, derive) => {
    const hit = memo.get(key);
    if (hit) return hit;
    const [pda] = await derive();
    if (memo.size >= 10_000) memo.clear();
    memo.set(key, pda);
    return pda;
  };
}

// ---- one account by address (getAccountInfo, plain path) ------------------------------------------------------

/** As kit sends it: `finalized` is every node's default, so it is left out. */
function commitmentParam(commitment: Commitment): { commitment?: Commitment } {
  return commitment === 'finalized' ? {} : { commitment };
}

const accountParams = (at: Address, commitment: Commitment) => [
  at,
  { encoding: 'base64', ...commitmentParam(commitment) },
];

/** A plain getAccountInfo result, checked: `{context: {slot: bigint}, value}`. */
function accountAnswer(at: Address, result: unknown): AccountAnswer {
  const answer = result as { context?: { slot?: unknown }; value?: unknown } | null;
  if (!answer || typeof answer !== 'object' || answer.value === undefined) {
    throw new ChainError('malformed', `getAccountInfo ${at}: no value in the answer`, at);
  }
  return { context: { slot: slotOf(answer.context?.slot) }, value: answer.value };
}

/** A slot from a plain-JSON answer: a safe integer (a larger one could not be read exactly), as bigint. */
function slotOf(slot: unknown): bigint {
  if (typeof slot === 'bigint') return slot; // a test transport speaking kit's codec
  if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) {
    throw new ChainError('malformed', `context.slot ${String(slot)} is not a slot`);
  }
  return BigInt(slot);
}

/** getAccountInfo (base64) on the plain path, then `decode` of the checked answer; reported as getAccountInfo. */
function readAccount<T>(
  ctx: AccountReadContext,
  at: Address,
  commitment: Commitment,
  decode: (answer: AccountAnswer) => T,
): Promise<T> {
  const send = async () =>
    accountAnswer(at, await ctx.chain.plainCall('getAccountInfo', accountParams(at, commitment)));
  return ctx.chain.read('getAccountInfo', send, decode);
}

/** The registry account at `at` (owned by the program), or null when absent. */
function programAccountBytes(ctx: AccountReadContext, at: Address, value: unknown): Uint8Array | null {
  return accountBytes(value as EncodedAccount, at, [ctx.programId]);
}

// ---- the registry scans (getProgramAccounts with memcmp, plain path) --------------------------------------------

type ScanKind = 'Record' | 'Attestation';

/** The registry's filtered scan: accounts of `kind` that belong to `handle` (memcmp on discriminator and handle). */
function programAccountsParams(programId: Address, kind: ScanKind, handle: Address, commitment: Commitment): unknown[] {
  const discriminator = SCAN_DISCRIMINATORS[kind];
  return [
    programId,
    {
      encoding: 'base64',
      ...commitmentParam(commitment),
      filters: [
        { memcmp: { offset: 0, bytes: discriminator, encoding: 'base58' } },
        { memcmp: { offset: ACCOUNT_OFFSETS[kind].handle, bytes: handle, encoding: 'base58' } },
      ],
    },
  ];
}

function decodeProgramAccounts<T>(
  programId: Address,
  accounts: unknown,
  decode: (at: Address, bytes: Uint8Array) => T,
): T[] {
  return (accounts as readonly { pubkey: Address; account: EncodedAccount }[]).map(({ pubkey, account }) => {
    const bytes = accountBytes(account, pubkey, [programId])!;
    return decodeAs(pubkey, () => decode(pubkey, bytes));
  });
}

function scanByHandle<T>(
  ctx: AccountReadContext,
  kind: ScanKind,
  handle: Address,
  commitment: Commitment,
  decode: (accounts: unknown) => T,
): Promise<T> {
  const params = () => programAccountsParams(ctx.programId, kind, handle, commitment);
  return ctx.chain.read('getProgramAccounts', () => ctx.chain.plainCall('getProgramAccounts', params()), decode);
}

/** Attestations sorted by platform. */
const decodeAttestations = (programId: Address, accounts: unknown): AttestationAccount[] =>
  decodeProgramAccounts(programId, accounts, (at, bytes) => stripBump(decodeAttestation(at, bytes))).sort((a, b) =>
    a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0,
  );

// ---- whole-registry scans (the handle index) --------------------------------------------------------------------

type MemcmpFilter = { memcmp: { offset: number; bytes: string; encoding: 'base58' } };

const memcmp = (offset: number, bytes: Uint8Array | string): MemcmpFilter => ({
  memcmp: { offset, bytes: typeof bytes === 'string' ? bytes : getBase58Decoder().decode(bytes), encoding: 'base58' },
});

/**
 * getProgramAccounts over the whole registry with `filters`, each account decoded on its own: one that does not
 * decode goes to `undecodable` (a scan of thousands must not fail on one bad account); a malformed answer as a whole
 * still fails the read.
 */
function scanRegistry<T>(
  ctx: AccountReadContext,
  filters: MemcmpFilter[],
  commitment: Commitment,
  decode: (at: Address, bytes: Uint8Array) => T,
): Promise<RegistryScan<T>> {
  const params = [ctx.programId, { encoding: 'base64', ...commitmentParam(commitment), filters }];
  return ctx.chain.read(
    'getProgramAccounts',
    () => ctx.chain.plainCall('getProgramAccounts', params),
    (answer) => {
      if (!Array.isArray(answer)) throw new ChainError('malformed', 'getProgramAccounts: the answer is not a list');
      const scan: RegistryScan<T> = { accounts: [], undecodable: [] };
      for (const { pubkey, account } of answer as { pubkey: Address; account: EncodedAccount }[]) {
        try {
          scan.accounts.push(decodeAs(pubkey, () => decode(pubkey, accountBytes(account, pubkey, [ctx.programId])!)));
        } catch (err) {
          if (!(err instanceof ChainError)) throw err;
          scan.undecodable.push(pubkey);
        }
      }
      return scan;
    },
  );
}

function scanHandles(ctx: AccountReadContext, commitment: Commitment): Promise<RegistryScan<HandleAccount>> {
  return scanRegistry(ctx, [memcmp(0, SCAN_DISCRIMINATORS.Handle)], commitment, (at, bytes) =>
    stripBump(decodeHandle(at, bytes)),
  );
}

/** The key is stored as a u32 little-endian length and its UTF-8 bytes: matching both matches the key exactly. */
function storedString(value: string): Uint8Array {
  const utf8 = new TextEncoder().encode(value);
  const out = new Uint8Array(4 + utf8.length);
  new DataView(out.buffer).setUint32(0, utf8.length, true);
  out.set(utf8, 4);
  return out;
}

function scanTextRecords(
  ctx: AccountReadContext,
  key: string,
  commitment: Commitment,
): Promise<RegistryScan<RecordAccount>> {
  const filters = [
    memcmp(0, SCAN_DISCRIMINATORS.Record),
    memcmp(ACCOUNT_OFFSETS.Record.kind, Uint8Array.of(RECORD_KIND_TEXT)),
    memcmp(ACCOUNT_OFFSETS.Record.key, storedString(key)),
  ];
  return scanRegistry(ctx, filters, commitment, (at, bytes) => stripBump(decodeRecord(at, bytes)));
}

// ---- handles ----------------------------------------------------------------------------------------------------

const handlePda = (ctx: AccountReadContext, name: string) =>
  ctx.pda(`handle:${name}`, () => findHandlePda(ctx.programId, name));

/** A getHandle answer: the live account under the name's PDA, or null. */
function handleOf(
  ctx: AccountReadContext,
  name: string,
  pda: Address,
  answer: AccountAnswer,
): AtSlot<HandleAccount | null> {
  const bytes = programAccountBytes(ctx, pda, answer.value);
  if (!bytes) return { value: null, slot: answer.context.slot };
  const handle = stripBump(decodeAs(pda, () => decodeHandle(pda, bytes)));
  // The PDA commits to the name; a different stored name means the account is not what it claims.
  if (handle.name !== name) throw new ChainError('malformed', `account ${pda}: stores name "${handle.name}"`, pda);
  return { value: handle, slot: answer.context.slot };
}

async function getHandle(ctx: AccountReadContext, name: string, commitment: Commitment) {
  const pda = await handlePda(ctx, name);
  return readAccount(ctx, pda, commitment, (answer) => handleOf(ctx, name, pda, answer));
}

async function getHandleWithAttestations(ctx: AccountReadContext, name: string, commitment: Commitment) {
  const pda = await handlePda(ctx, name);
  const { chain } = ctx;
  const started = performance.now();
  let results: (() => unknown)[];
  try {
    results = await chain.plainBatch([
      ['getAccountInfo', accountParams(pda, commitment)],
      ['getProgramAccounts', programAccountsParams(ctx.programId, 'Attestation', pda, commitment)],
    ]);
  } catch (err) {
    chain.sendFailed('getProgramAccounts', started, err);
    throw chain.sendFailed('getAccountInfo', started, err);
  }
  const [handleResult, attestationsResult] = results as [() => unknown, () => unknown];
  /** One call's result out of the batch; its JSON-RPC error is reported as that call's failure. */
  const unwrap = (method: string, result: () => unknown) => {
    try {
      return result();
    } catch (err) {
      throw chain.sendFailed(method, started, err);
    }
  };
  // The attestations part never fails the read: its error or undecodable answer is `null` (reported as such).
  const readAttestations = async () =>
    chain.decodeReported('getProgramAccounts', started, unwrap('getProgramAccounts', attestationsResult), (accounts) =>
      decodeAttestations(ctx.programId, accounts),
    );
  const attestations = await readAttestations().catch(() => null);
  const answer = unwrap('getAccountInfo', handleResult);
  const handle = await chain.decodeReported('getAccountInfo', started, answer, (result) =>
    handleOf(ctx, name, pda, accountAnswer(pda, result)),
  );
  return { handle, attestations };
}

async function getHandleByAddress(ctx: AccountReadContext, handle: Address, commitment: Commitment) {
  return readAccount(ctx, handle, commitment, ({ value }) => {
    const bytes = programAccountBytes(ctx, handle, value);
    return bytes ? stripBump(decodeAs(handle, () => decodeHandle(handle, bytes))) : null;
  });
}

// ---- authority over a handle ------------------------------------------------------------------------------------

async function getHandleAuthority(
  ctx: AccountReadContext,
  handle: HandleAccount,
  commitment: Commitment,
): Promise<HandleAuthority> {
  if (!handle.tokenized) {
    if (isHandleReleased(handle)) return { authority: null, source: 'owner', reason: 'released' };
    return { authority: handle.owner, source: 'owner' };
  }
  const mint = handle.mint;
  if (!mint) throw new ChainError('malformed', `handle ${handle.address} is tokenized without a mint`, handle.address);

  const holder = await nftHolderAccount(ctx, mint, commitment);
  if (!holder) return { authority: null, source: 'nft-holder', reason: 'nft-burned' };

  const token = await readHeldToken(ctx, holder, mint, commitment);
  if (!token || token.amount < 1n) return { authority: null, source: 'nft-holder', reason: 'nft-burned' };

  const [ata] = await findAssociatedTokenPda({ owner: token.owner, mint, tokenProgram: token.tokenProgram });
  if (ata !== holder) return { authority: null, source: 'nft-holder', reason: 'nft-not-in-ata' };
  return { authority: token.owner, source: 'nft-holder' };
}

/** The token account holding the handle's NFT (a balance of at least one), or null when nobody holds it. */
function nftHolderAccount(ctx: AccountReadContext, mint: Address, commitment: Commitment): Promise<Address | null> {
  return ctx.chain.read(
    'getTokenLargestAccounts',
    async () => {
      try {
        return await ctx.chain.rpc.getTokenLargestAccounts(mint, { commitment }).send();
      } catch (err) {
        // The node answers "invalid params" when the mint account is gone or not a mint: nobody holds the NFT.
        if (isSolanaError(err, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)) return null;
        throw err;
      }
    },
    (answer) => answer?.value.find((entry) => BigInt(entry.amount) >= 1n)?.address ?? null,
  );
}

/** The holder's token account of `mint` (SPL Token or Token-2022): its owner, amount and token program. */
function readHeldToken(ctx: AccountReadContext, holder: Address, mint: Address, commitment: Commitment) {
  return readAccount(ctx, holder, commitment, ({ value }) => {
    const account = value as EncodedAccount;
    const bytes = accountBytes(account, holder, [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]);
    if (!bytes) return null; // closed between the two reads
    if (bytes.length < TOKEN_ACCOUNT_SIZE) {
      throw new ChainError('malformed', `token account ${holder}: ${bytes.length} bytes`, holder);
    }
    const decoded = getTokenDecoder().decode(bytes);
    if (decoded.mint !== mint) {
      throw new ChainError('malformed', `token account ${holder} is for mint ${decoded.mint}`, holder);
    }
    return { owner: decoded.owner, amount: decoded.amount, tokenProgram: account!.owner };
  });
}

// ---- primary pointer, records, attestations, domain, invoice ----------------------------------------------------

async function getPrimary(ctx: AccountReadContext, wallet: Address, commitment: Commitment) {
  const pda = await ctx.pda(`primary:${wallet}`, () => findPrimaryPointerPda(ctx.programId, wallet));
  return readAccount(ctx, pda, commitment, ({ value }): PrimaryPointerAccount | null => {
    const bytes = programAccountBytes(ctx, pda, value);
    if (!bytes) return null;
    const pointer = stripBump(decodeAs(pda, () => decodePrimaryPointer(pda, bytes)));
    if (pointer.wallet !== wallet) {
      throw new ChainError('malformed', `account ${pda}: stores wallet ${pointer.wallet}`, pda);
    }
    return pointer;
  });
}

async function getRecords(ctx: AccountReadContext, handle: Address, commitment: Commitment): Promise<RecordAccount[]> {
  const records = await scanByHandle(ctx, 'Record', handle, commitment, (accounts) =>
    decodeProgramAccounts(ctx.programId, accounts, (at, bytes) => stripBump(decodeRecord(at, bytes))),
  );
  // Deterministic order for callers and caches: address records first, then by key.
  return records.sort((a, b) =>
    a.kind === b.kind ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : a.kind === 'address' ? -1 : 1,
  );
}

async function getAttestations(ctx: AccountReadContext, handle: Address, commitment: Commitment) {
  return scanByHandle(ctx, 'Attestation', handle, commitment, (accounts) =>
    decodeAttestations(ctx.programId, accounts),
  );
}

async function getDomain(ctx: AccountReadContext, label: string, tld: string, commitment: Commitment) {
  const namespace = await ctx.pda(`namespace:${tld}`, () => findNamespacePda(ctx.programId, tld));
  const pda = await ctx.pda(`domain:${namespace}:${label}`, () => findDomainPda(ctx.programId, namespace, label));
  return readAccount(ctx, pda, commitment, ({ context, value }): AtSlot<DomainAccount | null> => {
    const bytes = programAccountBytes(ctx, pda, value);
    if (!bytes) return { value: null, slot: context.slot };
    const domain = stripBump(decodeAs(pda, () => decodeDomain(pda, bytes)));
    if (domain.label !== label || domain.tld !== tld || domain.namespace !== namespace) {
      throw new ChainError('malformed', `account ${pda}: stores ${domain.label}.${domain.tld}`, pda);
    }
    return { value: domain, slot: context.slot };
  });
}

function getMarketAccount<N extends MarketAccountName>(
  ctx: AccountReadContext,
  name: N,
  account: Address,
  commitment: Commitment,
): Promise<MarketAccountData<N> | null> {
  return readAccount(ctx, account, commitment, ({ value }) => {
    const bytes = programAccountBytes(ctx, account, value);
    return bytes ? decodeAs(account, () => decodeMarketAccount(name, bytes)) : null;
  });
}

async function getInvoice(ctx: AccountReadContext, invoice: Address, commitment: Commitment) {
  return readAccount(ctx, invoice, commitment, ({ value }): InvoiceAccount | null => {
    const bytes = programAccountBytes(ctx, invoice, value);
    return bytes ? stripBump(decodeAs(invoice, () => decodeInvoice(invoice, bytes))) : null;
  });
}

// ---- many accounts at one slot (getMultipleAccounts, plain path) -------------------------------------------------

/** The most accounts one getMultipleAccounts may ask for (every node's limit). */
export const MAX_MULTIPLE_ACCOUNTS = 100;

type ManyOptions = ManyAccountsOptions & { commitment: Commitment };

function contextParams(options: ManyOptions): Record<string, unknown> {
  return {
    ...commitmentParam(options.commitment),
    ...(options.minContextSlot === undefined ? {} : { minContextSlot: Number(options.minContextSlot) }),
  };
}

/** getMultipleAccounts of `at` (at most 100), each entry decoded on its own: a bad one is its ChainError. */
function readMany<T>(
  ctx: AccountReadContext,
  at: readonly Address[],
  options: ManyOptions,
  decode: (at: Address, account: EncodedAccount) => T | null,
): Promise<AtSlot<Many<T>>> {
  if (at.length > MAX_MULTIPLE_ACCOUNTS)
    throw new Error(`getMultipleAccounts: ${at.length} > ${MAX_MULTIPLE_ACCOUNTS}`);
  if (at.length === 0) return Promise.resolve({ value: [], slot: 0n });
  const params = [at, { encoding: 'base64', ...contextParams(options) }];
  return ctx.chain.read(
    'getMultipleAccounts',
    () => ctx.chain.plainCall('getMultipleAccounts', params),
    (result) => {
      const answer = result as { context?: { slot?: unknown }; value?: unknown } | null;
      if (!answer || !Array.isArray(answer.value) || answer.value.length !== at.length) {
        throw new ChainError('malformed', 'getMultipleAccounts: the answer does not list every account');
      }
      const slot = slotOf(answer.context?.slot);
      const value = (answer.value as EncodedAccount[]).map((account, i) => {
        try {
          return decode(at[i]!, account);
        } catch (err) {
          if (err instanceof ChainError) return err;
          throw err;
        }
      });
      return { value, slot };
    },
  );
}

async function getPrimaries(ctx: AccountReadContext, wallets: readonly Address[], options: ManyOptions) {
  const pdas = await Promise.all(
    wallets.map((wallet) => ctx.pda(`primary:${wallet}`, () => findPrimaryPointerPda(ctx.programId, wallet))),
  );
  return readMany(ctx, pdas, options, (pda, account): PrimaryPointerAccount | null => {
    const bytes = programAccountBytes(ctx, pda, account);
    if (!bytes) return null;
    const pointer = stripBump(decodeAs(pda, () => decodePrimaryPointer(pda, bytes)));
    const wallet = wallets[pdas.indexOf(pda)];
    if (pointer.wallet !== wallet)
      throw new ChainError('malformed', `account ${pda}: stores wallet ${pointer.wallet}`, pda);
    return pointer;
  });
}

async function getHandles(ctx: AccountReadContext, names: readonly string[], options: ManyOptions) {
  const pdas = await Promise.all(names.map((name) => handlePda(ctx, name)));
  const nameOf = new Map(pdas.map((pda, i) => [pda, names[i]!]));
  return readMany(ctx, pdas, options, (at, account): HandleAccount | null => {
    const bytes = programAccountBytes(ctx, at, account);
    if (!bytes) return null;
    const handle = stripBump(decodeAs(at, () => decodeHandle(at, bytes)));
    // As getHandle: the PDA commits to the name; a different stored name means the account is not what it claims.
    if (handle.name !== nameOf.get(at))
      throw new ChainError('malformed', `account ${at}: stores name "${handle.name}"`, at);
    return handle;
  });
}

function getHandlesByAddress(ctx: AccountReadContext, handles: readonly Address[], options: ManyOptions) {
  return readMany(ctx, handles, options, (at, account): HandleAccount | null => {
    const bytes = programAccountBytes(ctx, at, account);
    return bytes ? stripBump(decodeAs(at, () => decodeHandle(at, bytes))) : null;
  });
}

async function getHandleAccounts(
  ctx: AccountReadContext,
  handle: Address,
  wanted: { records: readonly RecordKey[]; attestations: readonly string[] },
  options: ManyOptions,
): Promise<AtSlot<{ records: Many<RecordAccount>; attestations: Many<AttestationAccount> }>> {
  const recordPdas = await Promise.all(
    wanted.records.map(({ kind, key }) =>
      ctx.pda(`record:${handle}:${kind}:${key}`, () => findRecordPda(ctx.programId, handle, kind, key)),
    ),
  );
  const attestationPdas = await Promise.all(
    wanted.attestations.map((platform) =>
      ctx.pda(`attestation:${handle}:${platform}`, () => findAttestationPda(ctx.programId, handle, platform)),
    ),
  );
  const split = recordPdas.length;
  const { value, slot } = await readMany(ctx, [...recordPdas, ...attestationPdas], options, (at, account) => {
    const bytes = programAccountBytes(ctx, at, account);
    if (!bytes) return null;
    return recordPdas.includes(at)
      ? stripBump(decodeAs(at, () => decodeRecord(at, bytes)))
      : stripBump(decodeAs(at, () => decodeAttestation(at, bytes)));
  });
  return {
    value: {
      records: value.slice(0, split) as Many<RecordAccount>,
      attestations: value.slice(split) as Many<AttestationAccount>,
    },
    slot,
  };
}

/** Offsets of a token account's mint and owner (the same in SPL Token and Token-2022). */
const TOKEN_MINT_OFFSET = 0;
const TOKEN_OWNER_OFFSET = 32;

/** Both token programs scanned for `owner`'s accounts of `mint` (memcmp on mint and owner), amounts added up. */
async function getTokenBalance(
  ctx: AccountReadContext,
  owner: Address,
  mint: Address,
  options: ManyOptions,
): Promise<AtSlot<bigint>> {
  const scan = (programId: Address) => {
    const filters = [memcmp(TOKEN_MINT_OFFSET, mint), memcmp(TOKEN_OWNER_OFFSET, owner)];
    const params = [programId, { encoding: 'base64', withContext: true, ...contextParams(options), filters }];
    return ctx.chain.read(
      'getProgramAccounts',
      () => ctx.chain.plainCall('getProgramAccounts', params),
      (result): AtSlot<bigint> => {
        const answer = result as { context?: { slot?: unknown }; value?: unknown } | null;
        if (!answer || !Array.isArray(answer.value)) {
          throw new ChainError('malformed', 'getProgramAccounts: the answer is not a list with its context');
        }
        let sum = 0n;
        for (const { pubkey, account } of answer.value as { pubkey: Address; account: EncodedAccount }[]) {
          const bytes = accountBytes(account, pubkey, [programId]);
          if (!bytes || bytes.length < TOKEN_ACCOUNT_SIZE) {
            throw new ChainError('malformed', `token account ${pubkey} does not decode`, pubkey);
          }
          const token = getTokenDecoder().decode(bytes.subarray(0, TOKEN_ACCOUNT_SIZE));
          if (token.mint !== mint || token.owner !== owner) {
            throw new ChainError('malformed', `token account ${pubkey} is not ${owner}'s of ${mint}`, pubkey);
          }
          sum += token.amount;
        }
        return { value: sum, slot: slotOf(answer.context?.slot) };
      },
    );
  };
  const [classic, extended] = await Promise.all([scan(TOKEN_PROGRAM_ADDRESS), scan(TOKEN_2022_PROGRAM_ADDRESS)]);
  return { value: classic.value + extended.value, slot: classic.slot < extended.slot ? classic.slot : extended.slot };
}
