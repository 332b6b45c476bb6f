// A TypeScript stand-in for the registry program (its binary does not exist): applies each registry instruction's
// effect on accounts with the layouts of server/src/platform/chain/registry (the same codecs the service decodes),
// and runs the program's CPIs (lamport / token movements, the handle NFT) for real through LiteSVM.
// Signatures were verified by the processor before we run; here we enforce signer/writable flags, PDAs, authority
// and state rules, and fail with Anchor-style custom error codes (REGISTRY_ERRORS).
import { AccountRole, type Address, type Instruction } from '@solana/kit';
import { getTransferSolInstruction, getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  getSetAuthorityInstruction,
  getTransferCheckedInstruction,
  AuthorityType,
} from '@solana-program/token';
import type { LiteSVM } from 'litesvm';
import { matchesHandleGrammar, normalizeName, parseDomain } from '@sigil/contract/names';
import {
  decodeAttestation,
  decodeHandle,
  decodeInvoice,
  decodeNamespace,
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
  findDomainPda,
  findHandlePda,
  findInvoicePda,
  findNamespacePda,
  findPrimaryPointerPda,
  findRecordPda,
  ADDRESS_RECORD_KEYS,
  HANDLE_TYPE_AGENT,
  INVOICE_STATUS,
  RECORD_VALUE_MAX_BYTES,
  RegistryDecodeError,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TEXT_RECORD_KEY_PATTERN,
  type HandleData,
  type RegistryInstruction,
} from '../platform/chain/registry';
import { ZERO_ADDRESS } from '../platform/chain/trust-rules';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, SYSTEM_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { invokeInSvm } from './cpi';
import { restoreAccount, snapshotOf, type Ledger, type ReportedInstruction } from './ledger';
import type { DecodedTransaction, ExecutionOutcome, ProgramEmulator } from './processor';
import { readMintDecimals, readTokenAccount, TOKEN_PROGRAMS } from './tokens';
import { verifySecp256k1Proof } from './secp256k1';

/** Custom program errors (Anchor numbering starts at 6000). Documented in docs/local-chain.md. */
export const REGISTRY_ERRORS = {
  InvalidName: 6000,
  AlreadyRegistered: 6001,
  AccountNotFound: 6002,
  NotAuthority: 6003,
  InvalidPda: 6004,
  AlreadyTokenized: 6005,
  HandleTypeImmutable: 6006,
  InvalidRecord: 6007,
  VerificationFailed: 6008,
  NamespaceInactive: 6009,
  AlreadyExists: 6010,
  InvoiceNotOpen: 6011,
  InvoiceExpired: 6012,
  WrongMint: 6013,
  WrongPayee: 6014,
  InvalidAmount: 6015,
  MissingSigner: 6016,
  NotWritable: 6017,
  TokenizedHandle: 6018,
  InsufficientFunds: 6019,
  InvalidTokenAccount: 6020,
} as const;
export type RegistryErrorName = keyof typeof REGISTRY_ERRORS;

class RegistryFailure extends Error {
  constructor(
    readonly inner: unknown, // Solana InstructionError inner value: {Custom: n} or a fieldless name
    message: string,
    readonly cpiLogs: string[] = [],
  ) {
    super(message);
  }
}
const fail = (name: RegistryErrorName, message: string) =>
  new RegistryFailure({ Custom: REGISTRY_ERRORS[name] }, `${name}: ${message}`);

const ED25519_CHAINS = ['X1', 'SOL'];
const MAX_MEMO_BYTES = 256;
const MINT_SIZE = 82n;
const UNITS_PER_INSTRUCTION = 5_000n;
const byteLength = (s: string) => new TextEncoder().encode(s).length;

