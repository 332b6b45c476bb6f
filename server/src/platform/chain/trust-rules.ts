// Pure trust rules over decoded registry accounts (docs/registry-program.md). No I/O: callers pass what they read.
import type { Address } from '@solana/kit';
import type { ReverseFailedRule } from '@sigil/contract/reverse';
import type { AttestationAccount, HandleAccount, HandleAuthority, PrimaryPointerAccount, RecordAccount } from './types';

/** The all-zero address (base58): a released handle keeps its account with the owner zeroed. */
export const ZERO_ADDRESS = '11111111111111111111111111111111' as Address;

export function isHandleReleased(handle: HandleAccount): boolean {
  return handle.owner === ZERO_ADDRESS;
}

/**
 * A record counts only when it belongs to this handle and was written by the current authority under the current
 * registration epoch; anything written under a previous owner or registration is stale and ignored.
 */
export function isRecordLive(record: RecordAccount, handle: HandleAccount, authority: HandleAuthority): boolean {
  return (
    authority.authority !== null &&
    record.handle === handle.address &&
    record.authority === authority.authority &&
    record.handleEpoch === handle.registrationEpoch
  );
}

/** Verified = the program checked the recorded address's signature, and the record is not stale. */
export function isRecordVerified(record: RecordAccount, handle: HandleAccount, authority: HandleAuthority): boolean {
  return record.verified && isRecordLive(record, handle, authority);
}

/** Live = not revoked and not expired (`expiresAt` 0 = never). */
export function isAttestationLive(attestation: AttestationAccount, nowSec: number): boolean {
  return !attestation.revoked && (attestation.expiresAt === 0 || attestation.expiresAt > nowSec);
}

/**
 * Reverse trust rules: a pointer exists; it names a live handle; it was set under that handle's current registration
 * epoch and at or after the registration slot; and its wallet still holds authority (owner, or NFT holder in its ATA
 * when tokenized). The first rule that fails, or null when the pointer is trusted. `authority` is needed only when the
 * first three hold.
 */
export function primaryFailure(
  pointer: PrimaryPointerAccount | null,
  handle: HandleAccount | null,
  authority: HandleAuthority | null,
): ReverseFailedRule | null {
  if (!pointer) return 'no-pointer';
  if (!handle || handle.address !== pointer.handle || isHandleReleased(handle)) return 'handle-missing';
  if (pointer.handleEpoch !== handle.registrationEpoch || pointer.setSlot < handle.registeredSlot) {
    return 'pointer-older-than-registration';
  }
  if (!authority || authority.authority === null || authority.authority !== pointer.wallet) return 'authority-lost';
  return null;
}

/** The public reverse's yes/no form of primaryFailure. */
export function primaryTrusted(
  pointer: PrimaryPointerAccount,
  handle: HandleAccount,
  authority: HandleAuthority,
): boolean {
  return primaryFailure(pointer, handle, authority) === null;
}
