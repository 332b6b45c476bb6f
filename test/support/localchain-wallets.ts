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

/** A fresh wallet funded from the chain's faucet (lamports default: 10 native tokens). */
export async function fundedWallet(
  chain: Pick<LocalChain, 'airdrop'>,
  lamports = 10_000_000_000n,
): Promise<KeyPairSigner> {
  const wallet = await generateKeyPairSigner();
  await chain.airdrop(wallet.address, lamports);
  return wallet;
}