function pascal(name: string): string {
  return name.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

/** One instruction's execution: its account flags, rent payer, logs and inner instructions. */
class InstructionRun {
  readonly logs: string[] = [];
  readonly inner: ReportedInstruction[] = [];
  computeUnits = UNITS_PER_INSTRUCTION;

  constructor(
    readonly emulator: RegistryEmulator,
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
    this.requireWritable(from, 'payer');
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
    this.requireSigner(from, 'payer');
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

/** kit's instruction builders want a signer object for signer accounts; the signature is already verified. */
function signerStub(address: Address) {
  return { address, signTransactions: async () => [] } as never;
}

export class RegistryEmulator implements ProgramEmulator {
  constructor(
    readonly svm: LiteSVM,
    readonly ledger: Ledger,
    readonly programId: Address,
  ) {}

  async execute(tx: DecodedTransaction): Promise<ExecutionOutcome> {
    const logs: string[] = [];
    const innerInstructions: ExecutionOutcome['innerInstructions'] = [];
    let computeUnits = 0n;
    for (let index = 0; index < tx.instructions.length; index++) {
      const ix = tx.instructions[index]!;
      if (ix.programId === COMPUTE_BUDGET_PROGRAM_ADDRESS) {
        // Compute-budget instructions only shape the fee, which the processor has charged already.
        logs.push(`Program ${ix.programId} invoke [1]`, `Program ${ix.programId} success`);
        continue;
      }
      if (ix.programId !== this.programId) {
        const accounts = ix.accountIndices.map((i) => ({
          address: tx.accountKeys[i]!,
          role: tx.isSigner(i)
            ? tx.isWritable(i)
              ? AccountRole.WRITABLE_SIGNER
              : AccountRole.READONLY_SIGNER
            : tx.isWritable(i)
              ? AccountRole.WRITABLE
              : AccountRole.READONLY,
        }));
        const result = invokeInSvm(
          this.svm,
          tx.accountKeys[0]!,
          [{ programAddress: ix.programId, accounts, data: ix.data }],
          tx.accountKeys,
          1,
        );
        logs.push(...result.logs);
        if (result.inner.length > 0) innerInstructions.push({ index, instructions: result.inner });
        computeUnits += result.computeUnits;
        if (result.error !== null)
          return { err: { InstructionError: [index, result.error] }, logs, innerInstructions, computeUnits };
        continue;
      }

      const run = new InstructionRun(this, tx, index);
      logs.push(`Program ${this.programId} invoke [1]`);
      try {
        let decoded: RegistryInstruction;
        try {
          decoded = decodeRegistryInstruction(
            ix.data,
            ix.accountIndices.map((i) => tx.accountKeys[i]!),
            this.programId,
          );
        } catch (err) {
          if (err instanceof RegistryDecodeError) {
            const inner = err.reason === 'missing-accounts' ? 'NotEnoughAccountKeys' : 'InvalidInstructionData';
            throw new RegistryFailure(inner, err.message);
          }
          throw err;
        }
        logs.push(`Program log: Instruction: ${pascal(decoded.name)}`);
        await this.apply(run, decoded);
        logs.push(...run.logs);
        logs.push(
          `Program ${this.programId} consumed ${run.computeUnits} of 200000 compute units`,
          `Program ${this.programId} success`,
        );
        computeUnits += run.computeUnits;
        if (run.inner.length > 0) innerInstructions.push({ index, instructions: run.inner });
      } catch (err) {
        if (!(err instanceof RegistryFailure)) throw err;
        logs.push(...run.logs);
        if (typeof err.inner === 'object')
          logs.push(`Program log: AnchorError occurred. Error Message: ${err.message}.`);
        logs.push(
          `Program ${this.programId} consumed ${run.computeUnits} of 200000 compute units`,
          `Program ${this.programId} failed: ${describeInner(err.inner)}`,
        );
        computeUnits += run.computeUnits;
        return { err: { InstructionError: [index, err.inner] }, logs, innerInstructions, computeUnits };
      }
    }
    return { err: null, logs, innerInstructions, computeUnits };
  }

  private async expectPda(actual: Address, pda: Promise<readonly [Address, number]>, what: string): Promise<number> {
    const [expected, bump] = await pda;
    if (expected !== actual) throw fail('InvalidPda', `${what} must be ${expected}`);
    return bump;
  }

  private loadHandle(run: InstructionRun, address: Address): HandleData {
    const account = run.read(address);
    if (!account || account.owner !== this.programId) throw fail('AccountNotFound', `handle ${address} does not exist`);
    return decodeHandle(address, account.data);
  }

  private async requireAuthority(run: InstructionRun, handle: HandleData, signer: Address): Promise<void> {
    run.requireSigner(signer, 'authority');
    const authority = await run.authorityOf(handle);
    if (authority !== signer) throw fail('NotAuthority', `${signer} has no authority over @${handle.name}`);
  }

  private load<T>(run: InstructionRun, address: Address, decode: (a: Address, d: Uint8Array) => T, what: string): T {
    const account = run.read(address);
    if (!account || account.owner !== this.programId)
      throw fail('AccountNotFound', `${what} ${address} does not exist`);
    return decode(address, account.data);
  }

  private async apply(run: InstructionRun, ix: RegistryInstruction): Promise<void> {
    const { programId } = this;
    const feePayer = run.tx.accountKeys[0]!;
    switch (ix.name) {
      case 'register': {
        const { payer, owner, handle } = ix.accounts;
        const { name, handleType } = ix.args;
        if (normalizeName(name).name !== name || name.startsWith('@') || !matchesHandleGrammar(name)) {
          throw fail('InvalidName', `"${name}" is not a normalized handle`);
        }
        run.requireSigner(payer, 'payer');
        run.requireSigner(owner, 'owner');
        const bump = await this.expectPda(handle, findHandlePda(programId, name), 'handle');
        const existing = run.read(handle);
        let registrationEpoch = 1n;
        if (existing) {
          const previous = decodeHandle(handle, existing.data);
          if (previous.owner !== ZERO_ADDRESS) throw fail('AlreadyRegistered', `@${name} is registered`);
          if (previous.handleType === HANDLE_TYPE_AGENT && handleType !== HANDLE_TYPE_AGENT) {
            throw fail('HandleTypeImmutable', `@${name} is an Agent handle`);
          }
          registrationEpoch = previous.registrationEpoch + 1n;
        }
        const data = encodeHandle({
          owner,
          handleType,
          tokenized: false,
          mint: null,
          registrationEpoch,
          registeredAt: run.now,
          registeredSlot: run.slot,
          bump,
          name,
        });
        run.writeProgramAccount(handle, data, payer);
        run.logs.push(`Program log: registered @${name} epoch ${registrationEpoch}`);
        return;
      }
      case 'release': {
        const { owner, handle } = ix.accounts;
        const data = this.loadHandle(run, handle);
        await this.requireAuthority(run, data, owner);
        run.writeProgramAccount(
          handle,
          encodeHandle({ ...data, owner: ZERO_ADDRESS, tokenized: false, mint: null }),
          feePayer,
        );
        return;
      }
      case 'set_primary': {
        const { wallet, handle, primary } = ix.accounts;
        const data = this.loadHandle(run, handle);
        await this.requireAuthority(run, data, wallet);
        const bump = await this.expectPda(primary, findPrimaryPointerPda(programId, wallet), 'primary');
        run.writeProgramAccount(
          primary,
          encodePrimaryPointer({
            wallet,
            handle,
            handleEpoch: data.registrationEpoch,
            setAt: run.now,
            setSlot: run.slot,
            bump,
          }),
          feePayer,
        );
        return;
      }
      case 'set_record': {
        const { authority, handle, record } = ix.accounts;
        const { kind, key, value } = ix.args;
        const data = this.loadHandle(run, handle);
        await this.requireAuthority(run, data, authority);
        const kindName = kind === 0 ? 'address' : 'text';
        if (kindName === 'address' ? !ADDRESS_RECORD_KEYS.includes(key) : !TEXT_RECORD_KEY_PATTERN.test(key)) {
          throw fail('InvalidRecord', `bad ${kindName} record key "${key}"`);
        }
        if (byteLength(value) === 0 || byteLength(value) > RECORD_VALUE_MAX_BYTES)
          throw fail('InvalidRecord', 'value must be 1..512 bytes');
        const bump = await this.expectPda(record, findRecordPda(programId, handle, kindName, key), 'record');
        run.writeProgramAccount(
          record,
          encodeRecord({
            handle,
            kind: kindName,
            key,
            value,
            authority,
            handleEpoch: data.registrationEpoch,
            verified: false,
            verifiedAt: 0,
            updatedAt: run.now,
            updatedSlot: run.slot,
            bump,
          }),
          feePayer,
        );
        return;
      }
      case 'verify_record': {
        const { authority, handle, record, verifier } = ix.accounts;
        const data = this.loadHandle(run, handle);
        await this.requireAuthority(run, data, authority);
        const rec = this.load(run, record, decodeRecord, 'record');
        if (rec.handle !== handle || rec.kind !== 'address')
          throw fail('InvalidRecord', 'not an address record of this handle');
        if (ED25519_CHAINS.includes(rec.key)) {
          // The recorded address itself signs this transaction (ed25519, verified by the processor).
          if (verifier !== rec.value)
            throw fail('VerificationFailed', `verifier must be the recorded address ${rec.value}`);
          run.requireSigner(verifier, 'verifier');
        } else {
          if (verifier !== SYSVAR_INSTRUCTIONS_ADDRESS)
            throw fail('VerificationFailed', 'ETH/BTC proofs are read from the instructions sysvar');
          if (!verifySecp256k1Proof(run.tx, rec.key, rec.value, record)) {
            throw fail('VerificationFailed', `no valid secp256k1 proof by ${rec.value} in this transaction`);
          }
        }
        run.writeProgramAccount(
          record,
          encodeRecord({ ...rec, verified: true, verifiedAt: run.now, updatedSlot: run.slot }),
          feePayer,
        );
        return;
      }
      case 'tokenize': {
        const { owner, handle, mint, ownerTokenAccount, tokenProgram } = ix.accounts;
        const data = this.loadHandle(run, handle);
        if (data.tokenized) throw fail('AlreadyTokenized', `@${data.name} is already tokenized`);
        await this.requireAuthority(run, data, owner);
        run.requireSigner(mint, 'mint');
        if (!TOKEN_PROGRAMS.includes(tokenProgram))
          throw fail('InvalidTokenAccount', `${tokenProgram} is not a token program`);
        const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
        if (ata !== ownerTokenAccount)
          throw fail('InvalidTokenAccount', `owner token account must be the associated token account ${ata}`);
        // The NFT: a 0-decimal mint, one token to the owner's ATA, then minting disabled for good.
        // Rent for the mint and the ATA comes from the fee payer (the only account sure to be writable).
        const ownerSigner = signerStub(owner);
        const rentPayer = signerStub(feePayer);
        run.cpi([
          getCreateAccountInstruction({
            payer: rentPayer,
            newAccount: signerStub(mint),
            lamports: this.svm.minimumBalanceForRentExemption(MINT_SIZE),
            space: MINT_SIZE,
            programAddress: tokenProgram,
          }),
          getInitializeMint2Instruction(
            { mint, decimals: 0, mintAuthority: owner, freezeAuthority: null },
            { programAddress: tokenProgram },
          ),
          getCreateAssociatedTokenIdempotentInstruction({ payer: rentPayer, ata, owner, mint, tokenProgram }),
          getMintToInstruction(
            { mint, token: ata, mintAuthority: ownerSigner, amount: 1n },
            { programAddress: tokenProgram },
          ),
          getSetAuthorityInstruction(
            { owned: mint, owner: ownerSigner, authorityType: AuthorityType.MintTokens, newAuthority: null },
            { programAddress: tokenProgram },
          ),
        ]);
        run.writeProgramAccount(handle, encodeHandle({ ...data, tokenized: true, mint }), feePayer);
        return;
      }
      case 'transfer': {
        const { owner, handle } = ix.accounts;
        const data = this.loadHandle(run, handle);
        if (data.tokenized) throw fail('TokenizedHandle', `@${data.name} is tokenized: transfer the NFT instead`);
        await this.requireAuthority(run, data, owner);
        run.writeProgramAccount(handle, encodeHandle({ ...data, owner: ix.args.newOwner }), feePayer);
        return;
      }
      case 'attest': {
        const { issuer, handle, attestation } = ix.accounts;
        const { platform, subject, expiresAt } = ix.args;
        run.requireSigner(issuer, 'issuer');
        this.loadHandle(run, handle);
        if (!/^[a-z0-9_-]{1,32}$/.test(platform)) throw fail('InvalidRecord', `bad platform slug "${platform}"`);
        if (byteLength(subject) === 0 || byteLength(subject) > 128)
          throw fail('InvalidRecord', 'subject must be 1..128 bytes');
        const bump = await this.expectPda(attestation, findAttestationPda(programId, handle, platform), 'attestation');
        const existing = run.read(attestation);
        if (existing && decodeAttestation(attestation, existing.data).issuer !== issuer) {
          throw fail('NotAuthority', 'only the original issuer may re-issue this attestation');
        }
        run.writeProgramAccount(
          attestation,
          encodeAttestation({ handle, issuer, issuedAt: run.now, expiresAt, revoked: false, bump, platform, subject }),
          feePayer,
        );
        return;
      }
      case 'revoke_attestation': {
        const { issuer, attestation } = ix.accounts;
        run.requireSigner(issuer, 'issuer');
        const data = this.load(run, attestation, decodeAttestation, 'attestation');
        if (data.issuer !== issuer) throw fail('NotAuthority', 'only the issuer may revoke');
        run.writeProgramAccount(attestation, encodeAttestation({ ...data, revoked: true }), feePayer);
        return;
      }
      case 'create_namespace': {
        const { authority, namespace } = ix.accounts;
        const { tld } = ix.args;
        run.requireSigner(authority, 'authority');
        if (!/^[a-z0-9]{1,16}$/.test(tld)) throw fail('InvalidName', `bad tld "${tld}"`);
        const bump = await this.expectPda(namespace, findNamespacePda(programId, tld), 'namespace');
        if (run.read(namespace)) throw fail('AlreadyExists', `namespace .${tld} exists`);
        run.writeProgramAccount(
          namespace,
          encodeNamespace({ authority, active: true, createdAt: run.now, bump, tld }),
          feePayer,
        );
        return;
      }
      case 'register_under_namespace': {
        const { payer, owner, namespace, domain } = ix.accounts;
        const { label } = ix.args;
        run.requireSigner(payer, 'payer');
        run.requireSigner(owner, 'owner');
        const ns = this.load(run, namespace, decodeNamespace, 'namespace');
        if (!ns.active) throw fail('NamespaceInactive', `.${ns.tld} is not active`);
        if (!parseDomain(`${label}.${ns.tld}`, [ns.tld]))
          throw fail('InvalidName', `"${label}.${ns.tld}" is not a valid domain`);
        const bump = await this.expectPda(domain, findDomainPda(programId, namespace, label), 'domain');
        if (run.read(domain)) throw fail('AlreadyRegistered', `${label}.${ns.tld} is registered`);
        run.writeProgramAccount(
          domain,
          encodeDomain({
            namespace,
            owner,
            tokenized: false,
            mint: null,
            registeredAt: run.now,
            registeredSlot: run.slot,
            bump,
            label,
            tld: ns.tld,
          }),
          payer,
        );
        return;
      }
      case 'create_invoice': {
        const { payee, invoice, mint, handle } = ix.accounts;
        const { id, amount, expiresAt, memo, bound } = ix.args;
        run.requireSigner(payee, 'payee');
        if (amount <= 0n) throw fail('InvalidAmount', 'amount must be positive');
        if (byteLength(memo) > MAX_MEMO_BYTES) throw fail('InvalidRecord', 'memo is longer than 256 bytes');
        if (bound !== (handle !== null)) throw fail('InvalidRecord', '`bound` must match the handle account');
        if (mint !== null && readMintDecimals(run.read(mint)) === null)
          throw fail('WrongMint', `${mint} is not a mint`);
        if (handle !== null) {
          const data = this.loadHandle(run, handle);
          if ((await run.authorityOf(data)) !== payee)
            throw fail('NotAuthority', `payee does not control @${data.name}`);
        }
        const bump = await this.expectPda(invoice, findInvoicePda(programId, payee, id), 'invoice');
        if (run.read(invoice)) throw fail('AlreadyExists', `invoice ${id} exists`);
        run.writeProgramAccount(
          invoice,
          encodeInvoice({
            payee,
            paidBy: null,
            mint,
            amount,
            fee: 0n,
            expiresAt,
            status: INVOICE_STATUS.open,
            boundHandle: handle,
            createdAt: run.now,
            createdSlot: run.slot,
            paidAt: 0,
            id,
            bump,
            memo,
          }),
          payee,
        );
        return;
      }
      case 'pay_invoice': {
        const accounts = ix.accounts;
        run.requireSigner(accounts.payer, 'payer');
        const data = this.load(run, accounts.invoice, decodeInvoice, 'invoice');
        if (data.status !== INVOICE_STATUS.open)
          throw fail('InvoiceNotOpen', `invoice is ${data.status === 1 ? 'paid' : 'cancelled'}`);
        if (data.expiresAt > 0 && run.now >= data.expiresAt) throw fail('InvoiceExpired', 'invoice has expired');
        if (accounts.payee !== data.payee) throw fail('WrongPayee', `payee must be ${data.payee}`);
        if (accounts.kind === 'native') {
          if (data.mint !== null) throw fail('WrongMint', `invoice is payable in ${data.mint}`);
          run.requireWritable(accounts.payee, 'payee');
          run.cpi([
            getTransferSolInstruction({
              source: signerStub(accounts.payer),
              destination: accounts.payee,
              amount: data.amount,
            }),
          ]);
        } else {
          if (data.mint !== accounts.mint) throw fail('WrongMint', `invoice is payable in ${data.mint ?? 'native'}`);
          const payeeToken = readTokenAccount(run.read(accounts.payeeTokenAccount));
          if (!payeeToken || payeeToken.owner !== data.payee || payeeToken.mint !== data.mint) {
            throw fail('InvalidTokenAccount', "payee token account must be the payee's account for the invoice mint");
          }
          const decimals = readMintDecimals(run.read(accounts.mint)) ?? 0;
          run.cpi([
            getTransferCheckedInstruction(
              {
                source: accounts.payerTokenAccount,
                mint: accounts.mint,
                destination: accounts.payeeTokenAccount,
                authority: signerStub(accounts.payer),
                amount: data.amount,
                decimals,
              },
              { programAddress: accounts.tokenProgram },
            ),
          ]);
        }
        run.writeProgramAccount(
          accounts.invoice,
          encodeInvoice({ ...data, status: INVOICE_STATUS.paid, paidBy: accounts.payer, paidAt: run.now }),
          feePayer,
        );
        return;
      }
      case 'cancel_invoice': {
        const { payee, invoice } = ix.accounts;
        run.requireSigner(payee, 'payee');
        const data = this.load(run, invoice, decodeInvoice, 'invoice');
        if (data.payee !== payee) throw fail('WrongPayee', 'only the payee may cancel');
        if (data.status !== INVOICE_STATUS.open) throw fail('InvoiceNotOpen', 'only open invoices can be cancelled');
        run.writeProgramAccount(invoice, encodeInvoice({ ...data, status: INVOICE_STATUS.cancelled }), feePayer);
        return;
      }
      case 'close_invoice': {
        const { payee, invoice } = ix.accounts;
        run.requireSigner(payee, 'payee');
        run.requireWritable(payee, 'payee');
        run.requireWritable(invoice, 'invoice');
        const data = this.load(run, invoice, decodeInvoice, 'invoice');
        if (data.payee !== payee) throw fail('WrongPayee', 'only the payee may close');
        const account = run.read(invoice)!;
        const dest = run.read(payee)!;
        restoreAccount(this.svm, payee, { ...dest, lamports: dest.lamports + account.lamports });
        restoreAccount(this.svm, invoice, null);
        return;
      }
    }
  }
}

function describeInner(inner: unknown): string {
  if (typeof inner === 'object' && inner !== null && 'Custom' in inner) {
    return `custom program error: 0x${(inner as { Custom: number }).Custom.toString(16)}`;
  }
  return String(inner);
}
