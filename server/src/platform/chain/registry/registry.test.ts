import { describe, expect, it } from 'vitest';
import {
  AccountRole,
  getAddressDecoder,
  getAddressEncoder,
  getI64Codec,
  getU32Codec,
  getU64Codec,
  getU8Codec,
  type Address,
} from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { SYSTEM_PROGRAM_ADDRESS } from '../programs';
import {
  ACCOUNT_DISCRIMINATORS,
  ACCOUNT_OFFSETS,
  INSTRUCTION_DISCRIMINATORS,
  RegistryDecodeError,
  addressCodec,
  i64Codec,
  u32Codec,
  u64Codec,
  u8Codec,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  decodeAttestation,
  decodeDomain,
  decodeHandle,
  decodeInvoice,
  decodeNamespace,
  decodePrimaryPointer,
  decodeRecord,
  decodeRegistryInstruction,
  encodeAttestation,
  encodeDomain,
  encodeHandle,
  encodeInvoice,
  encodeNamespace,
  encodePrimaryPointer,
  encodeRecord,
  findAttestationPda,
  findHandlePda,
  findRecordPda,
  findInvoicePda,
  getAttestInstruction,
  getCancelInvoiceInstruction,
  getCloseInvoiceInstruction,
  getCreateInvoiceInstruction,
  getCreateNamespaceInstruction,
  getPayInvoiceInstruction,
  getRegisterInstruction,
  getRegisterUnderNamespaceInstruction,
  getReleaseInstruction,
  getRevokeAttestationInstruction,
  getSetPrimaryInstruction,
  getSetRecordInstruction,
  getTokenizeInstruction,
  getTransferInstruction,
  getVerifyRecordInstruction,
  identifyRegistryAccount,
  type HandleData,
  type InvoiceData,
  type RecordData,
} from './index';

const addr = (n: number): Address => getAddressDecoder().decode(new Uint8Array(32).fill(n));
const bytesOf = (a: Address) => getAddressEncoder().encode(a);
const PROGRAM = addr(200);
const A = addr(1);
const B = addr(2);
const C = addr(3);
const D = addr(4);
const E = addr(5);
const F = addr(6);

function expectDecodeError(fn: () => unknown, reason: RegistryDecodeError['reason']) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RegistryDecodeError);
    expect((err as RegistryDecodeError).reason).toBe(reason);
    return;
  }
  throw new Error(`expected RegistryDecodeError(${reason}), nothing was thrown`);
}

const handle: HandleData = {
  owner: A,
  handleType: 3,
  tokenized: true,
  mint: B,
  registrationEpoch: 2n,
  registeredAt: 1_700_000_000,
  registeredSlot: 123_456n,
  bump: 254,
  name: 'alice',
};
const record: RecordData = {
  handle: C,
  kind: 'text',
  authority: A,
  handleEpoch: 2n,
  verified: false,
  verifiedAt: 0,
  updatedAt: 1_700_000_100,
  updatedSlot: 99n,
  bump: 250,
  key: 'agent.mcp',
  value: 'https://example.com/mcp ✓',
};
const invoice: InvoiceData = {
  payee: A,
  paidBy: null,
  mint: B,
  amount: 1_000_000n,
  fee: 0n,
  expiresAt: 1_800_000_000,
  status: 0,
  boundHandle: C,
  createdAt: 1_700_000_000,
  createdSlot: 7n,
  paidAt: 0,
  id: 42n,
  bump: 255,
  memo: 'coffee',
};

