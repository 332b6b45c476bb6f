// Helpers for tests that drive the local chain: build and sign transactions, make funded wallets.
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransaction,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Transaction,
} from '@solana/kit';
import type { LocalChain } from '../../server/src/localchain/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import type { ChainReader } from '../../server/src/platform/chain/types';

/** A transaction paid by `feePayer`, signed by it and `others`, with the chain's latest (processed) blockhash. */
export async function signedTransaction(
  chain: Pick<LocalChain, 'latestBlockhash'>,
  feePayer: KeyPairSigner,
  instructions: Instruction[],
  options: { others?: KeyPairSigner[]; version?: 'legacy' | 0; blockhash?: string } = {},
): Promise<Transaction> {
  const latest = chain.latestBlockhash();
  const lifetime = {
    blockhash: (options.blockhash ?? latest.blockhash) as Blockhash,
    lastValidBlockHeight: latest.lastValidBlockHeight,
  };
  const message = pipe(
    createTransactionMessage({ version: options.version ?? 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signers = [feePayer, ...(options.others ?? []).filter((o) => o.address !== feePayer.address)];
  return signTransaction(
    signers.map((s) => s.keyPair),
    compileTransaction(message),
  );
}

export const base64Wire = (tx: Transaction) => getBase64EncodedWireTransaction(tx);

/** A raw JSON-RPC sendTransaction answer: the signature, or the error with the simulation's `err` and logs. */
interface RawSendResponse {
  result?: string;
  error?: { code: number; message: string; data?: { err: unknown; logs: string[] } };
}

/** Sends `tx` as a bare JSON-RPC request (what a wallet without a client library does) and answers the raw body. */
export async function rawSendTransaction(
  chain: Pick<LocalChain, 'url'>,
  tx: Transaction,
  options: { skipPreflight?: boolean } = {},
): Promise<RawSendResponse> {
  const res = await fetch(chain.url, {
    method: 'POST',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'sendTransaction',
      params: [base64Wire(tx), { encoding: 'base64', ...options }],
    }),
  });
  return (await res.json()) as RawSendResponse;
}

/** A fresh wallet funded from the chain's faucet (lamports default: 10 native tokens). */
export async function fundedWallet(
  chain: Pick<LocalChain, 'airdrop'>,
  lamports = 10_000_000_000n,
): Promise<KeyPairSigner> {
  const wallet = await generateKeyPairSigner();
  await chain.airdrop(wallet.address, lamports);
  return wallet;
}

/** A fresh reader of the chain that records the JSON-RPC method of every call it makes, in order. */
export function countingReader(chain: { url: string; programId: string }): { reader: ChainReader; calls: string[] } {
  const calls: string[] = [];
  const reader = createChainReader({
    rpcUrl: chain.url,
    programId: chain.programId,
    timeoutMs: 5000,
    onRpcCall: (e) => calls.push(e.method),
  });
  return { reader, calls };
}
