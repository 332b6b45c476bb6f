// What the market's rows share (docs/registry-program.md § Market): reading and closing market accounts, the
// treasury multisig, the rule that a standing bid freezes a handle, accounts created through the system program
// for real, token-account checks, and the one domain write of both register_under_namespace forms.
import type { Address } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { findAssociatedTokenPda } from '@solana-program/token';
import {
  decodeDomain,
  decodeMarketAccount,
  encodeDomain,
  findDomainPda,
  LEASE_YEAR_PRICE_LAMPORTS,
  LEASE_YEAR_SECONDS,
  MARKET_PDAS,
  type MarketAccountName,
  type MarketInstruction,
} from '../../platform/chain/registry';
import type { InstructionRows, InstructionTable } from '../../platform/chain/registry/instruction-table';
import { expectPda, fail, signerStub, type EmulatorContext, type InstructionRun } from '../emulator-run';
import { restoreAccount } from '../ledger';
import { TOKEN_PROGRAMS } from '../tokens';

export type MarketRows = InstructionRows<MarketInstruction, [EmulatorContext, InstructionRun], Promise<void>>;
export type MarketTable = InstructionTable<MarketInstruction, [EmulatorContext, InstructionRun], Promise<void>>;

/** Writes a program account, its rent paid by the transaction's fee payer. */
export function write(run: InstructionRun, at: Address, data: Uint8Array): void {
  run.writeProgramAccount(at, data, run.tx.accountKeys[0]!);
}

export function readMarket<N extends MarketAccountName>(
  run: InstructionRun,
  emu: EmulatorContext,
  name: N,
  at: Address,
) {
  const account = run.read(at);
  if (!account || account.owner !== emu.programId) return null;
  return decodeMarketAccount(name, account.data);
}

export function requireMarket<N extends MarketAccountName>(
  run: InstructionRun,
  emu: EmulatorContext,
  name: N,
  at: Address,
) {
  const value = readMarket(run, emu, name, at);
  if (!value) throw fail('AccountNotFound', `${name} ${at} does not exist`);
  return value;
}

/** Deletes a program account, its lamports (rent and anything held) to `to`. */
export function closeAccount(run: InstructionRun, at: Address, to: Address): void {
  const account = run.read(at)!;
  const dest = run.read(to);
  restoreAccount(
    run.svm,
    to,
    dest
      ? { ...dest, lamports: dest.lamports + account.lamports }
      : {
          lamports: account.lamports,
          owner: '11111111111111111111111111111111' as Address,
          data: new Uint8Array(),
          executable: false,
        },
  );
  restoreAccount(run.svm, at, null);
}

/** Cancel, transfer, release and recovery are refused while the handle's auction has a bid (AuctionHasBids). */
export async function refuseWhileBidStands(emu: EmulatorContext, run: InstructionRun, handle: Address): Promise<void> {
  const [auctionAddress] = await MARKET_PDAS.auction(emu.programId, handle);
  const auction = readMarket(run, emu, 'Auction', auctionAddress);
  if (auction?.highBidder) throw fail('AuctionHasBids', 'the auction of this handle has a bid');
}

/** The treasury multisig: at least `threshold` of Config's members sign this instruction. */
export function requireTreasury(run: InstructionRun, emu: EmulatorContext, config: Address, signers: Address[]): void {
  const cfg = readMarket(run, emu, 'Config', config);
  const members = cfg ? [cfg.member0, cfg.member1, cfg.member2] : [];
  const signing = new Set(signers.filter((a) => members.includes(a) && isInstructionSigner(run, a)));
  if (!cfg || signing.size < cfg.threshold) throw fail('NotTreasury', 'not signed by the treasury multisig');
}

function isInstructionSigner(run: InstructionRun, address: Address): boolean {
  const i = run.tx.accountKeys.indexOf(address);
  return i >= 0 && run.tx.isSigner(i);
}

/** Creates a program account through the system program for real (so a second one fails there with 0x0). */
export function createThroughSystem(
  run: InstructionRun,
  emu: EmulatorContext,
  { payer, account, data, extra }: { payer: Address; account: Address; data: Uint8Array; extra: bigint },
): void {
  run.cpi([
    getCreateAccountInstruction({
      payer: signerStub(payer),
      newAccount: signerStub(account),
      lamports: run.svm.minimumBalanceForRentExemption(BigInt(data.length)) + extra,
      space: BigInt(data.length),
      programAddress: emu.programId,
    }),
  ]);
  restoreAccount(run.svm, account, { ...run.read(account)!, data });
}

/** The token program that owns a mint (SPL Token or Token-2022); InvalidTokenAccount for anything else. */
export function tokenProgramOf(run: InstructionRun, mint: Address): Address {
  const owner = run.read(mint)?.owner;
  if (!owner || !TOKEN_PROGRAMS.includes(owner)) throw fail('InvalidTokenAccount', `${mint} is not a token mint`);
  return owner;
}

export async function expectAta(owner: Address, mint: Address, tokenProgram: Address, given: Address, what: string) {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
  if (ata !== given) throw fail('InvalidTokenAccount', `${what} must be the associated token account ${ata}`);
}

export function paidThrough(startedAt: number, paid: bigint): number {
  return startedAt + Number((BigInt(LEASE_YEAR_SECONDS) * paid) / LEASE_YEAR_PRICE_LAMPORTS);
}

export async function registerDomain(
  emu: EmulatorContext,
  run: InstructionRun,
  a: { payer: Address; owner: Address; namespace: Address; domain: Address; label: string; tld: string },
): Promise<void> {
  const bump = await expectPda(a.domain, findDomainPda(emu.programId, a.namespace, a.label), 'domain');
  const existing = run.read(a.domain);
  if (existing)
    throw fail('AlreadyRegistered', `${decodeDomain(a.domain, existing.data).label}.${a.tld} is registered`);
  run.writeProgramAccount(
    a.domain,
    encodeDomain({
      namespace: a.namespace,
      owner: a.owner,
      tokenized: false,
      mint: null,
      registeredAt: run.now,
      registeredSlot: run.slot,
      bump,
      label: a.label,
      tld: a.tld,
    }),
    a.payer,
  );
}
