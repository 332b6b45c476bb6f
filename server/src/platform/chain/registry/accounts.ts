// Account layouts of the registry program (docs/registry-program.md § Accounts): codecs, discriminators,
// fixed offsets for memcmp filters, and strict decoders that throw RegistryDecodeError instead of returning garbage.
import { getStructCodec, transformCodec, type Address, type Codec, type ReadonlyUint8Array } from '@solana/kit';
import type {
  AttestationAccount,
  DomainAccount,
  HandleAccount,
  InvoiceAccount,
  NamespaceAccount,
  PrimaryPointerAccount,
  RecordAccount,
} from '../types';
import {
  discriminatorOf,
  addressCodec,
  u64Codec,
  u8Codec,
  optionalAddressCodec,
  RegistryDecodeError,
  stringCodec,
  strictBoolCodec,
  toDecodeError,
  u8EnumCodec,
  unixTimeCodec,
  bytesEqual,
} from './primitives';

// On-chain data = the service's account shape without its address, plus the PDA bump.
type Data<T> = Omit<T, 'address'> & { bump: number };
export type HandleData = Data<HandleAccount>;
export type PrimaryPointerData = Data<PrimaryPointerAccount>;
export type RecordData = Data<RecordAccount>;
export type AttestationData = Data<AttestationAccount>;
export type NamespaceData = Data<NamespaceAccount>;
export type DomainData = Data<DomainAccount>;
export type InvoiceData = Data<InvoiceAccount>;

export type RegistryAccountName =
  'Handle' | 'PrimaryPointer' | 'Record' | 'Attestation' | 'Namespace' | 'Domain' | 'Invoice';

const address = addressCodec;
const u64 = u64Codec as unknown as Codec<bigint>; // always decodes to bigint; encode accepts bigint
const u8 = u8Codec;

export const HANDLE_TYPES = [0, 1, 2, 3] as const; // standard, premium, reserved, Agent
export const HANDLE_TYPE_AGENT = 3;
export const RECORD_KIND_ADDRESS = 0;
export const RECORD_KIND_TEXT = 1;
export const INVOICE_STATUS = { open: 0, paid: 1, cancelled: 2 } as const;

// What set_record accepts (the program's rule, enforced by the local chain's emulator and checked up front by the
// MCP prepare_set_record tool, so both read it here).
/** Address record keys: the chain ids. */
export const ADDRESS_RECORD_KEYS: readonly string[] = ['X1', 'SOL', 'ETH', 'BTC'];
/** Text record keys: 1..32 of `[a-z0-9._-]` (e.g. `url`, `agent.manifest`). */
export const TEXT_RECORD_KEY_PATTERN = /^[a-z0-9._-]{1,32}$/;
/** A record value is 1..512 UTF-8 bytes. */
export const RECORD_VALUE_MAX_BYTES = 512;

const recordKindCodec = transformCodec(
  u8EnumCodec('kind', [RECORD_KIND_ADDRESS, RECORD_KIND_TEXT]),
  (kind: 'address' | 'text') => (kind === 'address' ? RECORD_KIND_ADDRESS : RECORD_KIND_TEXT),
  (byte: number): 'address' | 'text' => (byte === RECORD_KIND_ADDRESS ? 'address' : 'text'),
);

export const handleDataCodec: Codec<HandleData> = getStructCodec([
  ['owner', address],
  ['handleType', u8EnumCodec<number>('handleType', HANDLE_TYPES)],
  ['tokenized', strictBoolCodec],
  ['mint', optionalAddressCodec],
  ['registrationEpoch', u64],
  ['registeredAt', unixTimeCodec],
  ['registeredSlot', u64],
  ['bump', u8],
  ['name', stringCodec],
]);

export const primaryPointerDataCodec: Codec<PrimaryPointerData> = getStructCodec([
  ['wallet', address],
  ['handle', address],
  ['handleEpoch', u64],
  ['setAt', unixTimeCodec],
  ['setSlot', u64],
  ['bump', u8],
]);

