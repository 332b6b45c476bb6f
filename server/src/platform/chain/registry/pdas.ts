// PDA derivation for every registry account (seeds per docs/registry-program.md).
import {
  getAddressEncoder,
  getProgramDerivedAddress,
  getU64Encoder,
  type Address,
  type ProgramDerivedAddress,
} from '@solana/kit';
import { RECORD_KIND_ADDRESS, RECORD_KIND_TEXT } from './accounts';

const addressBytes = getAddressEncoder();
const u64le = getU64Encoder();
const utf8 = (s: string) => new TextEncoder().encode(s);

export function findHandlePda(programId: Address, name: string): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({ programAddress: programId, seeds: ['handle', utf8(name)] });
}

export function findPrimaryPointerPda(programId: Address, wallet: Address): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({ programAddress: programId, seeds: ['primary', addressBytes.encode(wallet)] });
}

export function findRecordPda(
  programId: Address,
  handle: Address,
  kind: 'address' | 'text',
  key: string,
): Promise<ProgramDerivedAddress> {
  const kindByte = Uint8Array.of(kind === 'address' ? RECORD_KIND_ADDRESS : RECORD_KIND_TEXT);
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ['record', addressBytes.encode(handle), kindByte, utf8(key)],
  });
}

export function findAttestationPda(
  programId: Address,
  handle: Address,
  platform: string,
): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ['attestation', addressBytes.encode(handle), utf8(platform)],
  });
}

export function findNamespacePda(programId: Address, tld: string): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({ programAddress: programId, seeds: ['namespace', utf8(tld)] });
}

export function findDomainPda(programId: Address, namespace: Address, label: string): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ['domain', addressBytes.encode(namespace), utf8(label)],
  });
}

export function findInvoicePda(programId: Address, payee: Address, id: bigint): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ['invoice', addressBytes.encode(payee), u64le.encode(id)],
  });
}
