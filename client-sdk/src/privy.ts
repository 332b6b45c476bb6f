// POST /privy/wallet (public, keyless; docs/privy.md): a Privy identity token → the Solana wallets it lists, each with
// its trusted primary handle and that handle's live attestations. Privy's word, not a wallet signature: it opens no
// Connect session.
import type { SigilClient, SigilResult } from './client';
import type { components } from './generated/openapi';

export type PrivyWalletResult = components['schemas']['PrivyWalletResult'];

/**
 * The handles and attestations of the user's Solana wallets. A refusal names why in `code` (the public `error`
 * text): `invalid privy token`, `privy token expired`, `privy token for another app`, `privy token not issued by
 * privy.io`, `no solana wallet linked`, `not configured` (501: the service has no Privy app configured).
 */
export async function privyWallet(client: SigilClient, identityToken: string): Promise<SigilResult<PrivyWalletResult>> {
  return client.POST('/privy/wallet', { body: { identityToken } });
}
