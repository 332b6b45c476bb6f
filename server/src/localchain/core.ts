// The chain itself, without HTTP: LiteSVM + ledger + transaction processor + registry emulator + faucet.
// The RPC methods and the in-process API (index.ts) both go through this object, inside the ledger's queue.
import { sha256 } from '@noble/hashes/sha2.js';
import {
  appendTransactionMessageInstruction,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase58Decoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { LiteSVM } from 'litesvm';
import { SYSTEM_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { Faults } from './faults';
import { Ledger, restoreAccount, type Commitment } from './ledger';
import { TransactionProcessor, TransactionRejected, type ProcessResult } from './processor';
import { RegistryEmulator } from './registry-emulator';
import { trackWrites } from './svm-writes';
import { describeTransactionError } from './tx-errors';

const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;

/** Why a submission was refused; `code` is the JSON-RPC error code the RPC answers with. */
export class SubmitError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface ChainCoreOptions {
  programId: Address;
  finalityLagSlots: number;
  slotMs: number;
  /** The genesis hash the chain presents (getGenesisHash); default one derived from the program id. */
  genesisHash?: string;
}

export class ChainCore {
  readonly svm: LiteSVM;
  readonly ledger: Ledger;
  readonly processor: TransactionProcessor;
  readonly faults = new Faults();
  readonly genesisHash: string;
  private faucet!: KeyPairSigner;

  private constructor(readonly options: ChainCoreOptions) {
    // `new LiteSVM()` loads sysvars, builtins, SPL programs (Token, Token-2022, ATA, memo) and precompiles.
    // We verify signatures, check blockhashes and keep history ourselves (see processor.ts / ledger.ts).
    // withNativeMints: the wrapped-native mint (So111…112, 9 decimals), x402's default asset, exists as on a cluster.
    // trackWrites: every call that may change SVM state bumps a write generation, which the ledger's read caches
    // are keyed on (svm-writes.ts). Everything, the in-process API (LocalChain.svm) included, uses this wrapper.
    this.svm = trackWrites(
      new LiteSVM().withSigverify(false).withBlockhashCheck(false).withTransactionHistory(0n).withNativeMints(),
    );
    this.genesisHash =
      options.genesisHash ??
      getBase58Decoder().decode(sha256(new TextEncoder().encode(`sigil-localchain:genesis:${options.programId}`)));
    this.ledger = new Ledger(this.svm, {
      finalityLagSlots: options.finalityLagSlots,
      slotMs: options.slotMs,
      genesisHash: this.genesisHash,
    });
    this.processor = new TransactionProcessor(
      this.svm,
      this.ledger,
      new RegistryEmulator(this.svm, this.ledger, options.programId),
    );
  }

  static async create(options: ChainCoreOptions): Promise<ChainCore> {
    const core = new ChainCore(options);
    core.faucet = await createKeyPairSignerFromPrivateKeyBytes(
      sha256(new TextEncoder().encode('sigil-localchain:faucet')),
    );
    restoreAccount(core.svm, core.faucet.address, {
      lamports: FAUCET_LAMPORTS,
      owner: SYSTEM_PROGRAM_ADDRESS,
      data: new Uint8Array(),
      executable: false,
    });
    return core;
  }

  get programId(): Address {
    return this.options.programId;
  }

  get faucetAddress(): Address {
    return this.faucet.address;
  }

  /**
   * Verifies and executes a wire transaction in the current slot. Runs inside the ledger queue.
   * Throws SubmitError (JSON-RPC codes -32602 decode, -32003 signature, -32002 preflight failure).
   */
  async submit(wire: Uint8Array, options: { skipPreflight?: boolean } = {}): Promise<ProcessResult> {
    const tx = this.decodeOrThrow(wire);
    if (!(await this.processor.verifySignatures(tx))) {
      throw new SubmitError(-32003, 'Transaction signature verification failure');
    }
    const result = await this.processor.execute(tx, {
      commit: options.skipPreflight ? 'always' : 'on-success',
      checkBlockhash: true,
    });
    if (result.err !== null && !options.skipPreflight) {
      throw new SubmitError(-32002, `Transaction simulation failed: ${describeTransactionError(result.err)}`, {
        accounts: null,
        err: result.err,
        innerInstructions: null,
        logs: result.logs,
        replacementBlockhash: null,
        returnData: null,
        unitsConsumed: result.unitsConsumed,
      });
    }
    return result;
  }

  async simulate(
    wire: Uint8Array,
    options: { sigVerify?: boolean; replaceRecentBlockhash?: boolean },
  ): Promise<ProcessResult> {
    const tx = this.decodeOrThrow(wire);
    if (options.sigVerify && !(await this.processor.verifySignatures(tx))) {
      throw new SubmitError(-32003, 'Transaction signature verification failure');
    }
    return this.processor.execute(tx, { commit: 'never', checkBlockhash: !options.replaceRecentBlockhash });
  }

  private decodeOrThrow(wire: Uint8Array) {
    try {
      return this.processor.decode(wire);
    } catch (err) {
      if (err instanceof TransactionRejected) throw new SubmitError(-32602, err.message);
      throw err;
    }
  }

  /** A real, signed System transfer from the local faucet (so it has history like any other transaction). */
  async airdrop(to: Address, lamports: bigint): Promise<Signature> {
    const { blockhash, lastValidBlockHeight } = this.ledger.latestBlockhash('processed');
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(this.faucet, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight }, m),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferSolInstruction({ source: this.faucet, destination: to, amount: lamports }),
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const result = await this.submit(new Uint8Array(getTransactionEncoder().encode(signed)), { skipPreflight: false });
    return result.signature;
  }

  commitmentSlot(commitment: Commitment): bigint {
    return this.ledger.slotAt(commitment);
  }
}