export const recordDataCodec: Codec<RecordData> = getStructCodec([
  ['handle', address],
  ['kind', recordKindCodec],
  ['authority', address],
  ['handleEpoch', u64],
  ['verified', strictBoolCodec],
  ['verifiedAt', unixTimeCodec],
  ['updatedAt', unixTimeCodec],
  ['updatedSlot', u64],
  ['bump', u8],
  ['key', stringCodec],
  ['value', stringCodec],
]);

export const attestationDataCodec: Codec<AttestationData> = getStructCodec([
  ['handle', address],
  ['issuer', address],
  ['issuedAt', unixTimeCodec],
  ['expiresAt', unixTimeCodec],
  ['revoked', strictBoolCodec],
  ['bump', u8],
  ['platform', stringCodec],
  ['subject', stringCodec],
]);

export const namespaceDataCodec: Codec<NamespaceData> = getStructCodec([
  ['authority', address],
  ['active', strictBoolCodec],
  ['createdAt', unixTimeCodec],
  ['bump', u8],
  ['tld', stringCodec],
]);

export const domainDataCodec: Codec<DomainData> = getStructCodec([
  ['namespace', address],
  ['owner', address],
  ['tokenized', strictBoolCodec],
  ['mint', optionalAddressCodec],
  ['registeredAt', unixTimeCodec],
  ['registeredSlot', u64],
  ['bump', u8],
  ['label', stringCodec],
  ['tld', stringCodec],
]);

export const invoiceDataCodec: Codec<InvoiceData> = getStructCodec([
  ['payee', address],
  ['paidBy', optionalAddressCodec],
  ['mint', optionalAddressCodec],
  ['amount', u64],
  ['fee', u64],
  ['expiresAt', unixTimeCodec],
  ['status', u8EnumCodec('status', [0, 1, 2] as const)],
  ['boundHandle', optionalAddressCodec],
  ['createdAt', unixTimeCodec],
  ['createdSlot', u64],
  ['paidAt', unixTimeCodec],
  ['id', u64],
  ['bump', u8],
  ['memo', stringCodec],
]);

/** 8-byte discriminators, `sha256("account:<Name>")[0..8]`. */
export const ACCOUNT_DISCRIMINATORS: Readonly<Record<RegistryAccountName, Uint8Array>> = {
  Handle: discriminatorOf('account:Handle'),
  PrimaryPointer: discriminatorOf('account:PrimaryPointer'),
  Record: discriminatorOf('account:Record'),
  Attestation: discriminatorOf('account:Attestation'),
  Namespace: discriminatorOf('account:Namespace'),
  Domain: discriminatorOf('account:Domain'),
  Invoice: discriminatorOf('account:Invoice'),
};

/** Byte offsets of fixed fields used in getProgramAccounts memcmp filters (discriminator is at 0). */
export const ACCOUNT_OFFSETS = {
  Handle: { owner: 8, handleType: 40, tokenized: 41, mint: 42, registrationEpoch: 74, name: 99 },
  PrimaryPointer: { wallet: 8, handle: 40 },
  Record: { handle: 8, kind: 40, authority: 41, key: 107 },
  Attestation: { handle: 8, issuer: 40, platform: 90 },
  Namespace: { authority: 8, tld: 50 },
  Domain: { namespace: 8, owner: 40, label: 122 },
  Invoice: { payee: 8, paidBy: 40, mint: 72, status: 128, boundHandle: 129, memo: 194 },
} as const;

const DATA_CODECS: { [K in RegistryAccountName]: Codec<any> } = {
  Handle: handleDataCodec,
  PrimaryPointer: primaryPointerDataCodec,
  Record: recordDataCodec,
  Attestation: attestationDataCodec,
  Namespace: namespaceDataCodec,
  Domain: domainDataCodec,
  Invoice: invoiceDataCodec,
};

