// Shared field codecs and the decode error for the registry program's layouts (docs/registry-program.md).
import { base58 } from '@scure/base';
import {
  addCodecSizePrefix,
  createCodec,
  getNullableCodec,
  getUtf8Codec,
  isSolanaError,
  SOLANA_ERROR__CODECS__CANNOT_DECODE_EMPTY_BYTE_ARRAY,
  SOLANA_ERROR__CODECS__INVALID_BYTE_LENGTH,
  SOLANA_ERROR__CODECS__INVALID_UTF8_BYTES,
  transformCodec,
  type Address,
  type Codec,
  type FixedSizeCodec,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { sha256 } from '@noble/hashes/sha2.js';

export type RegistryDecodeErrorReason =
  | 'too-short' // fewer bytes than the layout needs
  | 'wrong-discriminator' // not this account/instruction
  | 'unknown-instruction' // instruction discriminator matches no registry instruction
  | 'invalid-utf8'
  | 'invalid-value' // a bool/enum byte or a time out of range
  | 'trailing-bytes' // bytes after the layout (non-zero for accounts, any for instructions)
  | 'missing-accounts'; // an instruction with fewer accounts than it needs

/** Thrown by every registry decoder: the bytes are not a well-formed value of the expected layout. */
export class RegistryDecodeError extends Error {
  constructor(
    readonly reason: RegistryDecodeErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'RegistryDecodeError';
  }
}

/** First 8 bytes of sha256(preimage): Anchor's discriminator rule. */
export function discriminatorOf(preimage: string): Uint8Array {
  return sha256(new TextEncoder().encode(preimage)).slice(0, 8);
}

/**
 * Little-endian fixed-size integers read in place through a DataView on the account's own bytes. kit's number
 * codecs copy the bytes of every field into a fresh ArrayBuffer first (`toArrayBuffer`), which was ~2% of the
 * service's event loop in sign-in profiles; these read and write the same bytes (registry round-trip tests), and
 * refuse what kit's do: too few bytes (too-short) and out-of-range values on encode.
 */
function littleEndian<T extends number | bigint, S extends 1 | 4 | 8>(
  name: string,
  size: S,
  range: readonly [min: bigint, max: bigint],
  get: (view: DataView, offset: number) => T,
  set: (view: DataView, offset: number, value: bigint) => void,
): FixedSizeCodec<number | bigint, T, S> {
  const viewOf = (bytes: ReadonlyUint8Array | Uint8Array) =>
    new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return createCodec({
    fixedSize: size,
    write(value: number | bigint, bytes, offset) {
      const big = BigInt(value); // a fractional number throws here
      if (big < range[0] || big > range[1]) throw new RangeError(`${name} out of range: ${value}`);
      set(viewOf(bytes), offset, big);
      return offset + size;
    },
    read(bytes, offset) {
      if (bytes.length - offset < size)
        throw new RegistryDecodeError(
          'too-short',
          `${name} needs ${size} bytes at offset ${offset}, ${Math.max(0, bytes.length - offset)} left`,
        );
      return [get(viewOf(bytes), offset), offset + size];
    },
  });
}

export const u8Codec = littleEndian(
  'u8',
  1,
  [0n, 0xffn],
  (v, o) => v.getUint8(o),
  (v, o, x) => v.setUint8(o, Number(x)),
);
export const u32Codec = littleEndian(
  'u32',
  4,
  [0n, 0xffff_ffffn],
  (v, o) => v.getUint32(o, true),
  (v, o, x) => v.setUint32(o, Number(x), true),
);
export const u64Codec = littleEndian(
  'u64',
  8,
  [0n, 2n ** 64n - 1n],
  (v, o) => v.getBigUint64(o, true),
  (v, o, x) => v.setBigUint64(o, x, true),
);
export const i64Codec = littleEndian(
  'i64',
  8,
  [-(2n ** 63n), 2n ** 63n - 1n],
  (v, o) => v.getBigInt64(o, true),
  (v, o, x) => v.setBigInt64(o, x, true),
);

/** `u32` byte length + UTF-8. Fatal on bad UTF-8 and lossless (keeps NULs and a leading BOM). */
export const stringCodec: Codec<string> = addCodecSizePrefix(
  getUtf8Codec({ fatal: true, removeNullCharacters: false, ignoreBOM: true }),
  u32Codec,
);

/** One byte, strictly 0 or 1: anything else is malformed rather than silently `true`. */
export const strictBoolCodec: FixedSizeCodec<boolean, boolean, 1> = transformCodec(
  u8Codec,
  (value: boolean) => (value ? 1 : 0),
  (byte: number) => {
    if (byte === 0) return false;
    if (byte === 1) return true;
    throw new RegistryDecodeError('invalid-value', `bool byte must be 0 or 1, got ${byte}`);
  },
);

/**
 * A 32-byte public key as its base58 Address: kit's getAddressCodec, same bytes and strings (base58 has one
 * encoding per byte string), through @scure/base, which converts 4× faster one way and 25× the other (kit goes
 * through BigInt and re-validates): account decoding is on every resolve and sign-in.
 */
export const addressCodec: FixedSizeCodec<Address, Address, 32> = createCodec({
  fixedSize: 32,
  write(value, bytes, offset) {
    const decoded = base58.decode(value); // throws on a non-base58 character
    if (decoded.length !== 32) throw new RangeError(`an address is 32 bytes, got ${decoded.length}: ${value}`);
    bytes.set(decoded, offset);
    return offset + 32;
  },
  read(bytes, offset) {
    if (bytes.length - offset < 32)
      throw new RegistryDecodeError(
        'too-short',
        `an address needs 32 bytes at offset ${offset}, ${bytes.length - offset} left`,
      );
    return [base58.encode((bytes as Uint8Array).subarray(offset, offset + 32)) as Address, offset + 32];
  },
});

/** 32 bytes, all zero for none: fixed size so memcmp filters keep fixed offsets. */
export const optionalAddressCodec: FixedSizeCodec<Address | null, Address | null, 32> = getNullableCodec(addressCodec, {
  prefix: null,
  noneValue: 'zeroes',
});

/** i64 Unix seconds as a JS number; values outside the safe-integer range are malformed. */
export const unixTimeCodec: FixedSizeCodec<number, number, 8> = transformCodec(
  i64Codec,
  (value: number) => {
    if (!Number.isSafeInteger(value)) throw new RangeError(`time must be a safe integer, got ${value}`);
    return BigInt(value);
  },
  (raw: bigint | number) => {
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) throw new RegistryDecodeError('invalid-value', `time out of range: ${raw}`);
    return n;
  },
);