describe('discriminators', () => {
  it('are sha256("account:<Name>")[0..8], pinned', () => {
    expect([...ACCOUNT_DISCRIMINATORS.Handle]).toEqual([150, 96, 143, 54, 64, 147, 63, 63]);
    expect([...ACCOUNT_DISCRIMINATORS.PrimaryPointer]).toEqual([69, 109, 244, 8, 57, 163, 64, 58]);
    expect([...ACCOUNT_DISCRIMINATORS.Record]).toEqual([254, 233, 117, 252, 76, 166, 146, 139]);
    expect([...ACCOUNT_DISCRIMINATORS.Attestation]).toEqual([152, 125, 183, 86, 36, 146, 121, 73]);
    expect([...ACCOUNT_DISCRIMINATORS.Namespace]).toEqual([41, 55, 77, 19, 60, 94, 223, 107]);
    expect([...ACCOUNT_DISCRIMINATORS.Domain]).toEqual([167, 191, 231, 63, 146, 41, 115, 27]);
    expect([...ACCOUNT_DISCRIMINATORS.Invoice]).toEqual([51, 194, 250, 114, 6, 104, 18, 164]);
  });
  it('are sha256("global:<ix>")[0..8], pinned', () => {
    const pinned: Record<string, number[]> = {
      register: [211, 124, 67, 15, 211, 194, 178, 240],
      release: [253, 249, 15, 206, 28, 127, 193, 241],
      set_primary: [93, 240, 24, 104, 144, 62, 216, 95],
      set_record: [136, 7, 203, 78, 110, 100, 55, 180],
      verify_record: [95, 2, 230, 207, 188, 217, 145, 202],
      tokenize: [138, 163, 95, 8, 237, 94, 174, 234],
      transfer: [163, 52, 200, 231, 140, 3, 69, 186],
      attest: [83, 148, 120, 119, 144, 139, 117, 160],
      revoke_attestation: [12, 156, 103, 161, 194, 246, 211, 179],
      create_namespace: [205, 189, 35, 255, 214, 116, 25, 107],
      register_under_namespace: [206, 86, 185, 182, 253, 186, 127, 136],
      create_invoice: [154, 170, 31, 135, 134, 100, 156, 146],
      pay_invoice: [104, 6, 62, 239, 197, 206, 208, 220],
      cancel_invoice: [88, 158, 54, 49, 53, 26, 92, 68],
      close_invoice: [217, 64, 46, 247, 231, 36, 118, 252],
    };
    expect(Object.fromEntries(Object.entries(INSTRUCTION_DISCRIMINATORS).map(([k, v]) => [k, [...v]]))).toEqual(pinned);
  });
});

