// The injected browser wallet (Phantom, Backpack, Solflare and others expose this `window.solana`-style object):
// connect → public key; signMessage(bytes) → ed25519 signature over exactly those bytes.
import { base58 } from '@scure/base';

interface InjectedSolanaWallet {
  connect(): Promise<{ publicKey: { toString(): string } } | void>;
  publicKey?: { toString(): string } | null;
  signMessage(message: Uint8Array, display?: 'utf8' | 'hex'): Promise<{ signature: Uint8Array } | Uint8Array>;
}

type WalletWindow = Window & {
  phantom?: { solana?: InjectedSolanaWallet };
  backpack?: InjectedSolanaWallet;
  solflare?: InjectedSolanaWallet;
  solana?: InjectedSolanaWallet;
};

function isWallet(value: unknown): value is InjectedSolanaWallet {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as InjectedSolanaWallet).signMessage === 'function' &&
    typeof (value as InjectedSolanaWallet).connect === 'function'
  );
}

export function findInjectedWallet(): InjectedSolanaWallet | undefined {
  if (typeof window === 'undefined') return undefined;
  const w = window as WalletWindow;
  return [w.phantom?.solana, w.backpack, w.solflare, w.solana].find(isWallet);
}

export interface ConnectedWallet {
  address: string;
  /** Signs the exact UTF-8 bytes of `text`; the signature in base58 (what /v1/auth/verify takes). */
  sign(text: string): Promise<string>;
}

export async function connectWallet(wallet: InjectedSolanaWallet): Promise<ConnectedWallet> {
  const connected = await wallet.connect();
  const publicKey = (connected && 'publicKey' in connected ? connected.publicKey : wallet.publicKey)?.toString();
  if (!publicKey) throw new Error('the wallet did not share its address');
  return {
    address: publicKey,
    async sign(text) {
      const signed = await wallet.signMessage(new TextEncoder().encode(text), 'utf8');
      const signature = signed instanceof Uint8Array ? signed : signed.signature;
      if (!(signature instanceof Uint8Array) || signature.length !== 64)
        throw new Error('the wallet returned no 64-byte signature');
      return base58.encode(signature);
    },
  };
}
