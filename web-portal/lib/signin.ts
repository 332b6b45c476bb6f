// The three Connect proofs, as the portal asks a wallet for them (docs/connect.md "What a wallet signs"):
//   message      /verify        the wallet signs the challenge text (raw UTF-8 bytes)
//   transaction  /verify-tx     the wallet signs a memo transaction carrying the challenge's memo; never sent
//   signin       /verify-signin Sign-In With Solana: the wallet builds the message from our fields and signs it
// Each runs challenge → wallet → verify through the portal's /api/connect proxy; the session lands in a cookie.
import { base58, base64 } from '@scure/base';
import {
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from '@solana/kit';
import { MEMO_PROGRAM_ID } from '@sigil/client-sdk/connect';
import type { PortalWallet } from './wallet';

export type ProofPath = 'message' | 'transaction' | 'signin';

export const PROOF_PATHS: Record<ProofPath, { label: string; hint: string; supported: (w: PortalWallet) => boolean }> =
  {
    message: {
      label: 'Sign a message',
      hint: 'Your wallet signs a one-time text. Nothing is sent to a chain.',
      supported: (w) => w.can.message,
    },
    signin: {
      label: 'Sign in with Solana',
      hint: 'Your wallet shows a standard sign-in request for this site.',
      supported: (w) => w.can.signIn,
    },
    transaction: {
      label: 'Sign a memo transaction',
      hint: 'For wallets that cannot sign messages (e.g. some hardware wallets): a transaction that is never sent.',
      supported: (w) => w.can.transaction,
    },
  };

/**
 * The blockhash of the memo transaction. The transaction is only signed, never broadcast, and the service does not
 * read its lifetime (docs/connect.md), so the portal needs no chain access: a fixed, well-formed value.
 */
const UNSENT_BLOCKHASH = '11111111111111111111111111111111' as Blockhash;

export class ConnectError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${message} (${code})`);
  }
}

/** `{code, message}` from the portal's /api/connect (the service's /v1 error body, or the proxy's own). */
export async function connectCall<T>(op: string, body?: unknown): Promise<T> {
  const res = await fetch(
    `/api/connect/${op}`,
    body === undefined
      ? { cache: 'no-store' }
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new ConnectError(res.status, json.code ?? 'ERROR', json.message ?? `HTTP ${res.status}`);
  return json as T;
}

interface Challenge {
  nonce: string;
  challenge: string;
  memo?: string;
}

/** The unsigned legacy memo transaction the wallet pays for and signs (the /verify-tx proof). */
export function memoTransaction(wallet: string, memo: string): Uint8Array {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(address(wallet), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: UNSENT_BLOCKHASH, lastValidBlockHeight: 0n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        { programAddress: address(MEMO_PROGRAM_ID), accounts: [], data: new TextEncoder().encode(memo) },
        m,
      ),
  );
  return new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)));
}

export interface SignInSteps {
  /** Progress text for a live region: what the user is asked to do now. */
  onStep(text: string): void;
}

/** Runs one proof path with a connected wallet; resolves to the session object the proxy returns. */
export async function signInWith<T>(path: ProofPath, wallet: PortalWallet, steps: SignInSteps): Promise<T> {
  steps.onStep(`Connecting to ${wallet.name}…`);
  const account = await wallet.connect();
  steps.onStep('Requesting a sign-in challenge…');
  const mode = path === 'transaction' ? { mode: 'tx' } : path === 'signin' ? { mode: 'signin' } : {};
  const challenge = await connectCall<Challenge>('challenge', { wallet: account, ...mode });
  if (path === 'message') {
    steps.onStep(`Approve the message in your wallet: ${challenge.challenge}`);
    const signature = await wallet.signMessage(new TextEncoder().encode(challenge.challenge));
    steps.onStep('Verifying…');
    return connectCall<T>('verify', { nonce: challenge.nonce, signature: base58.encode(signature), signer: account });
  }
  if (path === 'transaction') {
    if (!challenge.memo) throw new Error('the service sent no memo for the transaction proof');
    steps.onStep(`Approve the transaction in your wallet (memo: ${challenge.memo}); it is never sent`);
    const signed = await wallet.signTransaction(memoTransaction(account, challenge.memo));
    steps.onStep('Verifying…');
    return connectCall<T>('verify-tx', { nonce: challenge.nonce, signedTransaction: base64.encode(signed) });
  }
  steps.onStep('Approve the sign-in request in your wallet…');
  const signedIn = await wallet.signIn({
    domain: window.location.host,
    address: account,
    statement: 'Sign in to the Sigil developer portal.',
    uri: window.location.origin,
    version: '1',
    nonce: challenge.nonce,
    issuedAt: new Date().toISOString(),
  });
  steps.onStep('Verifying…');
  return connectCall<T>('verify-signin', {
    nonce: challenge.nonce,
    signedMessage: base64.encode(signedIn.signedMessage),
    signature: base58.encode(signedIn.signature),
  });
}