describe('account round trips and offsets', () => {
  it('Handle: fields at the documented offsets, exact length, round trip', () => {
    const bytes = encodeHandle(handle);
    expect(bytes.length).toBe(99 + 4 + 5);
    expect(bytes.subarray(ACCOUNT_OFFSETS.Handle.owner, 40)).toEqual(bytesOf(A));
    expect(bytes[40]).toBe(3);
    expect(bytes[41]).toBe(1);
    expect(bytes.subarray(ACCOUNT_OFFSETS.Handle.mint, 74)).toEqual(bytesOf(B));
    expect([...bytes.subarray(74, 82)]).toEqual([2, 0, 0, 0, 0, 0, 0, 0]);
    expect(bytes[98]).toBe(254);
    expect([...bytes.subarray(99)]).toEqual([5, 0, 0, 0, 97, 108, 105, 99, 101]);
    expect(decodeHandle(D, bytes)).toEqual({ address: D, ...handle });
    expect(identifyRegistryAccount(bytes)).toBe('Handle');
  });

  it('Handle: mint none is 32 zero bytes and decodes to null', () => {
    const bytes = encodeHandle({ ...handle, tokenized: false, mint: null });
    expect([...bytes.subarray(42, 74)]).toEqual(new Array(32).fill(0));
    expect(decodeHandle(D, bytes).mint).toBeNull();
  });

  it('PrimaryPointer', () => {
    const p = { wallet: A, handle: B, handleEpoch: 3n, setAt: 1_700_000_001, setSlot: 500n, bump: 1 };
    const bytes = encodePrimaryPointer(p);
    expect(bytes.length).toBe(97);
    expect(bytes.subarray(8, 40)).toEqual(bytesOf(A));
    expect(bytes.subarray(40, 72)).toEqual(bytesOf(B));
    expect(decodePrimaryPointer(C, bytes)).toEqual({ address: C, ...p });
  });

  it('Record: handle at 8, key at 107, unicode value survives', () => {
    const bytes = encodeRecord(record);
    expect(bytes.subarray(ACCOUNT_OFFSETS.Record.handle, 40)).toEqual(bytesOf(C));
    expect(bytes[40]).toBe(1);
    expect(bytes.subarray(41, 73)).toEqual(bytesOf(A));
    expect([...bytes.subarray(107, 111)]).toEqual([9, 0, 0, 0]);
    expect(decodeRecord(D, bytes)).toEqual({ address: D, ...record });
    const addressRecord = {
      ...record,
      kind: 'address' as const,
      verified: true,
      verifiedAt: 5,
      key: 'ETH',
      value: '0xabc',
    };
    expect(decodeRecord(D, encodeRecord(addressRecord))).toEqual({ address: D, ...addressRecord });
  });

  it('Attestation', () => {
    const att = {
      handle: C,
      issuer: A,
      issuedAt: 10,
      expiresAt: 0,
      revoked: false,
      bump: 9,
      platform: 'github',
      subject: 'alice',
    };
    const bytes = encodeAttestation(att);
    expect(bytes.subarray(8, 40)).toEqual(bytesOf(C));
    expect([...bytes.subarray(90, 94)]).toEqual([6, 0, 0, 0]);
    expect(decodeAttestation(D, bytes)).toEqual({ address: D, ...att });
  });

  it('Namespace', () => {
    const ns = { authority: A, active: true, createdAt: 1, bump: 3, tld: 'x1' };
    const bytes = encodeNamespace(ns);
    expect(bytes.length).toBe(50 + 4 + 2);
    expect(decodeNamespace(D, bytes)).toEqual({ address: D, ...ns });
  });

  it('Domain', () => {
    const dom = {
      namespace: B,
      owner: A,
      tokenized: false,
      mint: null,
      registeredAt: 2,
      registeredSlot: 3n,
      bump: 4,
      label: 'shop',
      tld: 'xnt',
    };
    const bytes = encodeDomain(dom);
    expect(bytes.subarray(8, 40)).toEqual(bytesOf(B));
    expect(bytes.subarray(40, 72)).toEqual(bytesOf(A));
    expect([...bytes.subarray(122, 126)]).toEqual([4, 0, 0, 0]);
    expect(decodeDomain(D, bytes)).toEqual({ address: D, ...dom });
  });

  it('Invoice: payee at 8, status at 128, memo at 194', () => {
    const bytes = encodeInvoice(invoice);
    expect(bytes.length).toBe(194 + 4 + 6);
    expect(bytes.subarray(ACCOUNT_OFFSETS.Invoice.payee, 40)).toEqual(bytesOf(A));
    expect([...bytes.subarray(40, 72)]).toEqual(new Array(32).fill(0));
    expect(bytes.subarray(72, 104)).toEqual(bytesOf(B));
    expect(bytes[128]).toBe(0);
    expect(bytes.subarray(129, 161)).toEqual(bytesOf(C));
    expect([...bytes.subarray(185, 193)]).toEqual([42, 0, 0, 0, 0, 0, 0, 0]);
    expect(decodeInvoice(D, bytes)).toEqual({ address: D, ...invoice });
    const paid = { ...invoice, status: 1 as const, paidBy: E, paidAt: 1_700_000_500, mint: null, boundHandle: null };
    expect(decodeInvoice(D, encodeInvoice(paid))).toEqual({ address: D, ...paid });
  });

  it('accepts zero padding after the layout (spare allocated room)', () => {
    const bytes = new Uint8Array(encodeHandle(handle).length + 20);
    bytes.set(encodeHandle(handle));
    expect(decodeHandle(D, bytes).name).toBe('alice');
  });
});

