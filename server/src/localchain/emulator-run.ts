// What every emulated registry instruction runs with (the registry's own and the market's): the error table,
// the failure type, one instruction's execution context with its account, authority and rent helpers, and the
// handle NFT mint. docs/local-chain.md.
import type { Address, Instruction } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  AuthorityType,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  getSetAuthorityInstruction,
} from '@solana-program/token';
import type { LiteSVM } from 'litesvm';
import { REGISTRY_LAYOUT_ERRORS, SPEC_PROGRAM_ERRORS, type SpecProgramErrorName } from '@sigil/contract/program-errors';
import { decodeHandle, type HandleData } from '../platform/chain/registry';
import { ZERO_ADDRESS } from '../platform/chain/trust-rules';
import { SYSTEM_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { invokeInSvm } from './cpi';
import { restoreAccount, snapshotOf, type Ledger, type ReportedInstruction } from './ledger';
import type { DecodedTransaction } from './processor';
import { readTokenAccount, TOKEN_PROGRAMS } from './tokens';

/** The chain an instruction runs on. */
export interface EmulatorContext {
  readonly svm: LiteSVM;
  readonly ledger: Ledger;
  readonly programId: Address;
}

/** The PDA's bump when `actual` is it; InvalidPda otherwise. */
export async function expectPda(
  actual: Address,
  pda: Promise<readonly [Address, number]>,
  what: string,
): Promise<number> {
  const [expected, bump] = await pda;
  if (expected !== actual) throw fail('InvalidPda', `${what} must be ${expected}`);
  return bump;
}

/**
 * Custom program errors: the spec's codes under the spec's names, and the layout's own rules from 6500 up, both
 * from the contract's catalog (docs/registry-program.md § Errors), so a spec number never means anything else.
 */
export const REGISTRY_ERRORS = {
  ...REGISTRY_LAYOUT_ERRORS,
  ...(Object.fromEntries(
    SPEC_PROGRAM_ERRORS.filter((e) => e.source === 'registry' && e.code !== null).map((e) => [e.name, e.code]),
  ) as Record<Exclude<SpecProgramErrorName, 'FrozenNft' | 'AccountAlreadyInUse' | 'NothingToReclaim'>, number>),
};
export type RegistryErrorName = keyof typeof REGISTRY_ERRORS;

export class RegistryFailure extends Error {
  constructor(
    readonly inner: unknown, // Solana InstructionError inner value: {Custom: n} or a fieldless name
    message: string,
    /** The program's own error: logged as Anchor logs it (`AnchorError occurred. Error Code: … Error Message: …`). */
    readonly anchor: { name: string; code: number; text: string } | null = null,
  ) {
    super(message);
  }
}
export const fail = (name: RegistryErrorName, message: string) =>
  new RegistryFailure({ Custom: REGISTRY_ERRORS[name] }, `${name}: ${message}`, {
    name,
    code: REGISTRY_ERRORS[name],
    text: message,
  });

const MINT_SIZE = 82n;
const UNITS_PER_INSTRUCTION = 5_000n;

/** One instruction's execution: its account flags, rent payer, logs and inner instructions. */
export class InstructionRun {
  readonly logs: string[] = [];
  readonly inner: ReportedInstruction[] = [];
  computeUnits = UNITS_PER_INSTRUCTION;

  constructor(
    readonly emulator: EmulatorContext,
    readonly tx: DecodedTransaction,
    readonly ixIndex: number,
  ) {}

  get svm(): LiteSVM {
    return this.emulator.svm;
  }
  get now(): number {
    return this.emulator.ledger.blockTime(this.emulator.ledger.slot);
  }
  get slot(): bigint {
    return this.emulator.ledger.slot;
  }

  /** The transaction-level index of an account this instruction lists, or -1 when it does not list it. */
  private indexOf(address: Address): number {
    const listed = this.tx.instructions[this.ixIndex]!.accountIndices.find((i) => this.tx.accountKeys[i] === address);
    return listed ?? -1;
  }

  requireSigner(address: Address, what: string): void {
    const i = this.indexOf(address);
    if (i < 0 || !this.tx.isSigner(i)) throw fail('MissingSigner', `${what} ${address} must sign`);
  }

  requireWritable(address: Address, what: string): void {
    const i = this.indexOf(address);
    if (i < 0 || !this.tx.isWritable(i)) throw fail('NotWritable', `${what} ${address} must be writable`);
  }

  read(address: Address) {
    return snapshotOf(this.svm, address);
  }

  loadHandle(address: Address): HandleData {
    return this.load(address, decodeHandle, 'handle');
  }

  async requireAuthority(handle: HandleData, signer: Address): Promise<void> {
    this.requireSigner(signer, 'authority');
    const authority = await this.authorityOf(handle);
    if (authority !== signer) throw fail('NotAuthority', `${signer} has no authority over @${handle.name}`);
  }

  /** A program account decoded, or AccountNotFound. */
  load<T>(address: Address, decode: (a: Address, d: Uint8Array) => T, what: string): T {
    const account = this.read(address);
    if (!account || account.owner !== this.emulator.programId)
      throw fail('AccountNotFound', `${what} ${address} does not exist`);
    return decode(address, account.data);
  }

  /** Program-owned account: create or resize it, topping up rent from `payer` (refunding on shrink). */
  writeProgramAccount(address: Address, data: Uint8Array, payer: Address): void {
    this.requireWritable(address, 'account');
    const current = this.read(address);
    if (current && current.owner !== this.emulator.programId)
      throw fail('AlreadyExists', `${address} is owned by ${current.owner}`);
    const rent = this.svm.minimumBalanceForRentExemption(BigInt(data.length));
    const lamports = current?.lamports ?? 0n;
    if (lamports < rent) this.moveLamports(payer, address, rent - lamports);
    const after = this.read(address);
    restoreAccount(this.svm, address, {
      lamports: after?.lamports ?? rent,
      owner: this.emulator.programId,
      data,
      executable: false,
    });
  }

  /** Lamports between accounts the program may debit (payer signs) — a System transfer CPI when the source is a wallet. */
  moveLamports(from: Address, to: Address, amount: bigint): void {
    // The transaction's fee payer is a writable signer of the whole transaction: rent the emulator takes from it
    // (docs/local-chain.md "Rent") needs no listing in the instruction, so it may sponsor another signer's accounts.
    // Any other source must be listed by the instruction, writable and (unless the program owns it) signing.
    const feePayer = from === this.tx.accountKeys[0];
    if (!feePayer) this.requireWritable(from, 'payer');
    const source = this.read(from);
    if (!source || source.lamports < amount) throw fail('InsufficientFunds', `${from} cannot pay ${amount} lamports`);
    if (source.owner === this.emulator.programId) {
      // The program debits its own accounts directly (no CPI), as a real program does.
      const dest = this.read(to);
      restoreAccount(this.svm, from, { ...source, lamports: source.lamports - amount });
      restoreAccount(
        this.svm,
        to,
        dest
          ? { ...dest, lamports: dest.lamports + amount }
          : { lamports: amount, owner: SYSTEM_PROGRAM_ADDRESS, data: new Uint8Array(), executable: false },
      );
      return;
    }
    if (!feePayer) this.requireSigner(from, 'payer');
    const target = this.read(to);
    if (!target) {
      // A new PDA: the runtime would let the program create it with invoke_signed; credit it directly.
      restoreAccount(this.svm, from, { ...source, lamports: source.lamports - amount });
      restoreAccount(this.svm, to, {
        lamports: amount,
        owner: SYSTEM_PROGRAM_ADDRESS,
        data: new Uint8Array(),
        executable: false,
      });
      return;
    }
    this.cpi([getTransferSolInstruction({ source: signerStub(from), destination: to, amount })]);
  }

  /** Executes instructions for real in LiteSVM as CPIs of this instruction. */
  cpi(instructions: Instruction[]): void {
    const result = invokeInSvm(this.svm, this.tx.accountKeys[0]!, instructions, this.tx.accountKeys, 2);
    this.logs.push(...result.logs);
    this.inner.push(...result.inner);
    this.computeUnits += result.computeUnits;
    if (result.error !== null) throw new RegistryFailure(result.error, `CPI failed: ${JSON.stringify(result.error)}`);
  }

  /** The wallet controlling the handle now: owner, or the holder of its NFT in the holder's associated token account. */
  async authorityOf(handle: HandleData): Promise<Address | null> {
    if (!handle.tokenized) return handle.owner === ZERO_ADDRESS ? null : handle.owner;
    if (!handle.mint) return null;
    for (const program of TOKEN_PROGRAMS) {
      for (const { address, account } of this.emulator.ledger.accountsOwnedBy(program, 'processed')) {
        const token = readTokenAccount(account);
        if (!token || token.mint !== handle.mint || token.amount === 0n) continue;
        const [ata] = await findAssociatedTokenPda({ owner: token.owner, mint: token.mint, tokenProgram: program });
        return ata === address ? token.owner : null;
      }
    }
    return null;
  }
}

/**
 * A handle NFT: a 0-decimal mint, one token to the holder's ATA, then minting disabled for good. Rent for the mint
 * and the ATA comes from the fee payer (the only account sure to be writable).
 */
export function mintHandleNft(
  run: InstructionRun,
  { holder, mint, ata, tokenProgram }: { holder: Address; mint: Address; ata: Address; tokenProgram: Address },
): void {
  const holderSigner = signerStub(holder);
  const rentPayer = signerStub(run.tx.accountKeys[0]!);
  run.cpi([
    getCreateAccountInstruction({
      payer: rentPayer,
      newAccount: signerStub(mint),
      lamports: run.svm.minimumBalanceForRentExemption(MINT_SIZE),
      space: MINT_SIZE,
      programAddress: tokenProgram,
    }),
    getInitializeMint2Instruction(
      { mint, decimals: 0, mintAuthority: holder, freezeAuthority: null },
      { programAddress: tokenProgram },
    ),
    getCreateAssociatedTokenIdempotentInstruction({ payer: rentPayer, ata, owner: holder, mint, tokenProgram }),
    getMintToInstruction(
      { mint, token: ata, mintAuthority: holderSigner, amount: 1n },
      { programAddress: tokenProgram },
    ),
    getSetAuthorityInstruction(
      { owned: mint, owner: holderSigner, authorityType: AuthorityType.MintTokens, newAuthority: null },
      { programAddress: tokenProgram },
    ),
  ]);
}

/** kit's instruction builders want a signer object for signer accounts; the signature is already verified. */
export function signerStub(address: Address) {
  return { address, signTransactions: async () => [] } as never;
}
