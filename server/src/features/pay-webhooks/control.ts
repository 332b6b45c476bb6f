// Who controls an `@name`, read from finalized chain state: the authority (owner, or NFT holder in its ATA) and the
// live, on-chain-verified payment address record. Used at registration (is the signer a controller?), by the
// scope-change check (did the owner or the payment address move?) and by payment bindings.
import type { Address } from '@solana/kit';
import { isHandleReleased, isRecordVerified } from '../../platform/chain/trust-rules';
import type { ChainReader, HandleAccount, HandleAuthority, RecordAccount } from '../../platform/chain/types';

/** Address-record key of the payment address on this chain (the registry's native-chain record). */
export const PAYMENT_RECORD_KEY = 'X1';

export interface NameControl {
  handle: HandleAccount;
  /** Slot the handle was read at (finalized). */
  slot: bigint;
  authority: HandleAuthority;
  /** The live verified payment address record, if any. */
  paymentRecord: RecordAccount | null;
  /** Its value (a wallet address), if any. */
  paymentWallet: Address | null;
}

/**
 * Reads the name's control at `finalized`. Null when the name is not registered or was released.
 * Throws ChainError (unreachable / malformed).
 */
export async function readNameControl(
  chain: ChainReader,
  name: string,
  recordKey = PAYMENT_RECORD_KEY,
): Promise<NameControl | null> {
  const { value: handle, slot } = await chain.getHandle(name, 'finalized');
  if (!handle || isHandleReleased(handle)) return null;
  return controlOf(chain, handle, slot, recordKey);
}

export async function readNameControlByAccount(
  chain: ChainReader,
  handleAccount: Address,
  recordKey = PAYMENT_RECORD_KEY,
): Promise<NameControl | null> {
  const [handle, slot] = await Promise.all([
    chain.getHandleByAddress(handleAccount, 'finalized'),
    chain.getSlot('finalized'),
  ]);
  if (!handle || isHandleReleased(handle)) return null;
  return controlOf(chain, handle, slot, recordKey);
}

async function controlOf(
  chain: ChainReader,
  handle: HandleAccount,
  slot: bigint,
  recordKey: string,
): Promise<NameControl> {
  const [authority, records] = await Promise.all([
    chain.getHandleAuthority(handle, 'finalized'),
    chain.getRecords(handle.address, 'finalized'),
  ]);
  const paymentRecord =
    records.find((r) => r.kind === 'address' && r.key === recordKey && isRecordVerified(r, handle, authority)) ?? null;
  return {
    handle,
    slot,
    authority,
    paymentRecord,
    paymentWallet: paymentRecord ? (paymentRecord.value as Address) : null,
  };
}

/** The wallets that control the name now, authority first, without duplicates. */
export function controllers(control: NameControl): Address[] {
  const out: Address[] = [];
  if (control.authority.authority) out.push(control.authority.authority);
  if (control.paymentWallet && !out.includes(control.paymentWallet)) out.push(control.paymentWallet);
  return out;
}
