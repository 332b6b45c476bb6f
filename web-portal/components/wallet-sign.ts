'use client';
// Signing a service message with the wallet the session was signed in with (the one whose signature a webhook's
// scope needs): the first wallet in this browser that holds that address and can sign messages.
import { base58 } from '@scure/base';
import { availableWallets } from '../lib/wallet';

/** The base58 signature of `message` by `address`'s wallet; `status` hears which wallet is asked. */
export async function signWithSessionWallet(
  address: string,
  message: string,
  status: (text: string) => void,
): Promise<string> {
  for (const wallet of availableWallets().filter((w) => w.can.message)) {
    status(`Asking ${wallet.name} to sign…`);
    if ((await wallet.connect()) !== address) continue;
    return base58.encode(await wallet.signMessage(new TextEncoder().encode(message)));
  }
  throw new Error(`no wallet in this browser holds ${address} and can sign messages`);
}
