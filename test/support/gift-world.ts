// Test fixtures for gifts (registry vouchers): a handle registered by its creator and given to a recipient on the
// local chain, finalized, with the accounts and the signature a sender's app would hold. Never imported by
// production code.
import type { Address, KeyPairSigner } from '@solana/kit';
import {
  findHandlePda,
  getMarketInstruction,
  getRegisterInstruction,
  MARKET_PDAS,
} from '../../server/src/platform/chain/registry';
import type { LocalChain } from '../../server/src/localchain/index';
import { exec, fundedWallet } from './webhooks-world';

export interface Gift {
  name: string;
  creator: KeyPairSigner;
  recipient: KeyPairSigner;
  handle: Address;
  voucher: Address;
  /** The finalized `create_voucher` transaction. */
  signature: string;
  /** The register transaction (not a gift). */
  registerSignature: string;
  expiresAt: number;
}

/** The local chain's clock (unix seconds): what the registry judges expiry by. */
export const chainNow = (chain: LocalChain) => chain.ledger.blockTime(chain.ledger.slot);

/** `@name` registered by a new creator and given (create_voucher) to a recipient, expiring in `seconds`. */
export async function giveHandle(
  chain: LocalChain,
  name: string,
  options: { seconds?: number; recipient?: KeyPairSigner } = {},
): Promise<Gift> {
  const creator = await fundedWallet(chain);
  const recipient = options.recipient ?? (await fundedWallet(chain));
  const { programId } = chain;
  const [handle] = await findHandlePda(programId, name);
  const registerSignature = await exec(chain, creator, [
    getRegisterInstruction({ programId, payer: creator.address, owner: creator.address, handle, name, handleType: 0 }),
  ]);
  const [voucher] = await MARKET_PDAS.voucher(programId, creator.address, 1n);
  const expiresAt = chainNow(chain) + (options.seconds ?? 30 * 86_400);
  const signature = await exec(chain, creator, [
    getMarketInstruction(
      programId,
      'create_voucher',
      { id: 1n, expiresAt },
      { creator: creator.address, handle, voucher, recipient: recipient.address },
    ),
  ]);
  return { name, creator, recipient, handle, voucher, signature, registerSignature, expiresAt };
}

/** The recipient claims the gift as is. */
export async function claimGift(chain: LocalChain, gift: Gift): Promise<string> {
  return exec(chain, gift.recipient, [
    getMarketInstruction(
      chain.programId,
      'claim_voucher',
      {},
      { claimer: gift.recipient.address, handle: gift.handle, voucher: gift.voucher, creator: gift.creator.address },
    ),
  ]);
}

/** The creator takes an expired gift back (the chain's clock must be past its expiry). */
export async function refundGift(chain: LocalChain, gift: Gift): Promise<string> {
  return exec(chain, gift.creator, [
    getMarketInstruction(
      chain.programId,
      'refund_voucher',
      {},
      { creator: gift.creator.address, handle: gift.handle, voucher: gift.voucher },
    ),
  ]);
}
