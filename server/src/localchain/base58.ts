// Base58 for the RPC's hot paths (addresses, memcmp filter bytes, signatures). @scure/base gives exactly the
// strings and bytes of kit's codec, and refuses the same inputs (base58.test.ts checks both ways), at about a
// tenth of the cost for short inputs: kit converts through a BigInt. Long inputs (whole transactions) keep kit's
// codec, where scure is no faster and refuses very long inputs.
import { base58 } from '@scure/base';
import { getBase58Decoder, getBase58Encoder, type ReadonlyUint8Array } from '@solana/kit';

/** Inputs up to these sizes take @scure/base. */
export const SHORT_BASE58_BYTES = 64;
export const SHORT_BASE58_CHARS = 88;

const kitDecoder = getBase58Decoder();
const kitEncoder = getBase58Encoder();

/** Bytes → base58 text, as kit's getBase58Decoder().decode. */
export function bytesToBase58(bytes: ReadonlyUint8Array): string {
  return bytes.length <= SHORT_BASE58_BYTES ? base58.encode(bytes as Uint8Array) : kitDecoder.decode(bytes);
}

/** Base58 text → bytes, as kit's getBase58Encoder().encode (throws on a character outside the alphabet). */
export function base58ToBytes(text: string): Uint8Array {
  return text.length <= SHORT_BASE58_CHARS ? base58.decode(text) : new Uint8Array(kitEncoder.encode(text));
}

/** kit's isAddress: 32 to 44 characters of base58 that decode to exactly 32 bytes. */
export function isAddressText(text: string): boolean {
  if (text.length < 32 || text.length > 44) return false;
  try {
    return base58.decode(text).length === 32;
  } catch {
    return false;
  }
}
