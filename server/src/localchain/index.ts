// The local chain: a Solana JSON-RPC server on loopback over LiteSVM, with our registry program emulated and a
// deterministic demo scenario. See docs/local-chain.md.
import {
  createSolanaRpc,
  getTransactionEncoder,
  type Address,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type Transaction,
} from '@solana/kit';
import type { LiteSVM } from 'litesvm';
import { isBase58Address } from '@sigil/contract/names';
import { startAgentHost, type AgentHost } from './agent-host';
import { ChainCore } from './core';
import type { Faults } from './faults';
import type { Commitment, Ledger } from './ledger';
import type { ProcessResult } from './processor';
import { startGeyserServer, type GeyserServer } from './geyser-server';
import { createRpcMethods } from './rpc-methods';
import { RpcServer, type LoopbackHost } from './rpc-server';
import { seedScenario, type Scenario } from './scenario';

export { REGISTRY_ERRORS } from './emulator-run';
export type { FaultConfig } from './faults';
export type { Scenario } from './scenario';
export type { Commitment } from './ledger';
export { DEFAULT_AGENT_HOST_PORT, type AgentHost } from './agent-host';

/** The registry program id the local chain emulates unless told otherwise. */
export const LOCAL_PROGRAM_ID = 'SigiLRegistry111111111111111111111111111111' as Address;
export const DEFAULT_LOCAL_CHAIN_PORT = 8899;
/** The Geyser gRPC endpoint's port under `npm start` (Yellowstone's own default). */
export const DEFAULT_GEYSER_PORT = 10000;
/**
 * Solana devnet's genesis hash. Presented by the local chain on request (`genesisHash`), its CAIP-2 id is one of the
 * three that stock x402 clients accept (they refuse any other Solana chain id).
 */
export const SOLANA_DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';

export interface LocalChainOptions {
  /** 0 = any free port (tests). Default 0. `npm start` uses DEFAULT_LOCAL_CHAIN_PORT. */
  port?: number;
  /** Loopback only: '127.0.0.1' (default) or '::1'. Anything else throws. */
  host?: LoopbackHost;
  /** Slots between processed and finalized. Default 4. */
  finalityLagSlots?: number;
  /** Length of a slot: the ticker's period, and how far block time moves per slot on advance(). Default 400. */
  slotMs?: number;
  /** Advance one slot every slotMs. Default true; tests pass false and call advance(). */
  autoAdvance?: boolean;
  /** Seed the demo scenario (real transactions; ~1 s). Default true. */
  scenario?: boolean;
  programId?: Address;
  /**
   * The genesis hash getGenesisHash answers (hence the chain's CAIP-2 network id). Default: one derived from the
   * program id. SOLANA_DEVNET_GENESIS_HASH lets stock x402 clients pay on the local chain.
   */
  genesisHash?: string;
  /**
   * The demo agent host (HTTPS on the same loopback host) serving the scenario's agent manifests and x402
   * endpoints; started with the scenario. Port default 0 (any free port); `npm start` uses DEFAULT_AGENT_HOST_PORT.
   */
  agentHostPort?: number;
  /** The Yellowstone gRPC (Geyser) endpoint on the same loopback host. Port default 0 (any free port). */
  geyserPort?: number;
  /** When set, Geyser calls must carry this `x-token` (as hosted endpoints require); default: none required. */
  geyserToken?: string;
}

export interface LocalChain {
  /** http://127.0.0.1:<port> — the JSON-RPC endpoint (POST /). */
  readonly url: string;
  readonly port: number;
  /** http://127.0.0.1:<port> — the Yellowstone gRPC (Geyser) endpoint (docs/local-chain.md § Geyser). */
  readonly geyserUrl: string;
  readonly host: LoopbackHost;
  readonly programId: Address;
  readonly genesisHash: string;
  /** The demo agent host (origin, its CA as PEM and as a file); null when started with scenario: false. */
  readonly agentHost: AgentHost | null;
  /** What GET /scenario serves; null when started with scenario: false. */
  readonly scenario: Scenario | null;
  readonly faults: Faults;
  readonly svm: LiteSVM;
  readonly ledger: Ledger;
  /** A kit RPC client for this chain. */
  readonly rpc: Rpc<SolanaRpcApi>;
  /** Current (processed) slot. */
  slot(commitment?: Commitment): bigint;
  /** Moves n slots forward (default 1), block time by n × slotMs; resolves to the new processed slot. */
  advance(n?: number): Promise<bigint>;
  /** Enters one slot whose block time is exactly `unix` seconds (not earlier than now on the chain). */
  warpTo(unix: number): Promise<bigint>;
  /** Advances until everything landed so far is finalized (finalityLagSlots slots). */
  finalizeAll(): Promise<bigint>;
  /** Resolves once the signature is finalized: advances slots itself when autoAdvance is off. Rejects if unknown. */
  waitForFinalized(signature: string, options?: { timeoutMs?: number }): Promise<void>;
  /** Latest blockhash at processed (for building transactions in tests). */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint };
  /** Sends a signed transaction as sendTransaction does (preflight on unless skipPreflight). Throws SubmitError. */
  send(tx: Transaction, options?: { skipPreflight?: boolean }): Promise<ProcessResult>;
  /** send() then advance until the transaction reaches `commitment` (default 'confirmed'). */
  sendAndConfirm(tx: Transaction, options?: { commitment?: Commitment; skipPreflight?: boolean }): Promise<Signature>;
  /** Faucet transfer (a real transaction). */
  airdrop(address: Address, lamports: bigint): Promise<Signature>;
  close(): Promise<void>;
}