describe('malformed account data is rejected, never returned', () => {
  const good = encodeHandle(handle);
  const mutate = (at: number, value: number, src = good) => {
    const copy = Uint8Array.from(src);
    copy[at] = value;
    return copy;
  };

  it('empty and sub-discriminator data', () => {
    expectDecodeError(() => decodeHandle(D, new Uint8Array(0)), 'too-short');
    expectDecodeError(() => decodeHandle(D, good.subarray(0, 7)), 'too-short');
  });
  it('wrong discriminator (another account type)', () => {
    expectDecodeError(() => decodeHandle(D, encodeRecord(record)), 'wrong-discriminator');
    expectDecodeError(() => decodeHandle(D, mutate(0, good[0] ^ 1)), 'wrong-discriminator');
    expect(identifyRegistryAccount(new Uint8Array(8))).toBeNull();
  });
  it('truncated fixed part and truncated string', () => {
    expectDecodeError(() => decodeHandle(D, good.subarray(0, 50)), 'too-short');
    expectDecodeError(() => decodeHandle(D, good.subarray(0, good.length - 1)), 'too-short');
  });
  it('string length prefix larger than the data', () => {
    const bad = mutate(102, 0xff); // top byte of the u32 length of `name`
    expectDecodeError(() => decodeHandle(D, bad), 'too-short');
  });
  it('invalid UTF-8 in a string', () => {
    expectDecodeError(() => decodeHandle(D, mutate(103, 0xff)), 'invalid-utf8');
  });
  it('bool byte other than 0/1, enum out of range', () => {
    expectDecodeError(() => decodeHandle(D, mutate(41, 2)), 'invalid-value');
    expectDecodeError(() => decodeHandle(D, mutate(40, 4)), 'invalid-value');
    expectDecodeError(() => decodeInvoice(D, mutate(128, 3, encodeInvoice(invoice))), 'invalid-value');
    expectDecodeError(() => decodeRecord(D, mutate(40, 2, encodeRecord(record))), 'invalid-value');
  });
  it('time outside the safe-integer range', () => {
    const bad = Uint8Array.from(good);
    bad.set([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], 82);
    expectDecodeError(() => decodeHandle(D, bad), 'invalid-value');
  });
  it('non-zero bytes after the layout', () => {
    const bad = new Uint8Array(good.length + 1);
    bad.set(good);
    bad[good.length] = 1;
    expectDecodeError(() => decodeHandle(D, bad), 'trailing-bytes');
  });
});

describe('PDAs', () => {
  it('derive deterministically and separate by seed', async () => {
    const [h1, bump1] = await findHandlePda(PROGRAM, 'alice');
    const [h2] = await findHandlePda(PROGRAM, 'alice');
    const [other] = await findHandlePda(PROGRAM, 'bob');
    expect(h1).toBe(h2);
    expect(other).not.toBe(h1);
    expect(bump1).toBeGreaterThanOrEqual(0);
    const [addrRec] = await findRecordPda(PROGRAM, h1, 'address', 'X1');
    const [textRec] = await findRecordPda(PROGRAM, h1, 'text', 'X1');
    expect(addrRec).not.toBe(textRec);
    const [att] = await findAttestationPda(PROGRAM, h1, 'x');
    expect(att).not.toBe(addrRec);
    const [inv1] = await findInvoicePda(PROGRAM, A, 1n);
    const [inv2] = await findInvoicePda(PROGRAM, A, 2n);
    expect(inv1).not.toBe(inv2);
  });
});

