// The facilitator rail's payee as the tests watch it: its USDC balance, and a bounded wait for that balance to move
// (a settlement lands after the answer that started it).
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { DEVNET_USDC_MINT, type LocalFacilitatorRail } from '../../server/src/localchain/facilitator';
import type { X402Chain } from './x402-app';

/** The rail payee's USDC balance (processed commitment). */
export async function payeeBalance(env: X402Chain, rail: LocalFacilitatorRail): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({
    owner: rail.payTo,
    mint: DEVNET_USDC_MINT,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return BigInt((await env.chain.rpc.getTokenAccountBalance(ata, { commitment: 'processed' }).send()).value.amount);
}

/** Waits (bounded: 20 s) until the payee's balance moved off `from`; the new balance. */
export async function payeeBalanceMoved(env: X402Chain, rail: LocalFacilitatorRail, from: bigint): Promise<bigint> {
  for (let i = 0; i < 400; i++) {
    const now = await payeeBalance(env, rail);
    if (now !== from) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the payment never landed');
}