/** A u8 that must be one of `allowed` (enums such as handleType, status). */
export function u8EnumCodec<T extends number>(field: string, allowed: readonly T[]): FixedSizeCodec<T, T, 1> {
  return transformCodec(
    u8Codec,
    (value: T) => {
      if (!allowed.includes(value)) throw new RangeError(`${field} must be one of ${allowed.join(', ')}`);
      return value;
    },
    (byte: number) => {
      if (!allowed.includes(byte as T))
        throw new RegistryDecodeError('invalid-value', `${field} byte ${byte} is not valid`);
      return byte as T;
    },
  );
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Maps any decode failure to a RegistryDecodeError with a reason, so callers see one error type. */
export function toDecodeError(err: unknown, what: string): RegistryDecodeError {
  if (err instanceof RegistryDecodeError) return err;
  if (isSolanaError(err, SOLANA_ERROR__CODECS__INVALID_UTF8_BYTES)) {
    return new RegistryDecodeError('invalid-utf8', `${what}: invalid UTF-8 in a string field`);
  }
  if (
    isSolanaError(err, SOLANA_ERROR__CODECS__INVALID_BYTE_LENGTH) ||
    isSolanaError(err, SOLANA_ERROR__CODECS__CANNOT_DECODE_EMPTY_BYTE_ARRAY)
  ) {
    return new RegistryDecodeError('too-short', `${what}: ${err.message}`);
  }
  return new RegistryDecodeError('invalid-value', `${what}: ${err instanceof Error ? err.message : String(err)}`);
}