describe('instructions', () => {
  const addresses = (ix: { accounts?: readonly { address: Address }[] }) => (ix.accounts ?? []).map((a) => a.address);
  const roles = (ix: { accounts?: readonly { role: AccountRole }[] }) => (ix.accounts ?? []).map((a) => a.role);
  const { READONLY, WRITABLE, READONLY_SIGNER, WRITABLE_SIGNER } = AccountRole;

  it('register: literal data bytes, roles, decode', () => {
    const ix = getRegisterInstruction({
      programId: PROGRAM,
      payer: A,
      owner: B,
      handle: C,
      name: 'alice',
      handleType: 0,
    });
    expect(ix.programAddress).toBe(PROGRAM);
    expect([...(ix.data ?? [])]).toEqual([211, 124, 67, 15, 211, 194, 178, 240, 5, 0, 0, 0, 97, 108, 105, 99, 101, 0]);
    expect(roles(ix)).toEqual([WRITABLE_SIGNER, READONLY_SIGNER, WRITABLE, READONLY]);
    expect(decodeRegistryInstruction(ix.data!, addresses(ix), PROGRAM)).toEqual({
      name: 'register',
      args: { name: 'alice', handleType: 0 },
      accounts: { payer: A, owner: B, handle: C, systemProgram: SYSTEM_PROGRAM_ADDRESS },
    });
  });

  it('every instruction round-trips through decodeRegistryInstruction', () => {
    const cases = [
      [
        getReleaseInstruction({ programId: PROGRAM, owner: A, handle: C }),
        { name: 'release', args: {}, accounts: { owner: A, handle: C } },
      ],
      [
        getSetPrimaryInstruction({ programId: PROGRAM, wallet: A, handle: C, primary: D }),
        {
          name: 'set_primary',
          args: {},
          accounts: { wallet: A, handle: C, primary: D, systemProgram: SYSTEM_PROGRAM_ADDRESS },
        },
      ],
      [
        getSetRecordInstruction({
          programId: PROGRAM,
          authority: A,
          handle: C,
          record: D,
          kind: 'address',
          key: 'SOL',
          value: 'So1',
        }),
        {
          name: 'set_record',
          args: { kind: 0, key: 'SOL', value: 'So1' },
          accounts: { authority: A, handle: C, record: D, systemProgram: SYSTEM_PROGRAM_ADDRESS },
        },
      ],
      [
        getVerifyRecordInstruction({ programId: PROGRAM, authority: A, handle: C, record: D, verifier: E }),
        { name: 'verify_record', args: {}, accounts: { authority: A, handle: C, record: D, verifier: E } },
      ],
      [
        getTokenizeInstruction({ programId: PROGRAM, owner: A, handle: C, mint: E, ownerTokenAccount: F }),
        {
          name: 'tokenize',
          args: {},
          accounts: { owner: A, handle: C, mint: E, ownerTokenAccount: F, tokenProgram: TOKEN_PROGRAM_ADDRESS },
        },
      ],
      [
        getTransferInstruction({ programId: PROGRAM, owner: A, handle: C, newOwner: B }),
        { name: 'transfer', args: { newOwner: B }, accounts: { owner: A, handle: C } },
      ],
      [
        getAttestInstruction({
          programId: PROGRAM,
          issuer: A,
          handle: C,
          attestation: D,
          platform: 'x',
          subject: 'al',
          expiresAt: 99,
        }),
        {
          name: 'attest',
          args: { platform: 'x', subject: 'al', expiresAt: 99 },
          accounts: { issuer: A, handle: C, attestation: D, systemProgram: SYSTEM_PROGRAM_ADDRESS },
        },
      ],
      [
        getRevokeAttestationInstruction({ programId: PROGRAM, issuer: A, attestation: D }),
        { name: 'revoke_attestation', args: {}, accounts: { issuer: A, attestation: D } },
      ],
      [
        getCreateNamespaceInstruction({ programId: PROGRAM, authority: A, namespace: D, tld: 'xen' }),
        {
          name: 'create_namespace',
          args: { tld: 'xen' },
          accounts: { authority: A, namespace: D, systemProgram: SYSTEM_PROGRAM_ADDRESS },
        },
      ],
      [
        getRegisterUnderNamespaceInstruction({
          programId: PROGRAM,
          payer: A,
          owner: B,
          namespace: D,
          domain: E,
          label: 'shop',
        }),
        {
          name: 'register_under_namespace',
          args: { label: 'shop' },
          accounts: { payer: A, owner: B, namespace: D, domain: E, systemProgram: SYSTEM_PROGRAM_ADDRESS },
        },
      ],
      [
        getCreateInvoiceInstruction({
          programId: PROGRAM,
          payee: A,
          invoice: D,
          mint: B,
          handle: C,
          id: 7n,
          amount: 5n,
          expiresAt: 100,
          memo: 'm',
        }),
        {
          name: 'create_invoice',
          args: { id: 7n, amount: 5n, expiresAt: 100, memo: 'm', bound: true },
          accounts: { payee: A, invoice: D, mint: B, handle: C, systemProgram: SYSTEM_PROGRAM_ADDRESS },
        },
      ],
      [
        getCreateInvoiceInstruction({
          programId: PROGRAM,
          payee: A,
          invoice: D,
          mint: null,
          handle: null,
          id: 8n,
          amount: 6n,
          expiresAt: 0,
          memo: '',
        }),
        {
          name: 'create_invoice',
          args: { id: 8n, amount: 6n, expiresAt: 0, memo: '', bound: false },
          accounts: { payee: A, invoice: D, mint: null, handle: null, systemProgram: SYSTEM_PROGRAM_ADDRESS },
        },
      ],
      [
        getPayInvoiceInstruction({ programId: PROGRAM, kind: 'native', payer: B, invoice: D, payee: A }),
        {
          name: 'pay_invoice',
          args: {},
          accounts: { kind: 'native', payer: B, invoice: D, payee: A, systemProgram: SYSTEM_PROGRAM_ADDRESS },
        },
      ],
      [
        getPayInvoiceInstruction({
          programId: PROGRAM,
          kind: 'token',
          payer: B,
          invoice: D,
          payee: A,
          payerTokenAccount: E,
          payeeTokenAccount: F,
          mint: C,
        }),
        {
          name: 'pay_invoice',
          args: {},
          accounts: {
            kind: 'token',
            payer: B,
            invoice: D,
            payee: A,
            payerTokenAccount: E,
            payeeTokenAccount: F,
            mint: C,
            tokenProgram: TOKEN_PROGRAM_ADDRESS,
          },
        },
      ],
      [
        getCancelInvoiceInstruction({ programId: PROGRAM, payee: A, invoice: D }),
        { name: 'cancel_invoice', args: {}, accounts: { payee: A, invoice: D } },
      ],
      [
        getCloseInvoiceInstruction({ programId: PROGRAM, payee: A, invoice: D }),
        { name: 'close_invoice', args: {}, accounts: { payee: A, invoice: D } },
      ],
    ] as const;
    for (const [ix, expected] of cases) {
      expect(decodeRegistryInstruction(ix.data!, addresses(ix), PROGRAM)).toEqual(expected);
    }
    expect(cases.length).toBe(16);
  });

  it('create_invoice sends the program id as the "none" placeholder', () => {
    const ix = getCreateInvoiceInstruction({
      programId: PROGRAM,
      payee: A,
      invoice: D,
      mint: null,
      handle: null,
      id: 1n,
      amount: 1n,
      expiresAt: 0,
      memo: '',
    });
    expect(addresses(ix)).toEqual([A, D, PROGRAM, PROGRAM, SYSTEM_PROGRAM_ADDRESS]);
    expect(roles(ix)).toEqual([WRITABLE_SIGNER, WRITABLE, READONLY, READONLY, READONLY]);
  });

  it('verify_record: verifier signs for X1/SOL; the instructions sysvar (not a signer) for ETH/BTC', () => {
    const signed = getVerifyRecordInstruction({ programId: PROGRAM, authority: A, handle: C, record: D, verifier: E });
    expect(roles(signed)).toEqual([READONLY_SIGNER, READONLY, WRITABLE, READONLY_SIGNER]);
    const secp = getVerifyRecordInstruction({
      programId: PROGRAM,
      authority: A,
      handle: C,
      record: D,
      verifier: SYSVAR_INSTRUCTIONS_ADDRESS,
    });
    expect(roles(secp)).toEqual([READONLY_SIGNER, READONLY, WRITABLE, READONLY]);
  });

  it('rejects unknown discriminators, trailing data, bad args and missing accounts', () => {
    const ix = getRegisterInstruction({
      programId: PROGRAM,
      payer: A,
      owner: B,
      handle: C,
      name: 'alice',
      handleType: 0,
    });
    const data = Uint8Array.from(ix.data!);
    const accounts = addresses(ix);
    expectDecodeError(() => decodeRegistryInstruction(new Uint8Array(8), accounts), 'unknown-instruction');
    expectDecodeError(() => decodeRegistryInstruction(data.subarray(0, 5), accounts), 'too-short');
    expectDecodeError(() => decodeRegistryInstruction(data.subarray(0, data.length - 1), accounts), 'too-short');
    expectDecodeError(() => decodeRegistryInstruction(Uint8Array.of(...data, 0), accounts), 'trailing-bytes');
    expectDecodeError(() => decodeRegistryInstruction(data, accounts.slice(0, 3)), 'missing-accounts');
    const badType = Uint8Array.from(data);
    badType[badType.length - 1] = 9;
    expectDecodeError(() => decodeRegistryInstruction(badType, accounts), 'invalid-value');
    const badUtf8 = Uint8Array.from(data);
    badUtf8[12] = 0xc0;
    expectDecodeError(() => decodeRegistryInstruction(badUtf8, accounts), 'invalid-utf8');
  });
});

