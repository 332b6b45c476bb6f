// Browser wallets, two ways. The Wallet Standard (`@wallet-standard/app`): every wallet extension that registers
// itself (Phantom, Backpack, Solflare, …) is listed with the Solana features it offers — message signing,
// transaction signing, Sign-In With Solana. The legacy injected `window.solana`-style object (connect +
// signMessage) is the fallback, offered only when no Wallet Standard wallet is present (extensions that do both
// would otherwise be listed twice).
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import {
  StandardConnect,
  type StandardConnectFeature,
  StandardDisconnect,
  type StandardDisconnectFeature,
} from '@wallet-standard/features';
import {
  SolanaSignIn,
  type SolanaSignInFeature,
  type SolanaSignInInput,
  SolanaSignMessage,
  type SolanaSignMessageFeature,
  SolanaSignTransaction,
  type SolanaSignTransactionFeature,
} from '@solana/wallet-standard-features';

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

function isInjected(value: unknown): value is InjectedSolanaWallet {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as InjectedSolanaWallet).signMessage === 'function' &&
    typeof (value as InjectedSolanaWallet).connect === 'function'
  );
}

function findInjectedWallet(): InjectedSolanaWallet | undefined {
  const w = window as WalletWindow;
  return [w.phantom?.solana, w.backpack, w.solflare, w.solana].find(isInjected);
}

/** What the sign-in paths need from a wallet, whichever way it was found. */
export interface PortalWallet {
  /** Stable within the page: the wallet's name (Wallet Standard) or `injected`. */
  id: string;
  name: string;
  icon?: string;
  /** Which proofs this wallet can make. */
  can: { message: boolean; transaction: boolean; signIn: boolean };
  /** Asks the wallet for its account; resolves to the base58 address. */
  connect(): Promise<string>;
  /** Signs the exact bytes; the 64-byte ed25519 signature. */
  signMessage(message: Uint8Array): Promise<Uint8Array>;
  /** Signs a serialized transaction; the signed wire bytes. */
  signTransaction(transaction: Uint8Array): Promise<Uint8Array>;
  /** Sign-In With Solana: the wallet builds and signs the message from these fields. */
  signIn(input: SolanaSignInInput): Promise<{ signedMessage: Uint8Array; signature: Uint8Array }>;
}

const unsupported = (what: string) => () => Promise.reject(new Error(`this wallet cannot ${what}`));

function signature64(signature: unknown): Uint8Array {
  if (!(signature instanceof Uint8Array) || signature.length !== 64)
    throw new Error('the wallet returned no 64-byte signature');
  return signature;
}

function fromStandard(wallet: Wallet): PortalWallet | undefined {
  const f = wallet.features as Partial<
    StandardConnectFeature &
      StandardDisconnectFeature &
      SolanaSignMessageFeature &
      SolanaSignTransactionFeature &
      SolanaSignInFeature
  >;
  if (!f[StandardConnect] || !wallet.chains.some((c) => c.startsWith('solana:'))) return undefined;
  const can = {
    message: Boolean(f[SolanaSignMessage]),
    transaction: Boolean(f[SolanaSignTransaction]),
    signIn: Boolean(f[SolanaSignIn]),
  };
  if (!can.message && !can.transaction && !can.signIn) return undefined;
  let account: WalletAccount | undefined;
  const need = () => {
    if (!account) throw new Error('connect the wallet first');
    return account;
  };
  return {
    id: wallet.name,
    name: wallet.name,
    icon: wallet.icon,
    can,
    async connect() {
      const { accounts } = await f[StandardConnect]!.connect();
      account = accounts.find((a) => a.chains.some((c) => c.startsWith('solana:'))) ?? accounts[0];
      if (!account) throw new Error('the wallet did not share an account');
      return account.address;
    },
    signMessage: can.message
      ? async (message) => {
          const [out] = await f[SolanaSignMessage]!.signMessage({ account: need(), message });
          return signature64(out?.signature);
        }
      : unsupported('sign messages'),
    signTransaction: can.transaction
      ? async (transaction) => {
          const [out] = await f[SolanaSignTransaction]!.signTransaction({ account: need(), transaction });
          if (!out) throw new Error('the wallet returned no transaction');
          return out.signedTransaction;
        }
      : unsupported('sign transactions'),
    signIn: can.signIn
      ? async (input) => {
          const [out] = await f[SolanaSignIn]!.signIn(input);
          if (!out) throw new Error('the wallet returned no sign-in');
          account = out.account;
          return { signedMessage: out.signedMessage, signature: signature64(out.signature) };
        }
      : unsupported('sign in with Solana'),
  };
}

function fromInjected(injected: InjectedSolanaWallet): PortalWallet {
  return {
    id: 'injected',
    name: 'Browser wallet (window.solana)',
    can: { message: true, transaction: false, signIn: false },
    async connect() {
      const connected = await injected.connect();
      const publicKey = (connected && 'publicKey' in connected ? connected.publicKey : injected.publicKey)?.toString();
      if (!publicKey) throw new Error('the wallet did not share its address');
      return publicKey;
    },
    async signMessage(message) {
      const signed = await injected.signMessage(message, 'utf8');
      return signature64(signed instanceof Uint8Array ? signed : signed.signature);
    },
    signTransaction: unsupported('sign transactions'),
    signIn: unsupported('sign in with Solana'),
  };
}

/** The wallets usable now: Wallet Standard ones, else the injected fallback. */
export function availableWallets(): PortalWallet[] {
  const standard = getWallets()
    .get()
    .map(fromStandard)
    .filter((w): w is PortalWallet => w !== undefined);
  if (standard.length > 0) return standard;
  const injected = findInjectedWallet();
  return injected ? [fromInjected(injected)] : [];
}

/** Calls `onChange` whenever a wallet registers or unregisters; returns the unsubscribe function. */
export function watchWallets(onChange: () => void): () => void {
  const wallets = getWallets();
  const offRegister = wallets.on('register', onChange);
  const offUnregister = wallets.on('unregister', onChange);
  return () => {
    offRegister();
    offUnregister();
  };
}
