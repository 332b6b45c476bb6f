// Gifts (the registry's vouchers; docs/gifts.md). POST /gift/notify (public, keyless): after your app's gift
// transaction is finalized, hand its signature to Sigil so that the recipient's identity webhooks hear of it at once.
// GET /gift/{voucher}: whether the gift can be claimed now.
import type { SigilClient, SigilResult } from './client';
import type { components } from './generated/openapi';

export type GiftNotifyResult = components['schemas']['GiftNotifyResult'];
export type GiftState = components['schemas']['GiftState'];

/**
 * Tells Sigil a gift was just made. Only the signature is sent: Sigil reads the finalized transaction itself. A
 * refusal names why in `code` (the public `error` text): `invalid transaction signature`, `transaction not found`,
 * `transaction not finalized` (retry in a few seconds), `transaction failed`, `not a gift transaction`, `rate
 * limited` (see Retry-After). Idempotent: call it again freely.
 */
export async function notifyGift(client: SigilClient, signature: string): Promise<SigilResult<GiftNotifyResult>> {
  return client.POST('/gift/notify', { body: { signature } });
}

/** A gift's state: `claimable`, `expired` (only the creator may take it back), `claimed` or `refunded`. */
export async function giftState(client: SigilClient, voucher: string): Promise<SigilResult<GiftState>> {
  return client.GET('/gift/{voucher}', { params: { path: { voucher } } });
}
