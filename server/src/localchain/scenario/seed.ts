// The seeding context every scenario step runs with, and the registry actions steps are written in. Each action
// sends one real transaction in its own slot (so every account has history and the scenario is deterministic).
import { sha256 } from '@noble/hashes/sha2.js';
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getAddressEncoder,
  getBase58Decoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransaction,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import {
  findAttestationPda,
  findHandlePda,
  findPrimaryPointerPda,
  findRecordPda,
  getAttestInstruction,
  getRegisterInstruction,
  getRevokeAttestationInstruction,
  getSetPrimaryInstruction,
  getSetRecordInstruction,
  getVerifyRecordInstruction,
  SYSVAR_INSTRUCTIONS_ADDRESS,
} from '../../platform/chain/registry';
import { SECP256K1_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../../platform/chain/programs';
import type { DemoResponse } from '../agent-host';
import type { ChainCore } from '../core';
import { secp256k1Addresses, secp256k1ProofData, verifyRecordMessage } from '../secp256k1';
import type { Scenario, ScenarioDriver } from './types';

export const WALLET_NAMES = [
  'registrar',
  'attester',
  'treasury',
  'alice',
  'aliceSol',
  'bob',
  'carol',
  'dave',
  'erin',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'satoshi',
  'payer1',
  'payer2',
] as const;
export type WalletName = (typeof WALLET_NAMES)[number];

export const LAMPORTS = 1_000_000_000n;
export const USDX_DECIMALS = 6;
export const utf8 = (s: string) => new TextEncoder().encode(s);

export async function demoWallet(name: string): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(sha256(utf8(`sigil-demo:${name}`)), true);
}

export function secretKeyOf(name: string, address: Address): string {
  const bytes = new Uint8Array(64);
  bytes.set(sha256(utf8(`sigil-demo:${name}`)), 0);
  bytes.set(getAddressEncoder().encode(address), 32);
  return getBase58Decoder().decode(bytes);
}

/** What the steps seed into, in the order they seed it (the scenario's JSON keeps that order). */
type Seeded = Pick<Scenario, 'foreignKeys' | 'handles' | 'domains' | 'namespaces' | 'invoices' | 'agents' | 'market'>;

export interface Seed {
  readonly core: ChainCore;
  readonly driver: ScenarioDriver;
  readonly programId: Address;
  /** The demo agent host's origin, without a trailing slash. */
  readonly origin: string;
  readonly w: Record<WalletName, KeyPairSigner>;
  readonly mintSigners: { usdx: KeyPairSigner; vaultNft: KeyPairSigner };
  readonly seeded: Seeded;
  /** The demo agent host's routes: path → answer. */
  readonly agentRoutes: Record<string, DemoResponse>;
}

export async function createSeed(core: ChainCore, driver: ScenarioDriver, agentOrigin: string): Promise<Seed> {
  const w = {} as Record<WalletName, KeyPairSigner>;
  for (const name of WALLET_NAMES) w[name] = await demoWallet(name);
  const mintSigners = { usdx: await demoWallet('mint:usdx'), vaultNft: await demoWallet('mint:vault-nft') };
  return {
    core,
    driver,
    programId: core.programId,
    origin: agentOrigin.replace(/\/+$/, ''),
    w,
    mintSigners,
    seeded: { foreignKeys: {}, handles: {}, domains: {}, namespaces: {}, invoices: {}, agents: {}, market: {} },
    agentRoutes: {},
  };
}

