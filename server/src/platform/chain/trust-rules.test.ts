import { describe, expect, it } from 'vitest';
import {
  isAttestationLive,
  isHandleReleased,
  isRecordLive,
  isRecordVerified,
  primaryFailure,
  primaryTrusted,
} from './trust-rules';
import type { AttestationAccount, HandleAccount, HandleAuthority, PrimaryPointerAccount, RecordAccount } from './types';
import { testAddress } from '@sigil/test/support/fake-rpc-accounts';

const OWNER = testAddress(1);
const OTHER = testAddress(2);
const handle: HandleAccount = {
  address: testAddress(10),
  name: 'alice',
  owner: OWNER,
  handleType: 0,
  tokenized: false,
  mint: null,
  registrationEpoch: 2n,
  registeredAt: 100,
  registeredSlot: 500n,
};
const ownerAuthority: HandleAuthority = { authority: OWNER, source: 'owner' };
const record: RecordAccount = {
  address: testAddress(11),
  handle: handle.address,
  kind: 'address',
  key: 'SOL',
  value: 'x',
  authority: OWNER,
  handleEpoch: 2n,
  verified: true,
  verifiedAt: 1,
  updatedAt: 1,
  updatedSlot: 600n,
};
const pointer: PrimaryPointerAccount = {
  address: testAddress(12),
  wallet: OWNER,
  handle: handle.address,
  handleEpoch: 2n,
  setAt: 1,
  setSlot: 500n,
};

describe('isRecordLive / isRecordVerified', () => {
  it('live when written by the current authority in the current epoch', () => {
    expect(isRecordLive(record, handle, ownerAuthority)).toBe(true);
    expect(isRecordVerified(record, handle, ownerAuthority)).toBe(true);
    expect(isRecordVerified({ ...record, verified: false }, handle, ownerAuthority)).toBe(false);
  });
  it('stale under another authority, another epoch, another handle, or no authority', () => {
    expect(isRecordLive({ ...record, authority: OTHER }, handle, ownerAuthority)).toBe(false);
    expect(isRecordLive({ ...record, handleEpoch: 1n }, handle, ownerAuthority)).toBe(false);
    expect(isRecordLive({ ...record, handle: testAddress(13) }, handle, ownerAuthority)).toBe(false);
    expect(isRecordLive(record, handle, { authority: null, source: 'nft-holder', reason: 'nft-burned' })).toBe(false);
    expect(isRecordVerified({ ...record, handleEpoch: 1n }, handle, ownerAuthority)).toBe(false);
  });
});

describe('isAttestationLive', () => {
  const att: AttestationAccount = {
    address: testAddress(14),
    handle: handle.address,
    issuer: OTHER,
    platform: 'x',
    subject: 'a',
    issuedAt: 1,
    expiresAt: 0,
    revoked: false,
  };
  it('never-expiring, not revoked → live', () => expect(isAttestationLive(att, 2_000_000_000)).toBe(true));
  it('expiry is exclusive', () => {
    expect(isAttestationLive({ ...att, expiresAt: 1000 }, 999)).toBe(true);
    expect(isAttestationLive({ ...att, expiresAt: 1000 }, 1000)).toBe(false);
  });
  it('revoked → not live', () => expect(isAttestationLive({ ...att, revoked: true }, 0)).toBe(false));
});

describe('primaryTrusted (reverse trust rule)', () => {
  it('trusted when set in the current registration, at/after its slot, by the current authority', () => {
    expect(primaryTrusted(pointer, handle, ownerAuthority)).toBe(true);
    expect(primaryTrusted({ ...pointer, setSlot: 501n }, handle, ownerAuthority)).toBe(true);
  });
  it('not trusted when set before the current registration (epoch or slot)', () => {
    expect(primaryTrusted({ ...pointer, handleEpoch: 1n }, handle, ownerAuthority)).toBe(false);
    expect(primaryTrusted({ ...pointer, setSlot: 499n }, handle, ownerAuthority)).toBe(false);
  });
  it('not trusted when the wallet lost authority, or nobody holds it', () => {
    expect(primaryTrusted(pointer, handle, { authority: OTHER, source: 'nft-holder' })).toBe(false);
    expect(primaryTrusted(pointer, handle, { authority: null, source: 'nft-holder', reason: 'nft-not-in-ata' })).toBe(
      false,
    );
  });
  it('not trusted when it points at another handle', () => {
    expect(primaryTrusted({ ...pointer, handle: testAddress(15) }, handle, ownerAuthority)).toBe(false);
  });
});

describe('primaryFailure (the rule the keyed reverse names)', () => {
  it('null when trusted', () => expect(primaryFailure(pointer, handle, ownerAuthority)).toBeNull());
  it('no-pointer, before anything else is looked at', () =>
    expect(primaryFailure(null, null, null)).toBe('no-pointer'));
  it('handle-missing: no account, a released one, or another handle than the pointer names', () => {
    expect(primaryFailure(pointer, null, null)).toBe('handle-missing');
    const released = { ...handle, owner: '11111111111111111111111111111111' as never };
    expect(primaryFailure(pointer, released, ownerAuthority)).toBe('handle-missing');
    expect(primaryFailure({ ...pointer, handle: testAddress(15) }, handle, ownerAuthority)).toBe('handle-missing');
  });
  it('pointer-older-than-registration: an older epoch, or a slot before the registration', () => {
    expect(primaryFailure({ ...pointer, handleEpoch: 1n }, handle, ownerAuthority)).toBe(
      'pointer-older-than-registration',
    );
    expect(primaryFailure({ ...pointer, setSlot: 499n }, handle, ownerAuthority)).toBe(
      'pointer-older-than-registration',
    );
  });
  it('authority-lost: another authority, nobody, or authority not read', () => {
    expect(primaryFailure(pointer, handle, { authority: OTHER, source: 'owner' })).toBe('authority-lost');
    expect(primaryFailure(pointer, handle, { authority: null, source: 'nft-holder', reason: 'nft-burned' })).toBe(
      'authority-lost',
    );
    expect(primaryFailure(pointer, handle, null)).toBe('authority-lost');
  });
});

describe('isHandleReleased', () => {
  it('zeroed owner = released', () => {
    expect(isHandleReleased({ ...handle, owner: '11111111111111111111111111111111' as never })).toBe(true);
    expect(isHandleReleased(handle)).toBe(false);
  });
});
