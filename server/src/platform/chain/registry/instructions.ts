// Instructions of the registry program (docs/registry-program.md § Instructions): data codecs, builders that
// return kit `Instruction`s, and one decoder from (data, account addresses) to a typed union.
import {
  AccountRole,
  address as toAddress,
  getAddressCodec,
  getStructCodec,
  getU64Codec,
  type AccountMeta,
  type Address,
  type Codec,
  type Instruction,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../programs';
import { HANDLE_TYPES, RECORD_KIND_ADDRESS, RECORD_KIND_TEXT } from './accounts';
import { decodeMarketInstruction, type MarketInstruction } from './market';
import {
  bytesEqual,
  discriminatorOf,
  RegistryDecodeError,
  stringCodec,
  strictBoolCodec,
  toDecodeError,
  u8EnumCodec,
  unixTimeCodec,
} from './primitives';

/** Passed as `verifier` to verify_record for ETH/BTC: the program reads the secp256k1 precompile instruction here. */
export const SYSVAR_INSTRUCTIONS_ADDRESS = toAddress('Sysvar1nstructions1111111111111111111111111');

const u64 = getU64Codec() as unknown as Codec<bigint>;
const { READONLY, WRITABLE, READONLY_SIGNER, WRITABLE_SIGNER } = AccountRole;

const empty = getStructCodec([]) as unknown as Codec<Record<string, never>>;

/** Argument codecs (after the discriminator), in the doc's order. */
export const INSTRUCTION_ARG_CODECS = {
  register: getStructCodec([
    ['name', stringCodec],
    ['handleType', u8EnumCodec<number>('handleType', HANDLE_TYPES)],
  ]),
  release: empty,
  set_primary: empty,
  set_record: getStructCodec([
    ['kind', u8EnumCodec('kind', [RECORD_KIND_ADDRESS, RECORD_KIND_TEXT] as const)],
    ['key', stringCodec],
    ['value', stringCodec],
  ]),
  verify_record: empty,
  tokenize: empty,
  transfer: getStructCodec([['newOwner', getAddressCodec()]]),
  attest: getStructCodec([
    ['platform', stringCodec],
    ['subject', stringCodec],
    ['expiresAt', unixTimeCodec],
  ]),
  revoke_attestation: empty,
  create_namespace: getStructCodec([['tld', stringCodec]]),
  register_under_namespace: getStructCodec([['label', stringCodec]]),
  create_invoice: getStructCodec([
    ['id', u64],
    ['amount', u64],
    ['expiresAt', unixTimeCodec],
    ['memo', stringCodec],
    ['bound', strictBoolCodec],
  ]),
  pay_invoice: empty,
  cancel_invoice: empty,
  close_invoice: empty,
} as const;

export type RegistryInstructionName = keyof typeof INSTRUCTION_ARG_CODECS;
type ArgsOf<N extends RegistryInstructionName> = ReturnType<(typeof INSTRUCTION_ARG_CODECS)[N]['decode']>;

/** `sha256("global:<ix_name>")[0..8]` for each instruction. */
export const INSTRUCTION_DISCRIMINATORS = Object.fromEntries(
  Object.keys(INSTRUCTION_ARG_CODECS).map((name) => [name, discriminatorOf(`global:${name}`)]),
) as Readonly<Record<RegistryInstructionName, Uint8Array>>;

/** Account names and roles, in order. pay_invoice's token form and the optional accounts are handled below. */
const ACCOUNT_LAYOUTS = {
  register: [
    ['payer', WRITABLE_SIGNER],
    ['owner', READONLY_SIGNER],
    ['handle', WRITABLE],
    ['systemProgram', READONLY],
  ],
  release: [
    ['owner', READONLY_SIGNER],
    ['handle', WRITABLE],
  ],
  set_primary: [
    ['wallet', READONLY_SIGNER],
    ['handle', READONLY],
    ['primary', WRITABLE],
    ['systemProgram', READONLY],
  ],
  set_record: [
    ['authority', READONLY_SIGNER],
    ['handle', READONLY],
    ['record', WRITABLE],
    ['systemProgram', READONLY],
  ],
  verify_record: [
    ['authority', READONLY_SIGNER],
    ['handle', READONLY],
    ['record', WRITABLE],
    ['verifier', READONLY_SIGNER],
  ],
  tokenize: [
    ['owner', READONLY_SIGNER],
    ['handle', WRITABLE],
    ['mint', WRITABLE_SIGNER],
    ['ownerTokenAccount', WRITABLE],
    ['tokenProgram', READONLY],
  ],
  transfer: [
    ['owner', READONLY_SIGNER],
    ['handle', WRITABLE],
  ],
  attest: [
    ['issuer', READONLY_SIGNER],
    ['handle', READONLY],
    ['attestation', WRITABLE],
    ['systemProgram', READONLY],
  ],
  revoke_attestation: [
    ['issuer', READONLY_SIGNER],
    ['attestation', WRITABLE],
  ],
  create_namespace: [
    ['authority', READONLY_SIGNER],
    ['namespace', WRITABLE],
    ['systemProgram', READONLY],
  ],
  register_under_namespace: [
    ['payer', WRITABLE_SIGNER],
    ['owner', READONLY_SIGNER],
    ['namespace', READONLY],
    ['domain', WRITABLE],
    ['systemProgram', READONLY],
  ],
  create_invoice: [
    ['payee', WRITABLE_SIGNER],
    ['invoice', WRITABLE],
    ['mint', READONLY],
    ['handle', READONLY],
    ['systemProgram', READONLY],
  ],
  pay_invoice: [
    ['payer', WRITABLE_SIGNER],
    ['invoice', WRITABLE],
    ['payee', WRITABLE],
    ['systemProgram', READONLY],
  ],
  cancel_invoice: [
    ['payee', READONLY_SIGNER],
    ['invoice', WRITABLE],
  ],
  close_invoice: [
    ['payee', WRITABLE_SIGNER],
    ['invoice', WRITABLE],
  ],
} as const satisfies Record<RegistryInstructionName, readonly (readonly [string, AccountRole])[]>;

const PAY_INVOICE_TOKEN_LAYOUT = [
  ['payer', WRITABLE_SIGNER],
  ['invoice', WRITABLE],
  ['payee', WRITABLE],
  ['payerTokenAccount', WRITABLE],
  ['payeeTokenAccount', WRITABLE],
  ['mint', READONLY],
  ['tokenProgram', READONLY],
] as const;

type AccountsOf<L extends readonly (readonly [string, AccountRole])[]> = { [K in L[number][0]]: Address };

/** The decoded form of every registry instruction. Optional accounts given as the program id come back as null. */
export type RegistryInstruction =
  | MarketInstruction
  | { name: 'register'; args: ArgsOf<'register'>; accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['register']> }
  | { name: 'release'; args: ArgsOf<'release'>; accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['release']> }
  | { name: 'set_primary'; args: ArgsOf<'set_primary'>; accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['set_primary']> }
  | { name: 'set_record'; args: ArgsOf<'set_record'>; accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['set_record']> }
  | {
      name: 'verify_record';
      args: ArgsOf<'verify_record'>;
      accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['verify_record']>;
    }
  | { name: 'tokenize'; args: ArgsOf<'tokenize'>; accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['tokenize']> }
  | { name: 'transfer'; args: ArgsOf<'transfer'>; accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['transfer']> }
  | { name: 'attest'; args: ArgsOf<'attest'>; accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['attest']> }
  | {
      name: 'revoke_attestation';
      args: ArgsOf<'revoke_attestation'>;
      accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['revoke_attestation']>;
    }
  | {
      name: 'create_namespace';
      args: ArgsOf<'create_namespace'>;
      accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['create_namespace']>;
    }
  | {
      name: 'register_under_namespace';
      args: ArgsOf<'register_under_namespace'>;
      accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['register_under_namespace']>;
    }
  | {
      name: 'create_invoice';
      args: ArgsOf<'create_invoice'>;
      accounts: {
        payee: Address;
        invoice: Address;
        mint: Address | null;
        handle: Address | null;
        systemProgram: Address;
      };
    }
  | {
      name: 'pay_invoice';
      args: ArgsOf<'pay_invoice'>;
      accounts:
        | ({ kind: 'native' } & AccountsOf<(typeof ACCOUNT_LAYOUTS)['pay_invoice']>)
        | ({ kind: 'token' } & AccountsOf<typeof PAY_INVOICE_TOKEN_LAYOUT>);
    }
  | {
      name: 'cancel_invoice';
      args: ArgsOf<'cancel_invoice'>;
      accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['cancel_invoice']>;
    }
  | {
      name: 'close_invoice';
      args: ArgsOf<'close_invoice'>;
      accounts: AccountsOf<(typeof ACCOUNT_LAYOUTS)['close_invoice']>;
    };

/** Instruction data = discriminator + encoded args. */
export function encodeRegistryInstructionData<N extends RegistryInstructionName>(name: N, args: ArgsOf<N>): Uint8Array {
  const body = (INSTRUCTION_ARG_CODECS[name] as unknown as Codec<ArgsOf<N>>).encode(args);
  const out = new Uint8Array(8 + body.length);
  out.set(INSTRUCTION_DISCRIMINATORS[name], 0);
  out.set(body, 8);
  return out;
}

function metas(layout: readonly (readonly [string, AccountRole])[], accounts: object): AccountMeta[] {
  return layout.map(([name, role]) => {
    const addr = (accounts as Record<string, unknown>)[name];
    if (typeof addr !== 'string') throw new TypeError(`missing account "${name}"`);
    return { address: addr as Address, role };
  });
}

function build<N extends RegistryInstructionName>(
  programId: Address,
  name: N,
  args: ArgsOf<N>,
  accountMetas: AccountMeta[],
): Instruction {
  return { programAddress: programId, accounts: accountMetas, data: encodeRegistryInstructionData(name, args) };
}

type Base = { programId: Address };
type WithSystem = { systemProgram?: Address };

export function getRegisterInstruction(
  i: Base & WithSystem & { payer: Address; owner: Address; handle: Address; name: string; handleType: number },
): Instruction {
  const accounts = { ...i, systemProgram: i.systemProgram ?? SYSTEM_PROGRAM_ADDRESS };
  return build(
    i.programId,
    'register',
    { name: i.name, handleType: i.handleType },
    metas(ACCOUNT_LAYOUTS.register, accounts),
  );
}

export function getReleaseInstruction(i: Base & { owner: Address; handle: Address }): Instruction {
  return build(i.programId, 'release', {}, metas(ACCOUNT_LAYOUTS.release, i));
}

export function getSetPrimaryInstruction(
  i: Base & WithSystem & { wallet: Address; handle: Address; primary: Address },
): Instruction {
  const accounts = { ...i, systemProgram: i.systemProgram ?? SYSTEM_PROGRAM_ADDRESS };
  return build(i.programId, 'set_primary', {}, metas(ACCOUNT_LAYOUTS.set_primary, accounts));
}

export function getSetRecordInstruction(
  i: Base &
    WithSystem & {
      authority: Address;
      handle: Address;
      record: Address;
      kind: 'address' | 'text';
      key: string;
      value: string;
    },
): Instruction {
  const accounts = { ...i, systemProgram: i.systemProgram ?? SYSTEM_PROGRAM_ADDRESS };
  const kind = i.kind === 'address' ? RECORD_KIND_ADDRESS : RECORD_KIND_TEXT;
  return build(
    i.programId,
    'set_record',
    { kind, key: i.key, value: i.value },
    metas(ACCOUNT_LAYOUTS.set_record, accounts),
  );
}

/**
 * `verifier`: the recorded address as a signer (X1/SOL, ed25519), or SYSVAR_INSTRUCTIONS_ADDRESS (ETH/BTC: the
 * secp256k1 precompile instruction in the same transaction carries the proof), which is then not a signer.
 */
export function getVerifyRecordInstruction(
  i: Base & { authority: Address; handle: Address; record: Address; verifier: Address },
): Instruction {
  const accountMetas = metas(ACCOUNT_LAYOUTS.verify_record, i);
  if (i.verifier === SYSVAR_INSTRUCTIONS_ADDRESS) accountMetas[3] = { address: i.verifier, role: READONLY };
  return build(i.programId, 'verify_record', {}, accountMetas);
}

export function getTokenizeInstruction(
  i: Base & { owner: Address; handle: Address; mint: Address; ownerTokenAccount: Address; tokenProgram?: Address },
): Instruction {
  const accounts = { ...i, tokenProgram: i.tokenProgram ?? TOKEN_PROGRAM_ADDRESS };
  return build(i.programId, 'tokenize', {}, metas(ACCOUNT_LAYOUTS.tokenize, accounts));
}

export function getTransferInstruction(i: Base & { owner: Address; handle: Address; newOwner: Address }): Instruction {
  return build(i.programId, 'transfer', { newOwner: i.newOwner }, metas(ACCOUNT_LAYOUTS.transfer, i));
}

export function getAttestInstruction(
  i: Base &
    WithSystem & {
      issuer: Address;
      handle: Address;
      attestation: Address;
      platform: string;
      subject: string;
      expiresAt: number;
    },
): Instruction {
  const accounts = { ...i, systemProgram: i.systemProgram ?? SYSTEM_PROGRAM_ADDRESS };
  const args = { platform: i.platform, subject: i.subject, expiresAt: i.expiresAt };
  return build(i.programId, 'attest', args, metas(ACCOUNT_LAYOUTS.attest, accounts));
}

export function getRevokeAttestationInstruction(i: Base & { issuer: Address; attestation: Address }): Instruction {
  return build(i.programId, 'revoke_attestation', {}, metas(ACCOUNT_LAYOUTS.revoke_attestation, i));
}

export function getCreateNamespaceInstruction(
  i: Base & WithSystem & { authority: Address; namespace: Address; tld: string },
): Instruction {
  const accounts = { ...i, systemProgram: i.systemProgram ?? SYSTEM_PROGRAM_ADDRESS };
  return build(i.programId, 'create_namespace', { tld: i.tld }, metas(ACCOUNT_LAYOUTS.create_namespace, accounts));
}

export function getRegisterUnderNamespaceInstruction(
  i: Base & WithSystem & { payer: Address; owner: Address; namespace: Address; domain: Address; label: string },
): Instruction {
  const accounts = { ...i, systemProgram: i.systemProgram ?? SYSTEM_PROGRAM_ADDRESS };
  return build(
    i.programId,
    'register_under_namespace',
    { label: i.label },
    metas(ACCOUNT_LAYOUTS.register_under_namespace, accounts),
  );
}

/** `mint: null` = native; `handle: null` = not bound. Both "none"s are sent as the program id (Anchor's convention). */
export function getCreateInvoiceInstruction(
  i: Base &
    WithSystem & {
      payee: Address;
      invoice: Address;
      mint: Address | null;
      handle: Address | null;
      id: bigint;
      amount: bigint;
      expiresAt: number;
      memo: string;
    },
): Instruction {
  const accounts = {
    payee: i.payee,
    invoice: i.invoice,
    mint: i.mint ?? i.programId,
    handle: i.handle ?? i.programId,
    systemProgram: i.systemProgram ?? SYSTEM_PROGRAM_ADDRESS,
  };
  const args = { id: i.id, amount: i.amount, expiresAt: i.expiresAt, memo: i.memo, bound: i.handle !== null };
  return build(i.programId, 'create_invoice', args, metas(ACCOUNT_LAYOUTS.create_invoice, accounts));
}

export function getPayInvoiceInstruction(
  i: Base &
    ({ payer: Address; invoice: Address; payee: Address } & (
      | { kind: 'native'; systemProgram?: Address }
      | { kind: 'token'; payerTokenAccount: Address; payeeTokenAccount: Address; mint: Address; tokenProgram?: Address }
    )),
): Instruction {
  if (i.kind === 'native') {
    const accounts = { ...i, systemProgram: i.systemProgram ?? SYSTEM_PROGRAM_ADDRESS };
    return build(i.programId, 'pay_invoice', {}, metas(ACCOUNT_LAYOUTS.pay_invoice, accounts));
  }
  const accounts = { ...i, tokenProgram: i.tokenProgram ?? TOKEN_PROGRAM_ADDRESS };
  return build(i.programId, 'pay_invoice', {}, metas(PAY_INVOICE_TOKEN_LAYOUT, accounts));
}

export function getCancelInvoiceInstruction(i: Base & { payee: Address; invoice: Address }): Instruction {
  return build(i.programId, 'cancel_invoice', {}, metas(ACCOUNT_LAYOUTS.cancel_invoice, i));
}

export function getCloseInvoiceInstruction(i: Base & { payee: Address; invoice: Address }): Instruction {
  return build(i.programId, 'close_invoice', {}, metas(ACCOUNT_LAYOUTS.close_invoice, i));
}

function pick(
  name: string,
  layout: readonly (readonly [string, AccountRole])[],
  accounts: readonly Address[],
): Record<string, Address> {
  if (accounts.length < layout.length) {
    throw new RegistryDecodeError(
      'missing-accounts',
      `${name}: needs ${layout.length} accounts, got ${accounts.length}`,
    );
  }
  return Object.fromEntries(layout.map(([accountName], index) => [accountName, accounts[index]]));
}

/**
 * Decodes a registry instruction from its data and its account addresses in order (extra trailing accounts are
 * ignored, as Anchor does). `programId` turns the "none" placeholder of create_invoice's optional accounts into null.
 * Throws RegistryDecodeError on unknown discriminators, short/extra data, bad values, or too few accounts.
 */
export function decodeRegistryInstruction(
  data: ReadonlyUint8Array,
  accounts: readonly Address[],
  programId?: Address,
): RegistryInstruction {
  if (data.length < 8) throw new RegistryDecodeError('too-short', `instruction data: ${data.length} bytes`);
  const head = data.subarray(0, 8) as Uint8Array;
  const name = (Object.keys(INSTRUCTION_DISCRIMINATORS) as RegistryInstructionName[]).find((n) =>
    bytesEqual(head, INSTRUCTION_DISCRIMINATORS[n]),
  );
  const market = name ? null : decodeMarketInstruction(data, accounts);
  if (market) return market;
  if (!name)
    throw new RegistryDecodeError('unknown-instruction', 'instruction discriminator matches no registry instruction');

  let args: unknown;
  let end: number;
  try {
    [args, end] = (INSTRUCTION_ARG_CODECS[name] as unknown as Codec<unknown>).read(data, 8);
  } catch (err) {
    throw toDecodeError(err, name);
  }
  if (end !== data.length) throw new RegistryDecodeError('trailing-bytes', `${name}: ${data.length - end} extra bytes`);

  if (name === 'pay_invoice') {
    // Native form passes the system program 4th; the token form passes the payer's token account there.
    const native = accounts.length >= 4 && accounts[3] === SYSTEM_PROGRAM_ADDRESS;
    const picked = native
      ? { kind: 'native' as const, ...pick(name, ACCOUNT_LAYOUTS.pay_invoice, accounts) }
      : { kind: 'token' as const, ...pick(name, PAY_INVOICE_TOKEN_LAYOUT, accounts) };
    return { name, args, accounts: picked } as RegistryInstruction;
  }
  const picked = pick(name, ACCOUNT_LAYOUTS[name], accounts);
  if (name === 'create_invoice') {
    // Without programId we cannot tell the placeholder: treat "absent" only when it equals the given program id.
    const none = (a: Address) => (programId !== undefined && a === programId ? null : a);
    return {
      name,
      args,
      accounts: { ...picked, mint: none(picked.mint), handle: none(picked.handle) },
    } as RegistryInstruction;
  }
  return { name, args, accounts: picked } as RegistryInstruction;
}