export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const host = options.host ?? '127.0.0.1';
  const programId = options.programId ?? LOCAL_PROGRAM_ID;
  const finalityLagSlots = options.finalityLagSlots ?? 4;
  const slotMs = options.slotMs ?? 400;
  if (!Number.isInteger(finalityLagSlots) || finalityLagSlots < 1)
    throw new Error('finalityLagSlots must be an integer >= 1');
  if (!(slotMs > 0)) throw new Error('slotMs must be positive');
  if (options.genesisHash !== undefined && !isBase58Address(options.genesisHash))
    throw new Error('genesisHash must be a base58 32-byte hash');
  const core = await ChainCore.create({ programId, finalityLagSlots, slotMs, genesisHash: options.genesisHash });
  const { ledger } = core;

  let scenario: Scenario | null = null;
  const server = new RpcServer({
    host,
    port: options.port ?? 0,
    core,
    methods: createRpcMethods(core),
    scenario: () => scenario,
  });
  const { port } = await server.listen();
  const url = `http://${host === '::1' ? '[::1]' : host}:${port}`;
  const geyser: GeyserServer = await startGeyserServer({
    ledger,
    faults: core.faults,
    host,
    port: options.geyserPort ?? 0,
    token: options.geyserToken,
  }).catch(async (err: Error) => {
    await server.close();
    throw new Error(`the Geyser endpoint cannot listen on port ${options.geyserPort ?? 0}: ${err.message}`);
  });

  const run = <T>(task: () => T | Promise<T>) => ledger.queue.run(task);
  const advance = (n = 1) => run(() => ledger.advance(n));
  const tick = () => run(() => ledger.advance(1, { moveClock: false }));
  const send = (tx: Transaction, opts: { skipPreflight?: boolean } = {}) =>
    run(() => core.submit(new Uint8Array(getTransactionEncoder().encode(tx)), opts));

  const waitForCommitment = async (signature: string, commitment: Commitment, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = ledger.getTransaction(signature, 'processed');
      if (!record) throw new Error(`transaction ${signature} is not known to the local chain`);
      if (record.slot <= ledger.slotAt(commitment)) return;
      if (!autoAdvance) await advance(Number(record.slot - ledger.slotAt(commitment)));
      else if (Date.now() > deadline) throw new Error(`timed out waiting for ${signature} to be ${commitment}`);
      else await new Promise((r) => setTimeout(r, Math.min(slotMs, 50)));
    }
  };

  let autoAdvance = false;
  // Seeding does not move the clock: the demo history is stamped with (about) the real time of startup.
  const seedAdvance = (n = 1) => run(() => ledger.advance(n, { moveClock: false }));
  let agentHost: AgentHost | null = null;
  if (options.scenario ?? true) {
    agentHost = await startAgentHost({ host, port: options.agentHostPort ?? 0 }).catch(async (err: Error) => {
      await Promise.all([server.close(), geyser.close()]);
      throw new Error(`the demo agent host cannot listen on port ${options.agentHostPort ?? 0}: ${err.message}`);
    });
    scenario = await seedScenario(core, { send, advance: seedAdvance, url }, { agentOrigin: agentHost.origin });
    agentHost.serve(scenario.agentHost.routes);
  }

  let timer: NodeJS.Timeout | null = null;
  autoAdvance = options.autoAdvance ?? true;
  if (autoAdvance) {
    timer = setInterval(() => void tick(), slotMs);
    timer.unref();
  }

  return {
    url,
    port,
    geyserUrl: geyser.url,
    host,
    programId,
    genesisHash: core.genesisHash,
    agentHost,
    scenario,
    faults: core.faults,
    svm: core.svm,
    ledger,
    rpc: createSolanaRpc(url),
    slot: (commitment = 'processed') => ledger.slotAt(commitment),
    advance,
    warpTo: (unix) => run(() => ledger.warpTo(unix)),
    finalizeAll: () => advance(finalityLagSlots),
    waitForFinalized: (signature, opts) => waitForCommitment(signature, 'finalized', opts?.timeoutMs ?? 30_000),
    latestBlockhash: () => {
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash('processed');
      return { blockhash, lastValidBlockHeight };
    },
    send,
    async sendAndConfirm(tx, opts = {}) {
      const result = await send(tx, opts);
      await waitForCommitment(result.signature, opts.commitment ?? 'confirmed', 30_000);
      return result.signature;
    },
    airdrop: (address, lamports) => run(() => core.airdrop(address, lamports)),
    async close() {
      if (timer) clearInterval(timer);
      await Promise.all([server.close(), geyser.close(), agentHost?.close()]);
    },
  };
}