/** Signs with every signer, sends, and moves to the next slot so that each step has its own slot. */
export async function exec(s: Seed, payer: KeyPairSigner, instructions: Instruction[], others: KeyPairSigner[] = []) {
  const { blockhash, lastValidBlockHeight } = s.core.ledger.latestBlockhash('processed');
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(payer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signers = [payer, ...others.filter((o) => o.address !== payer.address)];
  const tx = await signTransaction(
    signers.map((signer) => signer.keyPair),
    compileTransaction(message),
  );
  const result = await s.driver.send(tx);
  await s.driver.advance(1);
  return result;
}

/** The chain's current block time. */
export const now = (s: Seed) => s.core.ledger.blockTime(s.core.ledger.slot);

export const ata = async (owner: Address, mint: Address) =>
  (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

export const handleAccount = async (s: Seed, name: string) => (await findHandlePda(s.programId, name))[0];

export async function register(s: Seed, name: string, owner: WalletName, handleType = 0): Promise<Address> {
  const { programId, w } = s;
  const handle = await handleAccount(s, name);
  await exec(s, w[owner], [
    getRegisterInstruction({ programId, payer: w[owner].address, owner: w[owner].address, handle, name, handleType }),
  ]);
  return handle;
}

export async function setPrimary(s: Seed, wallet: WalletName, name: string): Promise<void> {
  const { programId, w } = s;
  const handle = await handleAccount(s, name);
  const [primary] = await findPrimaryPointerPda(programId, w[wallet].address);
  await exec(s, w[wallet], [getSetPrimaryInstruction({ programId, wallet: w[wallet].address, handle, primary })]);
}

export async function setRecord(
  s: Seed,
  authority: WalletName,
  name: string,
  kind: 'address' | 'text',
  key: string,
  value: string,
): Promise<Address> {
  const { programId, w } = s;
  const handle = await handleAccount(s, name);
  const [record] = await findRecordPda(programId, handle, kind, key);
  await exec(s, w[authority], [
    getSetRecordInstruction({ programId, authority: w[authority].address, handle, record, kind, key, value }),
  ]);
  return record;
}

/** An X1/SOL record verified by the recorded wallet co-signing. */
export async function verifyEd25519(
  s: Seed,
  authority: WalletName,
  name: string,
  key: string,
  verifier: KeyPairSigner,
): Promise<void> {
  const { programId, w } = s;
  const handle = await handleAccount(s, name);
  const [record] = await findRecordPda(programId, handle, 'address', key);
  await exec(
    s,
    w[authority],
    [
      getVerifyRecordInstruction({
        programId,
        authority: w[authority].address,
        handle,
        record,
        verifier: verifier.address,
      }),
    ],
    [verifier],
  );
}

/** The secp256k1 key behind a demo ETH/BTC record, written to the scenario's `foreignKeys`. */
export function secpKey(s: Seed, name: string) {
  const privateKey = sha256(utf8(`sigil-demo-secp256k1:${name}`));
  const addresses = secp256k1Addresses(privateKey);
  s.seeded.foreignKeys[name] = { privateKeyHex: Buffer.from(privateKey).toString('hex'), ...addresses };
  return { privateKey, ...addresses };
}

/** An ETH/BTC record verified by a secp256k1 proof instruction in the same transaction. */
export async function verifySecp(
  s: Seed,
  authority: WalletName,
  name: string,
  key: 'ETH' | 'BTC',
  privateKey: Uint8Array,
): Promise<void> {
  const { programId, w } = s;
  const handle = await handleAccount(s, name);
  const [record] = await findRecordPda(programId, handle, 'address', key);
  const proof: Instruction = {
    programAddress: SECP256K1_PROGRAM_ADDRESS,
    data: secp256k1ProofData(privateKey, utf8(verifyRecordMessage(record)), 0),
  };
  await exec(s, w[authority], [
    proof,
    getVerifyRecordInstruction({
      programId,
      authority: w[authority].address,
      handle,
      record,
      verifier: SYSVAR_INSTRUCTIONS_ADDRESS,
    }),
  ]);
}

/** An attestation by the demo attester. */
export async function attest(s: Seed, name: string, platform: string, subject: string, expiresAt = 0) {
  const { programId, w } = s;
  const handle = await handleAccount(s, name);
  const [attestation] = await findAttestationPda(programId, handle, platform);
  await exec(s, w.attester, [
    getAttestInstruction({ programId, issuer: w.attester.address, handle, attestation, platform, subject, expiresAt }),
  ]);
  return attestation;
}

export async function revokeAttestation(s: Seed, attestation: Address): Promise<void> {
  const { programId, w } = s;
  await exec(s, w.attester, [getRevokeAttestationInstruction({ programId, issuer: w.attester.address, attestation })]);
}

/** Lists a handle in the scenario's `handles`. */
export async function describe(s: Seed, name: string, owner: string, authority: string | null, description: string) {
  s.seeded.handles[name] = { description, account: await handleAccount(s, name), owner, authority };
}