describe('addressCodec (the fast account-field codec) is kit’s address codec, byte for byte', () => {
  const kitDecode = getAddressDecoder();
  const kitEncode = getAddressEncoder();
  const samples = [
    new Uint8Array(32), // all zero: '1111…'
    Uint8Array.from({ length: 32 }, (_, i) => (i < 3 ? 0 : 255)), // leading zeros then high bytes
    Uint8Array.from({ length: 32 }, () => 255),
    ...Array.from({ length: 200 }, (_, n) =>
      Uint8Array.from({ length: 32 }, (_, i) => (n * 131 + i * 197 + (n ^ i) * 7) & 0xff),
    ),
  ];

  it('decodes every sample to the same string and encodes it back to the same bytes', () => {
    for (const bytes of samples) {
      const expected = kitDecode.decode(bytes);
      expect(addressCodec.decode(bytes)).toBe(expected);
      expect(Uint8Array.from(addressCodec.encode(expected))).toEqual(Uint8Array.from(kitEncode.encode(expected)));
    }
    expect(addressCodec.decode(new Uint8Array(32))).toBe('11111111111111111111111111111111');
  });

  it('refuses fewer than 32 bytes (too-short) and strings that are not 32-byte base58', () => {
    expect(() => addressCodec.decode(new Uint8Array(31))).toThrow(RegistryDecodeError);
    expect(() => addressCodec.encode('0OIl' as Address)).toThrow();
    expect(() => addressCodec.encode('1111' as Address)).toThrow(/32 bytes/);
  });
});

