// What the prepare_* tools share: an instruction as JSON an agent can read, an unsigned transaction (base64 wire
// bytes, every signature slot zeroed) with a fresh blockhash, wallet checks and chain-failure codes. The tools hold
// no keys: they build, the agent's wallet signs and sends.
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  isSignerRole,
  isWritableRole,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
} from '@solana/kit';
import { z } from 'zod';
import { isBase58Address, parseHandle } from '@sigil/contract/names';
import { decodeProgramError } from '@sigil/contract/program-errors';
import { ChainError, type ChainReader } from '../../platform/chain/types';

const ROLE_NAMES = {
  [AccountRole.READONLY]: 'readonly',
  [AccountRole.WRITABLE]: 'writable',
  [AccountRole.READONLY_SIGNER]: 'readonly-signer',
  [AccountRole.WRITABLE_SIGNER]: 'writable-signer',
} as const;

export const instructionSchema = z.object({
  programAddress: z.string(),
  accounts: z.array(
    z.object({
      address: z.string(),
      /** The account's name in the program's layout (docs/registry-program.md), when known. */
      name: z.string().optional(),
      role: z.enum(['readonly', 'writable', 'readonly-signer', 'writable-signer']),
      signer: z.boolean(),
      writable: z.boolean(),
    }),
  ),
  /** The instruction data, base64. */
  data: z.string(),
});
export type InstructionJson = z.infer<typeof instructionSchema>;

export const unsignedTransactionSchema = z.object({
  /** The wire transaction, base64, with one zeroed 64-byte slot per required signature. */
  base64: z.string(),
  version: z.literal(0),
  feePayer: z.string(),
  /** The wallets that must sign, in signature-slot order (the fee payer first). */
  signers: z.array(z.string()),
  blockhash: z.string(),
  /** The transaction expires after this block height (about 60-90 s): prepare again if it did. */
  lastValidBlockHeight: z.string(),
});
export type UnsignedTransactionJson = z.infer<typeof unsignedTransactionSchema>;

/** An instruction as JSON, its accounts named after `names` (in order) when given. */
export function instructionJson(ix: Instruction, names: readonly string[] = []): InstructionJson {
  return {
    programAddress: ix.programAddress,
    accounts: (ix.accounts ?? []).map((meta, i) => ({
      address: meta.address,
      ...(names[i] !== undefined ? { name: names[i] } : {}),
      role: ROLE_NAMES[meta.role],
      signer: isSignerRole(meta.role),
      writable: isWritableRole(meta.role),
    })),
    data: Buffer.from(ix.data ?? new Uint8Array()).toString('base64'),
  };
}

/** A v0 message (no lookup tables) with the chain's latest blockhash, compiled, signatures left empty. */
export async function unsignedTransaction(
  chain: ChainReader,
  feePayer: Address,
  instructions: readonly Instruction[],
): Promise<UnsignedTransactionJson> {
  const latest = await chain.getLatestBlockhash();
  const lifetime = { blockhash: latest.blockhash as Blockhash, lastValidBlockHeight: latest.lastValidBlockHeight };
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const tx = compileTransaction(message);
  return {
    base64: getBase64EncodedWireTransaction(tx),
    version: 0,
    feePayer,
    signers: Object.keys(tx.signatures),
    blockhash: latest.blockhash,
    lastValidBlockHeight: latest.lastValidBlockHeight.toString(),
  };
}

export type Failure = { ok: false; code: string; message: string };

/**
 * Simulates a prepared transaction (no signatures, latest blockhash). When one of its instructions would fail, the
 * PROGRAM_ERROR failure names the error (the contract's catalog: docs/registry-program.md § Errors) instead of
 * handing out a transaction that cannot land. Failures of the transaction as a whole (an unfunded fee payer, say)
 * do not refuse: they depend on the wallet at signing time, which the agent may still change.
 */
async function refusedBySimulation(chain: ChainReader, transaction: UnsignedTransactionJson): Promise<Failure | null> {
  const simulation = await chain.simulateTransaction(transaction.base64);
  const err = simulation.err as { InstructionError?: unknown } | null;
  if (err === null || typeof err !== 'object' || !('InstructionError' in err)) return null;
  const decoded = decodeProgramError(simulation, { registryProgramId: chain.programId });
  if (!decoded) return null;
  const where = [decoded.hex, decoded.instructionIndex === null ? null : `instruction ${decoded.instructionIndex}`]
    .filter((part) => part !== null)
    .join(', ');
  return {
    ok: false,
    code: 'PROGRAM_ERROR',
    message: `${decoded.name}${where ? ` (${where})` : ''}: ${decoded.condition}${decoded.detail ? ` (${decoded.detail})` : ''}`,
  };
}

/** The unsigned transaction of `instructions`, or the PROGRAM_ERROR failure when its simulation says it would fail. */
export async function simulatedTransaction(
  chain: ChainReader,
  feePayer: Address,
  instructions: readonly Instruction[],
): Promise<{ ok: true; transaction: UnsignedTransactionJson } | Failure> {
  const transaction = await unsignedTransaction(chain, feePayer, instructions);
  return (await refusedBySimulation(chain, transaction)) ?? { ok: true, transaction };
}

/** A handle argument (the leading @ optional), or the INVALID_HANDLE failure. */
export function handleNameArg(value: string): { ok: true; name: string } | Failure {
  const name = parseHandle(value.trim());
  if (name === null) return { ok: false, code: 'INVALID_HANDLE', message: `"${value}" is not a valid handle` };
  return { ok: true, name };
}

/** A base58 wallet address, or the INVALID_WALLET failure naming the argument. */
export function walletArg(value: string, what: string): { ok: true; address: Address } | Failure {
  const trimmed = value.trim();
  if (!isBase58Address(trimmed)) {
    return { ok: false, code: 'INVALID_WALLET', message: `${what} must be a base58 32-byte wallet address` };
  }
  return { ok: true, address: address(trimmed) };
}

/** A chain read that failed: RPC_ERROR (retryable when unreachable); anything else is a bug and rethrown. */
export function chainFailure(err: unknown): Failure {
  if (!(err instanceof ChainError)) throw err;
  const why =
    err.kind === 'unreachable' ? 'the chain RPC did not answer; retry' : 'the chain returned data that does not decode';
  return { ok: false, code: 'RPC_ERROR', message: `${why} (${err.message})` };
}
