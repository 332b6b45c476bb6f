// verify_record's proof for ETH/BTC address records: a secp256k1 precompile instruction
// (KeccakSecp256k11111111111111111111111111111) in the same transaction whose signature, recovered over
// keccak256(message), yields the recorded address. The message is `sigil:verify_record:<record account>`, raw or
// EIP-191 prefixed ("\x19Ethereum Signed Message:\n<len>" + text, i.e. what personal_sign signs).
// We recover the key ourselves rather than trusting LiteSVM's precompile check (sub-transactions run with
// sigverify off). Layout of the precompile data: [count u8] then per signature {signature_offset u16,
// signature_ix u8, eth_address_offset u16, eth_address_ix u8, message_offset u16, message_size u16, message_ix u8}.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bech32, createBase58check, hex } from '@scure/base';
import type { Address } from '@solana/kit';
import { SECP256K1_PROGRAM_ADDRESS } from '../platform/chain/programs';
import type { DecodedTransaction } from './processor';

const OFFSETS_SIZE = 11;
const base58check = createBase58check(sha256);

export function verifyRecordMessage(record: Address): string {
  return `sigil:verify_record:${record}`;
}

function eip191(text: string): Uint8Array {
  const body = new TextEncoder().encode(text);
  return new Uint8Array([...new TextEncoder().encode(`\x19Ethereum Signed Message:\n${body.length}`), ...body]);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The address forms a recovered secp256k1 key proves for each chain. */
function addressMatches(chain: string, value: string, uncompressed: Uint8Array): boolean {
  if (chain === 'ETH') {
    const eth = keccak_256(uncompressed.subarray(1)).subarray(12);
    return value.toLowerCase() === `0x${hex.encode(eth)}`;
  }
  if (chain === 'BTC') {
    const compressed = secp256k1.Point.fromBytes(uncompressed).toBytes(true);
    const hash160 = ripemd160(sha256(compressed));
    try {
      if (value.toLowerCase().startsWith('bc1')) {
        const { prefix, words } = bech32.decode(value.toLowerCase() as `${string}1${string}`);
        return prefix === 'bc' && words[0] === 0 && sameBytes(bech32.fromWords(words.slice(1)), hash160);
      }
      const payload = base58check.decode(value);
      return payload[0] === 0 && sameBytes(payload.subarray(1), hash160);
    } catch {
      return false;
    }
  }
  return false;
}

/** True when some secp256k1 precompile instruction of `tx` proves control of `value` for this record. */
export function verifySecp256k1Proof(tx: DecodedTransaction, chain: string, value: string, record: Address): boolean {
  const text = verifyRecordMessage(record);
  const accepted = [new TextEncoder().encode(text), eip191(text)];
  return tx.instructions.some((ix, index) => {
    if (ix.programId !== SECP256K1_PROGRAM_ADDRESS) return false;
    const data = ix.data;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const count = data[0] ?? 0;
    for (let n = 0; n < count; n++) {
      const at = 1 + n * OFFSETS_SIZE;
      if (at + OFFSETS_SIZE > data.length) return false;
      const sigOffset = view.getUint16(at, true);
      const ethOffset = view.getUint16(at + 3, true);
      const msgOffset = view.getUint16(at + 6, true);
      const msgSize = view.getUint16(at + 8, true);
      // Every part must live in this very instruction.
      if (data[at + 2] !== index || data[at + 5] !== index || data[at + 10] !== index) continue;
      if (sigOffset + 65 > data.length || ethOffset + 20 > data.length || msgOffset + msgSize > data.length) continue;
      const message = data.subarray(msgOffset, msgOffset + msgSize);
      if (!accepted.some((m) => sameBytes(m, message))) continue;
      try {
        const signature = secp256k1.Signature.fromBytes(
          data.subarray(sigOffset, sigOffset + 64),
          'compact',
        ).addRecoveryBit(data[sigOffset + 64]!);
        const uncompressed = signature.recoverPublicKey(keccak_256(message)).toBytes(false);
        const eth = keccak_256(uncompressed.subarray(1)).subarray(12);
        if (!sameBytes(eth, data.subarray(ethOffset, ethOffset + 20))) continue; // the precompile's own check
        if (addressMatches(chain, value, uncompressed)) return true;
      } catch {
        continue;
      }
    }
    return false;
  });
}

/** Builds a secp256k1 precompile instruction's data proving `message` with `privateKey` (scenario and tests). */
export function secp256k1ProofData(privateKey: Uint8Array, message: Uint8Array, instructionIndex: number): Uint8Array {
  const recovered = secp256k1.sign(keccak_256(message), privateKey, { prehash: false, format: 'recovered' });
  const uncompressed = secp256k1.getPublicKey(privateKey, false);
  const eth = keccak_256(uncompressed.subarray(1)).subarray(12);
  const ethOffset = 1 + OFFSETS_SIZE;
  const sigOffset = ethOffset + 20;
  const msgOffset = sigOffset + 65;
  const data = new Uint8Array(msgOffset + message.length);
  const view = new DataView(data.buffer);
  data[0] = 1;
  view.setUint16(1, sigOffset, true);
  data[3] = instructionIndex;
  view.setUint16(4, ethOffset, true);
  data[6] = instructionIndex;
  view.setUint16(7, msgOffset, true);
  view.setUint16(9, message.length, true);
  data[11] = instructionIndex;
  data.set(eth, ethOffset);
  data.set(recovered.subarray(1), sigOffset); // r || s
  data[sigOffset + 64] = recovered[0]!; // recovery id
  data.set(message, msgOffset);
  return data;
}

/** Addresses a secp256k1 private key controls (for the scenario's ETH/BTC records). */
export function secp256k1Addresses(privateKey: Uint8Array): { eth: string; btc: string } {
  const uncompressed = secp256k1.getPublicKey(privateKey, false);
  const eth = `0x${hex.encode(keccak_256(uncompressed.subarray(1)).subarray(12))}`;
  const hash160 = ripemd160(sha256(secp256k1.getPublicKey(privateKey, true)));
  const btc = bech32.encode('bc', [0, ...bech32.toWords(hash160)]);
  return { eth, btc };
}
