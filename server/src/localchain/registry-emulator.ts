// A TypeScript stand-in for the registry program (its binary does not exist): applies each registry instruction's
// effect on accounts with the layouts of server/src/platform/chain/registry (the same codecs the service decodes),
// and runs the program's CPIs (lamport / token movements, the handle NFT) for real through LiteSVM.
// Signatures were verified by the processor before we run; here we enforce signer/writable flags, PDAs, authority
// and state rules, and fail with Anchor-style custom error codes (REGISTRY_ERRORS). Each instruction's rules are
// one row of registry-apply/table.ts (the market's: market-apply/table.ts).
import { AccountRole, type Address } from '@solana/kit';
import type { LiteSVM } from 'litesvm';
import { decodeRegistryInstruction, RegistryDecodeError, type RegistryInstruction } from '../platform/chain/registry';
import { dispatchInstruction } from '../platform/chain/registry/instruction-table';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { invokeInSvm } from './cpi';
import type { Ledger } from './ledger';
import type { DecodedTransaction, ExecutionOutcome, ProgramEmulator } from './processor';
import { applyMarketInstruction, screenFrozenNftSend } from './market-emulator';
import { InstructionRun, RegistryFailure, type EmulatorContext } from './emulator-run';
import { REGISTRY_APPLIERS } from './registry-apply/table';

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

  /** A transaction without registry instructions that must still be refused: a plain send of a listed NFT. */
  screen(tx: DecodedTransaction): ExecutionOutcome | null {
    return screenFrozenNftSend(this, tx);
  }

  /** The instruction's row: the registry's own table, or the market's (its instructions carry `remaining`). */
  private async apply(run: InstructionRun, ix: RegistryInstruction): Promise<void> {
    if ('remaining' in ix) return applyMarketInstruction(this, run, ix);
    return dispatchInstruction(REGISTRY_APPLIERS, ix, this, run);
  }
}

function describeInner(inner: unknown): string {
  if (typeof inner === 'object' && inner !== null && 'Custom' in inner) {
    return `custom program error: 0x${(inner as { Custom: number }).Custom.toString(16)}`;
  }
  return String(inner);
}
