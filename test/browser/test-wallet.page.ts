// Runs IN THE PAGE (bundled by test-wallet.ts with esbuild, added as an init script): a wallet registered through
// the Wallet Standard with the stock `registerWallet`, as a wallet extension's content script would. Its account
// is a demo-scenario key; every signature is made in Node by the function test-wallet.ts exposes (the key never
// enters the page). It implements the features the portal uses: connect, disconnect, events, signMessage,
// signTransaction and signIn; `features` narrows the Solana ones it offers (a hardware-style wallet that only
// signs transactions), and may add signAndSendTransaction, which it refuses (it never sends). With `legacyOnly` it
// is instead the legacy injected `window.solana` object.
import { registerWallet } from '@wallet-standard/wallet';
import type { Wallet, WalletAccount } from '@wallet-standard/base';

declare global {
  interface Window {
    /** Exposed by test-wallet.ts (page.exposeFunction): base64 in, base64 (or JSON) out. */
    sigilTestWallet(op: string, payload: string): Promise<string>;
    /** Set by test-wallet.ts before this script runs. */
    sigilTestWalletConfig: {
      address: string;
      publicKey: string;
      name: string;
      legacyOnly: boolean;
      features: readonly `${string}:${string}`[];
    };
    solana?: unknown;
  }
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

const config = window.sigilTestWalletConfig;
const CHAINS = ['solana:localnet'] as const;
const account: WalletAccount = Object.freeze({
  address: config.address,
  publicKey: unb64(config.publicKey),
  chains: CHAINS,
  features: config.features,
});

let connected: readonly WalletAccount[] = [];
const listeners = new Set<(props: { accounts?: readonly WalletAccount[] }) => void>();
const emit = () => listeners.forEach((l) => l({ accounts: connected }));

/** The Solana features this wallet can offer; `config.features` says which it does. */
const SOLANA_FEATURES: Record<string, unknown> = {
  'solana:signMessage': {
    version: '1.1.0',
    signMessage: async (...inputs: { account: WalletAccount; message: Uint8Array }[]) =>
      Promise.all(
        inputs.map(async (input) => ({
          signedMessage: input.message,
          signature: unb64(await window.sigilTestWallet('signMessage', b64(input.message))),
        })),
      ),
  },
  'solana:signTransaction': {
    version: '1.0.0',
    supportedTransactionVersions: ['legacy', 0],
    signTransaction: async (...inputs: { account: WalletAccount; transaction: Uint8Array }[]) =>
      Promise.all(
        inputs.map(async (input) => ({
          signedTransaction: unb64(await window.sigilTestWallet('signTransaction', b64(input.transaction))),
        })),
      ),
  },
  'solana:signIn': {
    version: '1.0.0',
    signIn: async (...inputs: Record<string, unknown>[]) =>
      Promise.all(
        inputs.map(async (input) => {
          const json = new TextEncoder().encode(JSON.stringify(input));
          const out = JSON.parse(await window.sigilTestWallet('signIn', b64(json))) as {
            signedMessage: string;
            signature: string;
          };
          return {
            account,
            signedMessage: unb64(out.signedMessage),
            signature: unb64(out.signature),
            signatureType: 'ed25519' as const,
          };
        }),
      ),
  },
  // Offered only when asked for: a wallet whose one Solana feature is one the apps cannot use to sign in.
  'solana:signAndSendTransaction': {
    version: '1.0.0',
    supportedTransactionVersions: ['legacy', 0],
    signAndSendTransaction: async (...inputs: { account: WalletAccount; transaction: Uint8Array }[]) =>
      Promise.all(inputs.map((input) => window.sigilTestWallet('signAndSendTransaction', b64(input.transaction)))),
  },
};

const wallet: Wallet = {
  version: '1.0.0',
  name: config.name,
  icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiPjxyZWN0IHdpZHRoPSIxIiBoZWlnaHQ9IjEiLz48L3N2Zz4=',
  chains: CHAINS,
  get accounts() {
    return connected;
  },
  features: {
    'standard:connect': {
      version: '1.0.0',
      connect: async () => {
        connected = [account];
        emit();
        return { accounts: connected };
      },
    },
    'standard:disconnect': {
      version: '1.0.0',
      disconnect: async () => {
        connected = [];
        emit();
      },
    },
    'standard:events': {
      version: '1.0.0',
      on: (_event: 'change', listener: (props: { accounts?: readonly WalletAccount[] }) => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    ...Object.fromEntries(config.features.map((name) => [name, SOLANA_FEATURES[name]])),
  },
};

if (config.legacyOnly) {
  // A wallet from before the Wallet Standard: only the injected `window.solana` object (connect + signMessage).
  const publicKey = { toString: () => config.address, toBase58: () => config.address };
  const legacy = {
    publicKey: null as typeof publicKey | null,
    async connect() {
      legacy.publicKey = publicKey;
      return { publicKey };
    },
    async signMessage(message: Uint8Array) {
      return { signature: unb64(await window.sigilTestWallet('signMessage', b64(message))), publicKey };
    },
  };
  window.solana = legacy;
} else {
  registerWallet(wallet);
}
