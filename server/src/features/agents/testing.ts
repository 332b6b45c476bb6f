// Test fixtures: write registry records and handles on a local chain with real transactions, and serve manifests
// from loopback HTTPS receivers. Never imported by production code.
import type { KeyPairSigner } from '@solana/kit';
import {
  findHandlePda,
  findRecordPda,
  getRegisterInstruction,
  getSetRecordInstruction,
  getVerifyRecordInstruction,
} from '../../platform/chain/registry';
import type { LocalChain } from '../../localchain';
import { demoWallet } from '../../localchain/scenario';
import { signedTransaction } from '../../localchain/testing';

type Chain = Pick<LocalChain, 'programId' | 'latestBlockhash' | 'sendAndConfirm'>;

export async function setRecord(
  chain: Chain,
  authority: KeyPairSigner,
  name: string,
  kind: 'address' | 'text',
  key: string,
  value: string,
): Promise<void> {
  const programId = chain.programId;
  const [handle] = await findHandlePda(programId, name);
  const [record] = await findRecordPda(programId, handle, kind, key);
  const ix = getSetRecordInstruction({ programId, authority: authority.address, handle, record, kind, key, value });
  await chain.sendAndConfirm(await signedTransaction(chain, authority, [ix]));
}

/** Sets an X1/SOL address record to `verifier`'s address and has `verifier` sign the on-chain verification. */
export async function setVerifiedEd25519Record(chain: Chain, authority: KeyPairSigner, name: string, key: 'X1' | 'SOL', verifier: KeyPairSigner) {
  await setRecord(chain, authority, name, 'address', key, verifier.address);
  const programId = chain.programId;
  const [handle] = await findHandlePda(programId, name);
  const [record] = await findRecordPda(programId, handle, 'address', key);
  const ix = getVerifyRecordInstruction({ programId, authority: authority.address, handle, record, verifier: verifier.address });
  await chain.sendAndConfirm(await signedTransaction(chain, authority, [ix], { others: [verifier] }));
}

export async function registerHandle(chain: Chain, owner: KeyPairSigner, name: string, handleType = 0): Promise<void> {
  const programId = chain.programId;
  const [handle] = await findHandlePda(programId, name);
  const ix = getRegisterInstruction({ programId, payer: owner.address, owner: owner.address, handle, name, handleType });
  await chain.sendAndConfirm(await signedTransaction(chain, owner, [ix]));
}

export { demoWallet };
