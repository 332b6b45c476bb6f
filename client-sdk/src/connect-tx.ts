// The /verify-tx proof of Connect sign-in: a memo transaction signed by the wallet, built with @solana/kit (an
// optional peer of the published package: install it to use this entry, `@sigil/sdk/connect-tx`).
import {
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransaction,
  type Blockhash,
} from '@solana/kit';
import { MEMO_PROGRAM_ID } from './connect';

/**
 * The /verify-tx proof: a legacy transaction whose only instruction is a memo carrying `memo`, paid and signed by
 * the wallet. It is never broadcast, so any recent (or even stale) blockhash will do.
 */
export async function signMemoTransaction(
  memo: string,
  signer: { keyPair: CryptoKeyPair; address: string },
  blockhash: string,
): Promise<string> {
  const wallet = address(signer.address);
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(wallet, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: 0n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        { programAddress: address(MEMO_PROGRAM_ID), accounts: [], data: new TextEncoder().encode(memo) },
        m,
      ),
  );
  return getBase64EncodedWireTransaction(await signTransaction([signer.keyPair], compileTransaction(message)));
}
