// A TypeScript stand-in for the registry program (its binary does not exist): applies each registry instruction's
// effect on accounts with the layouts of server/src/platform/chain/registry (the same codecs the service decodes),
// and runs the program's CPIs (lamport / token movements, the handle NFT) for real through LiteSVM.
// Signatures were verified by the processor before we run; here we enforce signer/writable flags, PDAs, authority
// and state rules, and fail with Anchor-style custom error codes (REGISTRY_ERRORS).
import { AccountRole, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getTransferCheckedInstruction } from '@solana-program/token';
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
  MARKET_PDAS,
  RECORD_VALUE_MAX_BYTES,
  RegistryDecodeError,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TEXT_RECORD_KEY_PATTERN,
  type HandleData,
  type RegistryInstruction,
} from '../platform/chain/registry';
import { ZERO_ADDRESS } from '../platform/chain/trust-rules';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { invokeInSvm } from './cpi';
import { restoreAccount, type Ledger } from './ledger';
import type { DecodedTransaction, ExecutionOutcome, ProgramEmulator } from './processor';
import { readMintDecimals, readTokenAccount, TOKEN_PROGRAMS } from './tokens';
import { verifySecp256k1Proof } from './secp256k1';
import { applyMarketInstruction, refuseWhileBidStands, screenFrozenNftSend } from './market-emulator';
import {
  expectPda,
  fail,
  InstructionRun,
  mintHandleNft,
  RegistryFailure,
  signerStub,
  type EmulatorContext,
} from './emulator-run';

const ED25519_CHAINS = ['X1', 'SOL'];
const MAX_MEMO_BYTES = 256;
const byteLength = (s: string) => new TextEncoder().encode(s).length;

function pascal(name: string): string {
  return name.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

export class RegistryEmulator implements ProgramEmulator, EmulatorContext {
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
        if (err.anchor) {
          const { name, code, text } = err.anchor;
          logs.push(
            `Program log: AnchorError occurred. Error Code: ${name}. Error Number: ${code}. Error Message: ${text}.`,
          );
        }
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

  private expectPda(actual: Address, pda: Promise<readonly [Address, number]>, what: string): Promise<number> {
    return expectPda(actual, pda, what);
  }

  private loadHandle(run: InstructionRun, address: Address): HandleData {
    return run.loadHandle(address);
  }

  private requireAuthority(run: InstructionRun, handle: HandleData, signer: Address): Promise<void> {
    return run.requireAuthority(handle, signer);
  }

  private load<T>(run: InstructionRun, address: Address, decode: (a: Address, d: Uint8Array) => T, what: string): T {
    return run.load(address, decode, what);
  }

  /** A transaction without registry instructions that must still be refused: a plain send of a listed NFT. */
  screen(tx: DecodedTransaction): ExecutionOutcome | null {
    return screenFrozenNftSend(this, tx);
  }

  private async apply(run: InstructionRun, ix: RegistryInstruction): Promise<void> {
    const { programId } = this;
    const feePayer = run.tx.accountKeys[0]!;
    if ('remaining' in ix) return applyMarketInstruction(this, run, ix);
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
        await refuseWhileBidStands(this, run, handle);
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
        mintHandleNft(run, { holder: owner, mint, ata, tokenProgram });
        run.writeProgramAccount(handle, encodeHandle({ ...data, tokenized: true, mint }), feePayer);
        return;
      }
      case 'transfer': {
        const { owner, handle } = ix.accounts;
        const data = this.loadHandle(run, handle);
        if (data.tokenized) throw fail('HandleIsTokenized', `@${data.name} is tokenized: transfer the NFT instead`);
        await this.requireAuthority(run, data, owner);
        await refuseWhileBidStands(this, run, handle);
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
        // A creator-priced namespace takes register_under_namespace_v2 (the program finds its pricing PDA).
        const [pricing] = await MARKET_PDAS.namespacePricing(programId, namespace);
        if (run.read(pricing)?.owner === programId)
          throw fail('NamespacePricingRequiresV2', `.${ns.tld} is creator-priced: use register_under_namespace_v2`);
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
