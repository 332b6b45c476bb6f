// The browser suite's wallet: test-wallet.page.ts, bundled with esbuild and added to every page before its own
// scripts, registers through the Wallet Standard; the signatures are made here, in Node, with a demo-scenario key
// (the page only ever sees public keys and signatures). Each operation is logged, so a test can assert what the
// user was asked to sign.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { base64 } from '@scure/base';
import {
  getAddressEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  signBytes,
  signTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import type { Page } from 'playwright-core';
import { buildSignInMessage } from '@sigil/client-sdk/connect';

let bundled: Promise<string> | undefined;

/** The page script, bundled once per process (an IIFE with @wallet-standard/wallet inside). */
function pageScript(): Promise<string> {
  bundled ??= build({
    entryPoints: [fileURLToPath(new URL('./test-wallet.page.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    platform: 'browser',
  }).then((result) => result.outputFiles[0]!.text);
  return bundled;
}

/** The Solana features the test wallet can offer; by default the first three (what the portal uses). */
export type TestWalletFeature =
  'solana:signMessage' | 'solana:signTransaction' | 'solana:signIn' | 'solana:signAndSendTransaction';

const DEFAULT_FEATURES: readonly TestWalletFeature[] = [
  'solana:signMessage',
  'solana:signTransaction',
  'solana:signIn',
];

export interface WalletRequest {
  op: 'signMessage' | 'signTransaction' | 'signIn' | 'signAndSendTransaction';
  /**
   * signMessage: the UTF-8 text signed; signIn: the message built; signTransaction and signAndSendTransaction: the
   * base64 wire transaction.
   */
  detail: string;
}

export interface TestWallet {
  readonly address: string;
  /** What the page asked this wallet to sign, in order. */
  readonly requests: WalletRequest[];
}

/** Registers the test wallet in `page` (call before the first navigation). */
export async function installTestWallet(
  page: Page,
  signer: KeyPairSigner,
  options: { name?: string; legacyOnly?: boolean; features?: readonly TestWalletFeature[] } = {},
): Promise<TestWallet> {
  const requests: WalletRequest[] = [];
  await page.exposeFunction('sigilTestWallet', async (op: WalletRequest['op'], payload: string) => {
    const bytes = base64.decode(payload);
    if (op === 'signMessage') {
      requests.push({ op, detail: new TextDecoder().decode(bytes) });
      return base64.encode(new Uint8Array(await signBytes(signer.keyPair.privateKey, bytes)));
    }
    if (op === 'signAndSendTransaction') {
      requests.push({ op, detail: payload });
      throw new Error('the test wallet never sends a transaction');
    }
    if (op === 'signTransaction') {
      requests.push({ op, detail: payload });
      const signed = await signTransaction([signer.keyPair], getTransactionDecoder().decode(bytes));
      return base64.encode(new Uint8Array(getTransactionEncoder().encode(signed)));
    }
    // signIn: the wallet builds the Sign-In-With-Solana message from the app's fields, as wallets do.
    const input = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, string | undefined>;
    const message = buildSignInMessage({
      domain: input.domain ?? new URL(page.url()).host,
      address: signer.address,
      nonce: input.nonce!,
      statement: input.statement,
      uri: input.uri,
      chainId: input.chainId,
      issuedAt: input.issuedAt,
      expirationTime: input.expirationTime,
    });
    requests.push({ op, detail: message });
    const messageBytes = new TextEncoder().encode(message);
    const signature = new Uint8Array(await signBytes(signer.keyPair.privateKey, messageBytes));
    return JSON.stringify({ signedMessage: base64.encode(messageBytes), signature: base64.encode(signature) });
  });
  const config = {
    address: signer.address,
    publicKey: base64.encode(new Uint8Array(getAddressEncoder().encode(signer.address))),
    name: options.name ?? 'Sigil Test Wallet',
    legacyOnly: options.legacyOnly ?? false,
    features: options.features ?? DEFAULT_FEATURES,
  };
  await page.addInitScript(`window.sigilTestWalletConfig = ${JSON.stringify(config)};\n${await pageScript()}`);
  return { address: signer.address, requests };
}