describe('the in-place integer codecs are kit’s, byte for byte', () => {
  const pairs = [
    ['u8', u8Codec, getU8Codec(), [0n, 1n, 127n, 255n]],
    ['u32', u32Codec, getU32Codec(), [0n, 1n, 65_536n, 4_294_967_295n]],
    ['u64', u64Codec, getU64Codec(), [0n, 1n, 2n ** 53n + 1n, 2n ** 64n - 1n]],
    ['i64', i64Codec, getI64Codec(), [-(2n ** 63n), -1n, 0n, 1_700_000_000n, 2n ** 63n - 1n]],
  ] as const;

  it('encodes the edge values to the same bytes and decodes random bytes (at an offset) to the same values', () => {
    for (const [name, ours, kit, values] of pairs) {
      for (const value of values) {
        const n = name === 'u8' || name === 'u32' ? Number(value) : value;
        expect(Uint8Array.from(ours.encode(n)), `${name} ${value}`).toEqual(Uint8Array.from(kit.encode(n as never)));
      }
      for (let i = 0; i < 50; i++) {
        const bytes = Uint8Array.from({ length: 3 + ours.fixedSize }, (_, j) => (i * 37 + j * 101 + 13) & 0xff);
        expect(ours.read(bytes, 3)).toEqual(kit.read(bytes, 3));
      }
    }
  });

  it('refuses out-of-range values and too few bytes', () => {
    expect(() => u8Codec.encode(256)).toThrow(RangeError);
    expect(() => u32Codec.encode(-1)).toThrow(RangeError);
    expect(() => u64Codec.encode(2n ** 64n)).toThrow(RangeError);
    expect(() => i64Codec.encode(2n ** 63n)).toThrow(RangeError);
    expect(() => u64Codec.decode(new Uint8Array(7))).toThrow(RegistryDecodeError);
  });
});
