// What the demo scenario returns (served as JSON at GET /scenario, docs/local-chain.md) and what seeding needs.
import type { Address, Transaction } from '@solana/kit';
import type { DemoResponse } from '../agent-host';
import type { ProcessResult } from '../processor';

export interface ScenarioWallet {
  address: Address;
  /** 64-byte keypair (32-byte seed + 32-byte public key) in base58. Local demo keys only. */
  secretKey: string;
}

export interface Scenario {
  rpcUrl: string;
  programId: Address;
  genesisHash: string;
  /** How wallet keys are derived: ed25519 seed = sha256(`sigil-demo:<name>`). */
  walletSeed: string;
  wallets: Record<string, ScenarioWallet>;
  /** secp256k1 keys behind the ETH/BTC records (private key = sha256(`sigil-demo-secp256k1:<name>`)). */
  foreignKeys: Record<string, { privateKeyHex: string; eth: string; btc: string }>;
  mints: Record<string, { address: Address; decimals: number; authority: string; tokenProgram: Address }>;
  handles: Record<string, { description: string; account: Address; owner: string; authority: string | null }>;
  domains: Record<string, { description: string; account: Address; owner: string }>;
  namespaces: Record<string, { account: Address; authority: string }>;
  invoices: Record<
    string,
    { description: string; account: Address; payee: string; id: number; status: 'open' | 'paid' | 'cancelled' }
  >;
  /**
   * The demo agents (docs/local-chain.md): name → what it shows, the level get_agent_manifest reaches and, when it
   * stops short of L2, the reason it gives for the next level.
   */
  agents: Record<string, { description: string; manifestUrl: string; level: 'L0' | 'L1' | 'L2'; reason?: string }>;
  /** Where the agents' manifests and x402 endpoints are served (the demo agent host): path → answer. */
  agentHost: { origin: string; routes: Record<string, DemoResponse> };
  /**
   * One handle in each market state (docs/registry-program.md § Market): state → the handle, the market account
   * (offer, listing, auction, voucher, lease) and what it shows.
   */
  market: Record<string, { description: string; handle: string; account: Address }>;
  /** Public-endpoint case → the name (resolve input) that covers it. */
  cases: Record<string, string>;
  /** Reverse-lookup case → the wallet address to look up. */
  reverse: Record<string, Address>;
}

export interface ScenarioDriver {
  send(tx: Transaction, options?: { skipPreflight?: boolean }): Promise<ProcessResult>;
  advance(n?: number): Promise<bigint>;
  url: string;
}

export interface ScenarioOptions {
  /** The demo agent host's origin (`https://127.0.0.1:<port>`): the agents' `agent.manifest` records point there. */
  agentOrigin: string;
}
