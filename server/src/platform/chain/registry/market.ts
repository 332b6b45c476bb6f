// The registry's market (docs/registry-program.md § Market): offers, listings, auctions, vouchers, lease-to-own,
// recovery, reserved claims, creator-priced namespaces and record delegates. Account layouts, PDAs, the
// instruction table (arguments and accounts) and the one builder every caller uses (the local chain's emulator,
// the MCP tools, tests), so no encoder exists twice.
import {
  AccountRole,
  getAddressEncoder,
  getProgramDerivedAddress,
  getStructCodec,
  getU64Encoder,
  type AccountMeta,
  type Address,
  type Codec,
  type Instruction,
  type ProgramDerivedAddress,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../programs';
import {
  addressCodec,
  bytesEqual,
  discriminatorOf,
  optionalAddressCodec,
  RegistryDecodeError,
  stringCodec,
  toDecodeError,
  u64Codec,
  u8Codec,
  u8EnumCodec,
  unixTimeCodec,
} from './primitives';

const address = addressCodec;
const u64 = u64Codec as unknown as Codec<bigint>;
const u8 = u8Codec as unknown as Codec<number>;
const time = unixTimeCodec as unknown as Codec<number>;

/** 1 native unit = 10^9 lamports. */
export const LAMPORTS_PER_NATIVE = 1_000_000_000n;
export const AUCTION_MIN_DURATION = 600;
export const AUCTION_MAX_DURATION = 2_592_000;
/** A bid placed less than this before the end moves the end to now + this (anti-snipe). */
export const AUCTION_EXTENSION_SECONDS = 300;
/** Each bid ≥ the high bid × 105 / 100. */
export const AUCTION_MIN_INCREMENT_PERCENT = 5n;
export const VOUCHER_MAX_EXPIRY_SECONDS = 366 * 86_400;
/** Lease-to-own: the one-year price of a name, paid in instalments of at least price / divisor. */
export const LEASE_YEAR_PRICE_LAMPORTS = 100_000_000n;
export const LEASE_DIVISOR = 4n;
export const LEASE_MIN_PAYMENT_LAMPORTS = LEASE_YEAR_PRICE_LAMPORTS / LEASE_DIVISOR; // 0.025 native units
export const LEASE_YEAR_SECONDS = 365 * 86_400;
export const RECOVERY_DELAY_SECONDS = 3 * 86_400;
export const NAMESPACE_PRICE_FLOOR_LAMPORTS = 1n * LAMPORTS_PER_NATIVE;
export const NAMESPACE_PRICE_CEILING_LAMPORTS = 100_000_000n * LAMPORTS_PER_NATIVE;

// ---- accounts ----

export interface OfferData {
  handle: Address;
  buyer: Address;
  amount: bigint;
  createdAt: number;
  bump: number;
}
export interface ListingData {
  handle: Address;
  seller: Address;
  mint: Address;
  price: bigint;
  createdAt: number;
  bump: number;
}
export interface AuctionData {
  handle: Address;
  seller: Address;
  reserve: bigint;
  highBid: bigint;
  highBidder: Address | null;
  startAt: number;
  endAt: number;
  bump: number;
}
export interface VoucherData {
  creator: Address;
  recipient: Address;
  handle: Address;
  id: bigint;
  expiresAt: number;
  createdAt: number;
  bump: number;
}
export interface LeaseData {
  handle: Address;
  lessee: Address;
  totalPrice: bigint;
  paid: bigint;
  startedAt: number;
  paidThrough: number;
  bump: number;
}
export interface RecoveryData {
  handle: Address;
  newOwner: Address;
  initiatedAt: number;
  completableAt: number;
  bump: number;
}
export interface ConfigData {
  member0: Address;
  member1: Address;
  member2: Address;
  threshold: number;
  bump: number;
}
export interface ReservationData {
  claimant: Address;
  approvedAt: number;
  bump: number;
  name: string;
  domain: string;
}
export interface NamespacePricingData {
  namespace: Address;
  creatorPayout: Address;
  price: bigint;
  updatedAt: number;
  bump: number;
}
export interface RecordDelegateData {
  handle: Address;
  delegate: Address;
  handleEpoch: bigint;
  bump: number;
}

const MARKET_ACCOUNT_CODECS = {
  Offer: getStructCodec([
    ['handle', address],
    ['buyer', address],
    ['amount', u64],
    ['createdAt', time],
    ['bump', u8],
  ]) as Codec<OfferData>,
  Listing: getStructCodec([
    ['handle', address],
    ['seller', address],
    ['mint', address],
    ['price', u64],
    ['createdAt', time],
    ['bump', u8],
  ]) as Codec<ListingData>,
  Auction: getStructCodec([
    ['handle', address],
    ['seller', address],
    ['reserve', u64],
    ['highBid', u64],
    ['highBidder', optionalAddressCodec],
    ['startAt', time],
    ['endAt', time],
    ['bump', u8],
  ]) as Codec<AuctionData>,
  Voucher: getStructCodec([
    ['creator', address],
    ['recipient', address],
    ['handle', address],
    ['id', u64],
    ['expiresAt', time],
    ['createdAt', time],
    ['bump', u8],
  ]) as Codec<VoucherData>,
  Lease: getStructCodec([
    ['handle', address],
    ['lessee', address],
    ['totalPrice', u64],
    ['paid', u64],
    ['startedAt', time],
    ['paidThrough', time],
    ['bump', u8],
  ]) as Codec<LeaseData>,
  Recovery: getStructCodec([
    ['handle', address],
    ['newOwner', address],
    ['initiatedAt', time],
    ['completableAt', time],
    ['bump', u8],
  ]) as Codec<RecoveryData>,
  Config: getStructCodec([
    ['member0', address],
    ['member1', address],
    ['member2', address],
    ['threshold', u8],
    ['bump', u8],
  ]) as Codec<ConfigData>,
  Reservation: getStructCodec([
    ['claimant', address],
    ['approvedAt', time],
    ['bump', u8],
    ['name', stringCodec],
    ['domain', stringCodec],
  ]) as Codec<ReservationData>,
  NamespacePricing: getStructCodec([
    ['namespace', address],
    ['creatorPayout', address],
    ['price', u64],
    ['updatedAt', time],
    ['bump', u8],
  ]) as Codec<NamespacePricingData>,
  RecordDelegate: getStructCodec([
    ['handle', address],
    ['delegate', address],
    ['handleEpoch', u64],
    ['bump', u8],
  ]) as Codec<RecordDelegateData>,
};
export type MarketAccountName = keyof typeof MARKET_ACCOUNT_CODECS;
export type MarketAccountData<N extends MarketAccountName> = ReturnType<(typeof MARKET_ACCOUNT_CODECS)[N]['decode']>;

export const MARKET_ACCOUNT_DISCRIMINATORS = Object.fromEntries(
  Object.keys(MARKET_ACCOUNT_CODECS).map((name) => [name, discriminatorOf(`account:${name}`)]),
) as Readonly<Record<MarketAccountName, Uint8Array>>;

/** Byte offsets used to find market accounts (memcmp filters, the local chain's frozen-NFT check). */
export const MARKET_ACCOUNT_OFFSETS = { Listing: { handle: 8, seller: 40, mint: 72 } } as const;

export function encodeMarketAccount<N extends MarketAccountName>(name: N, data: MarketAccountData<N>): Uint8Array {
  const body = (MARKET_ACCOUNT_CODECS[name] as unknown as Codec<MarketAccountData<N>>).encode(data);
  const out = new Uint8Array(8 + body.length);
  out.set(MARKET_ACCOUNT_DISCRIMINATORS[name], 0);
  out.set(body, 8);
  return out;
}

/** Strict decode (discriminator, every field, zero padding only), as the core accounts. Throws RegistryDecodeError. */
export function decodeMarketAccount<N extends MarketAccountName>(
  name: N,
  data: ReadonlyUint8Array,
): MarketAccountData<N> {
  if (data.length < 8 || !bytesEqual(data.subarray(0, 8) as Uint8Array, MARKET_ACCOUNT_DISCRIMINATORS[name])) {
    throw new RegistryDecodeError('wrong-discriminator', `${name}: discriminator does not match`);
  }
  let value: MarketAccountData<N>;
  let end: number;
  try {
    [value, end] = (MARKET_ACCOUNT_CODECS[name] as unknown as Codec<MarketAccountData<N>>).read(data, 8);
  } catch (err) {
    throw toDecodeError(err, name);
  }
  for (let i = end; i < data.length; i++) {
    if (data[i] !== 0) throw new RegistryDecodeError('trailing-bytes', `${name}: non-zero bytes after offset ${end}`);
  }
  return value;
}

// ---- PDAs ----

const addressBytes = getAddressEncoder();
const u64le = getU64Encoder();
const utf8 = (s: string) => new TextEncoder().encode(s);
const pda = (programId: Address, seeds: (string | Uint8Array)[]): Promise<ProgramDerivedAddress> =>
  getProgramDerivedAddress({ programAddress: programId, seeds });

export const MARKET_PDAS = {
  offer: (programId: Address, handle: Address, buyer: Address) =>
    pda(programId, ['offer', addressBytes.encode(handle) as Uint8Array, addressBytes.encode(buyer) as Uint8Array]),
  listing: (programId: Address, handle: Address) =>
    pda(programId, ['listing', addressBytes.encode(handle) as Uint8Array]),
  auction: (programId: Address, handle: Address) =>
    pda(programId, ['auction', addressBytes.encode(handle) as Uint8Array]),
  voucher: (programId: Address, creator: Address, id: bigint) =>
    pda(programId, ['voucher', addressBytes.encode(creator) as Uint8Array, u64le.encode(id) as Uint8Array]),
  lease: (programId: Address, handle: Address) => pda(programId, ['lease', addressBytes.encode(handle) as Uint8Array]),
  recovery: (programId: Address, handle: Address) =>
    pda(programId, ['recovery', addressBytes.encode(handle) as Uint8Array]),
  config: (programId: Address) => pda(programId, ['config']),
  treasury: (programId: Address) => pda(programId, ['treasury']),
  reservation: (programId: Address, name: string) => pda(programId, ['reservation', utf8(name)]),
  namespacePricing: (programId: Address, namespace: Address) =>
    pda(programId, ['ns_pricing', addressBytes.encode(namespace) as Uint8Array]),
  recordDelegate: (programId: Address, handle: Address) =>
    pda(programId, ['delegate', addressBytes.encode(handle) as Uint8Array]),
};

// ---- instructions ----

const { READONLY, WRITABLE, READONLY_SIGNER, WRITABLE_SIGNER } = AccountRole;
const none = getStructCodec([]) as unknown as Codec<Record<string, never>>;
const ws = (name: string) => [name, WRITABLE_SIGNER] as const;
const s = (name: string) => [name, READONLY_SIGNER] as const;
const w = (name: string) => [name, WRITABLE] as const;
const r = (name: string) => [name, READONLY] as const;

/** Arguments and accounts (in order) of every market instruction. Extra trailing accounts are remaining accounts. */
export const MARKET_INSTRUCTIONS = {
  make_offer: {
    args: getStructCodec([['amount', u64]]),
    accounts: [ws('buyer'), r('handle'), w('offer'), r('systemProgram')],
  },
  cancel_offer: { args: none, accounts: [ws('buyer'), w('offer')] },
  accept_offer: {
    args: getStructCodec([['expectedAmount', u64]]),
    accounts: [ws('owner'), w('handle'), w('offer'), w('buyer')],
  },
  list_handle: {
    args: getStructCodec([['price', u64]]),
    accounts: [ws('seller'), r('handle'), w('listing'), r('sellerTokenAccount'), r('systemProgram')],
  },
  delist_handle: { args: none, accounts: [ws('seller'), w('listing')] },
  buy_listing: {
    args: getStructCodec([['expectedPrice', u64]]),
    accounts: [
      ws('buyer'),
      w('handle'),
      w('listing'),
      w('seller'),
      w('sellerTokenAccount'),
      w('buyerTokenAccount'),
      r('mint'),
      r('tokenProgram'),
    ],
  },
  create_auction: {
    args: getStructCodec([
      ['reserve', u64],
      ['duration', time],
    ]),
    accounts: [ws('seller'), r('handle'), w('auction'), r('systemProgram')],
  },
  place_bid: {
    args: getStructCodec([['amount', u64]]),
    accounts: [ws('bidder'), r('handle'), w('auction'), w('previousBidder'), r('systemProgram')],
  },
  settle_auction: { args: none, accounts: [ws('payer'), w('handle'), w('auction'), w('seller'), r('winner')] },
  cancel_auction: { args: none, accounts: [ws('seller'), r('handle'), w('auction')] },
  close_stale_auction: {
    args: none,
    accounts: [ws('payer'), r('handle'), w('auction'), w('seller'), w('highBidder')],
  },
  create_voucher: {
    args: getStructCodec([
      ['id', u64],
      ['expiresAt', time],
    ]),
    accounts: [ws('creator'), w('handle'), w('voucher'), r('recipient'), r('systemProgram')],
  },
  claim_voucher: { args: none, accounts: [ws('claimer'), w('handle'), w('voucher'), w('creator')] },
  claim_voucher_tokenized: {
    args: none,
    accounts: [
      ws('claimer'),
      w('handle'),
      w('voucher'),
      w('creator'),
      r('recipient'),
      ws('mint'),
      w('recipientTokenAccount'),
      r('tokenProgram'),
    ],
  },
  refund_voucher: { args: none, accounts: [ws('creator'), w('handle'), w('voucher')] },
  start_lease: {
    args: getStructCodec([
      ['name', stringCodec],
      ['firstPayment', u64],
    ]),
    accounts: [ws('lessee'), w('handle'), w('lease'), w('treasury'), r('systemProgram')],
  },
  pay_lease: {
    args: getStructCodec([['amount', u64]]),
    accounts: [ws('lessee'), r('handle'), w('lease'), w('treasury'), r('systemProgram')],
  },
  reclaim_expired_lease: { args: none, accounts: [ws('payer'), w('handle'), w('lease')] },
  init_config: {
    args: getStructCodec([
      ['member0', address],
      ['member1', address],
      ['member2', address],
      ['threshold', u8EnumCodec<number>('threshold', [1, 2, 3])],
    ]),
    accounts: [ws('payer'), w('config'), r('systemProgram')],
  },
  initiate_recovery: {
    args: getStructCodec([['newOwner', address]]),
    accounts: [ws('payer'), r('config'), r('handle'), w('recovery'), r('systemProgram')],
  },
  complete_recovery: { args: none, accounts: [ws('newOwner'), w('handle'), w('recovery')] },
  set_reserved_claim_approval: {
    args: getStructCodec([
      ['name', stringCodec],
      ['domain', stringCodec],
      ['claimant', address],
    ]),
    accounts: [ws('payer'), r('config'), w('reservation'), r('systemProgram')],
  },
  claim_reserved: {
    args: getStructCodec([
      ['name', stringCodec],
      ['domain', stringCodec],
    ]),
    accounts: [ws('claimant'), w('handle'), w('reservation'), r('systemProgram')],
  },
  set_namespace_pricing: {
    args: getStructCodec([['price', u64]]),
    accounts: [ws('authority'), r('namespace'), w('pricing'), r('creatorPayout'), r('systemProgram')],
  },
  register_under_namespace_v2: {
    args: getStructCodec([
      ['label', stringCodec],
      ['maxPriceLamports', u64],
    ]),
    accounts: [
      ws('payer'),
      s('owner'),
      r('namespace'),
      w('domain'),
      r('pricing'),
      w('creatorPayout'),
      r('systemProgram'),
    ],
  },
  set_record_delegate: {
    args: getStructCodec([['delegate', address]]),
    accounts: [ws('authority'), r('handle'), w('delegateAccount'), r('systemProgram')],
  },
  set_record_as_delegate: {
    args: getStructCodec([
      ['kind', u8EnumCodec<number>('kind', [0, 1])],
      ['key', stringCodec],
      ['value', stringCodec],
    ]),
    accounts: [ws('delegate'), r('handle'), r('delegateAccount'), w('record'), r('systemProgram')],
  },
} as const;

export type MarketInstructionName = keyof typeof MARKET_INSTRUCTIONS;
type MarketArgs<N extends MarketInstructionName> = ReturnType<(typeof MARKET_INSTRUCTIONS)[N]['args']['decode']>;
type MarketAccounts<N extends MarketInstructionName> = {
  [K in (typeof MARKET_INSTRUCTIONS)[N]['accounts'][number][0]]: Address;
};

/** A decoded market instruction; `remaining` are the accounts after the layout (treasury multisig signers). */
export type MarketInstruction = {
  [N in MarketInstructionName]: { name: N; args: MarketArgs<N>; accounts: MarketAccounts<N>; remaining: Address[] };
}[MarketInstructionName];

export const MARKET_INSTRUCTION_DISCRIMINATORS = Object.fromEntries(
  Object.keys(MARKET_INSTRUCTIONS).map((name) => [name, discriminatorOf(`global:${name}`)]),
) as Readonly<Record<MarketInstructionName, Uint8Array>>;

const DEFAULT_PROGRAMS: Record<string, Address> = {
  systemProgram: SYSTEM_PROGRAM_ADDRESS,
  tokenProgram: TOKEN_PROGRAM_ADDRESS,
};

/**
 * The market's one builder: `accounts` by name (systemProgram and tokenProgram default), `remaining` appended as
 * read-only signers (the treasury multisig members signing set_reserved_claim_approval and initiate_recovery).
 */
export function getMarketInstruction<N extends MarketInstructionName>(
  programId: Address,
  name: N,
  args: MarketArgs<N>,
  accounts: Omit<MarketAccounts<N>, 'systemProgram' | 'tokenProgram'> & { tokenProgram?: Address },
  remaining: readonly Address[] = [],
): Instruction {
  const spec = MARKET_INSTRUCTIONS[name];
  const given = { ...DEFAULT_PROGRAMS, ...(accounts as Record<string, Address>) };
  const metas: AccountMeta[] = spec.accounts.map(([accountName, role]) => {
    const addr = given[accountName];
    if (typeof addr !== 'string') throw new TypeError(`${name}: missing account "${accountName}"`);
    return { address: addr, role };
  });
  for (const signer of remaining) metas.push({ address: signer, role: READONLY_SIGNER });
  const body = (spec.args as unknown as Codec<MarketArgs<N>>).encode(args);
  const data = new Uint8Array(8 + body.length);
  data.set(MARKET_INSTRUCTION_DISCRIMINATORS[name], 0);
  data.set(body, 8);
  return { programAddress: programId, accounts: metas, data };
}

/** The market instruction these bytes start with, decoded; null when the discriminator is not a market one. */
export function decodeMarketInstruction(
  data: ReadonlyUint8Array,
  accounts: readonly Address[],
): MarketInstruction | null {
  const head = data.subarray(0, 8) as Uint8Array;
  const name = (Object.keys(MARKET_INSTRUCTION_DISCRIMINATORS) as MarketInstructionName[]).find((n) =>
    bytesEqual(head, MARKET_INSTRUCTION_DISCRIMINATORS[n]),
  );
  if (!name) return null;
  const spec = MARKET_INSTRUCTIONS[name];
  let args: unknown;
  let end: number;
  try {
    [args, end] = (spec.args as unknown as Codec<unknown>).read(data, 8);
  } catch (err) {
    throw toDecodeError(err, name);
  }
  if (end !== data.length) throw new RegistryDecodeError('trailing-bytes', `${name}: ${data.length - end} extra bytes`);
  if (accounts.length < spec.accounts.length) {
    throw new RegistryDecodeError(
      'missing-accounts',
      `${name}: needs ${spec.accounts.length} accounts, got ${accounts.length}`,
    );
  }
  const picked = Object.fromEntries(spec.accounts.map(([accountName], i) => [accountName, accounts[i]]));
  return { name, args, accounts: picked, remaining: accounts.slice(spec.accounts.length) } as MarketInstruction;
}