function encodeAccount(name: RegistryAccountName, value: unknown): Uint8Array {
  const body = DATA_CODECS[name].encode(value);
  const out = new Uint8Array(8 + body.length);
  out.set(ACCOUNT_DISCRIMINATORS[name], 0);
  out.set(body, 8);
  return out;
}

/**
 * Strict decode: discriminator must match, every field must decode, and any bytes after the layout must be zero
 * (a program may allocate spare room for longer strings; non-zero leftovers mean the layout is not ours).
 */
function decodeAccount<T>(name: RegistryAccountName, data: ReadonlyUint8Array): T {
  if (data.length < 8) throw new RegistryDecodeError('too-short', `${name}: ${data.length} bytes, no discriminator`);
  if (!bytesEqual(data.subarray(0, 8) as Uint8Array, ACCOUNT_DISCRIMINATORS[name])) {
    throw new RegistryDecodeError('wrong-discriminator', `${name}: discriminator does not match`);
  }
  let value: T;
  let end: number;
  try {
    [value, end] = DATA_CODECS[name].read(data, 8);
  } catch (err) {
    throw toDecodeError(err, name);
  }
  for (let i = end; i < data.length; i++) {
    if (data[i] !== 0) throw new RegistryDecodeError('trailing-bytes', `${name}: non-zero bytes after offset ${end}`);
  }
  return value;
}

/** Which registry account the data claims to be, by discriminator; null when none. */
export function identifyRegistryAccount(data: ReadonlyUint8Array): RegistryAccountName | null {
  if (data.length < 8) return null;
  const head = data.subarray(0, 8) as Uint8Array;
  for (const [name, disc] of Object.entries(ACCOUNT_DISCRIMINATORS)) {
    if (bytesEqual(head, disc)) return name as RegistryAccountName;
  }
  return null;
}

export const encodeHandle = (data: HandleData): Uint8Array => encodeAccount('Handle', data);
export const encodePrimaryPointer = (data: PrimaryPointerData): Uint8Array => encodeAccount('PrimaryPointer', data);
export const encodeRecord = (data: RecordData): Uint8Array => encodeAccount('Record', data);
export const encodeAttestation = (data: AttestationData): Uint8Array => encodeAccount('Attestation', data);
export const encodeNamespace = (data: NamespaceData): Uint8Array => encodeAccount('Namespace', data);
export const encodeDomain = (data: DomainData): Uint8Array => encodeAccount('Domain', data);
export const encodeInvoice = (data: InvoiceData): Uint8Array => encodeAccount('Invoice', data);

type WithAddress<T> = T & { address: Address };
const withAddress = <T>(address: Address, value: T): WithAddress<T> => ({ address, ...value });

export const decodeHandle = (address: Address, data: ReadonlyUint8Array): WithAddress<HandleData> =>
  withAddress(address, decodeAccount<HandleData>('Handle', data));
export const decodePrimaryPointer = (address: Address, data: ReadonlyUint8Array): WithAddress<PrimaryPointerData> =>
  withAddress(address, decodeAccount<PrimaryPointerData>('PrimaryPointer', data));
export const decodeRecord = (address: Address, data: ReadonlyUint8Array): WithAddress<RecordData> =>
  withAddress(address, decodeAccount<RecordData>('Record', data));
export const decodeAttestation = (address: Address, data: ReadonlyUint8Array): WithAddress<AttestationData> =>
  withAddress(address, decodeAccount<AttestationData>('Attestation', data));
export const decodeNamespace = (address: Address, data: ReadonlyUint8Array): WithAddress<NamespaceData> =>
  withAddress(address, decodeAccount<NamespaceData>('Namespace', data));
export const decodeDomain = (address: Address, data: ReadonlyUint8Array): WithAddress<DomainData> =>
  withAddress(address, decodeAccount<DomainData>('Domain', data));
export const decodeInvoice = (address: Address, data: ReadonlyUint8Array): WithAddress<InvoiceData> =>
  withAddress(address, decodeAccount<InvoiceData>('Invoice', data));
