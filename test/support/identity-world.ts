// Test fixtures for identity-change events: one of every registry change the local chain can produce, as the
// wallets that may make them. Never imported by production code.
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import {
  findAttestationPda,
  findDomainPda,
  findHandlePda,
  findNamespacePda,
  findPrimaryPointerPda,
  findRecordPda,
  getAttestInstruction,
  getCreateNamespaceInstruction,
  getRegisterInstruction,
  getRegisterUnderNamespaceInstruction,
  getReleaseInstruction,
  getRevokeAttestationInstruction,
  getSetPrimaryInstruction,
  getSetRecordInstruction,
  getTokenizeInstruction,
  getTransferInstruction,
  getVerifyRecordInstruction,
} from '../../server/src/platform/chain/registry';
import { TOKEN_PROGRAM_ADDRESS } from '../../server/src/platform/chain/programs';
import type { LocalChain } from '../../server/src/localchain/index';
import { ataOf, exec, fundedWallet } from './webhooks-world';

export interface IdentityActors {
  alice: KeyPairSigner;
  bob: KeyPairSigner;
  till: KeyPairSigner;
  attester: KeyPairSigner;
}

export async function identityActors(chain: LocalChain): Promise<IdentityActors> {
  return {
    alice: await fundedWallet(chain),
    bob: await fundedWallet(chain),
    till: await fundedWallet(chain),
    attester: await fundedWallet(chain),
  };
}

/** The event types `everyChange` produces, in order. */
export const EVERY_CHANGE_TYPES = [
  'handle.registered',
  'record.set',
  'record.set',
  'record.set',
  'record.verified',
  'primary.set',
  'attestation.created',
  'attestation.revoked',
  'handle.transferred',
  'primary.cleared',
  'handle.registered',
  'handle.tokenized',
  'handle.registered',
  'handle.released',
  'namespace.created',
  'domain.registered',
];

/**
 * `@<name>`: registered by alice; a text record set twice (the second carries the first as "before"); an X1 address
 * record set and verified by `till`; alice's primary; an attestation made and revoked; transferred to bob (alice's
 * primary is cleared). `@<name>nft`: registered and tokenized by bob. `@<name>gone`: registered and released by bob.
 * A namespace `<name>` and domain `home.<name>`. One transaction per step, each finalized.
 */
export async function everyChange(chain: LocalChain, name: string, w: IdentityActors): Promise<{ handle: Address }> {
  const programId = chain.programId;
  const [handle] = await findHandlePda(programId, name);
  const { alice, bob, till, attester } = w;
  await exec(chain, alice, [
    getRegisterInstruction({ programId, payer: alice.address, owner: alice.address, handle, name, handleType: 0 }),
  ]);
  const [bio] = await findRecordPda(programId, handle, 'text', 'bio');
  const setText = (value: string) =>
    exec(chain, alice, [
      getSetRecordInstruction({
        programId,
        authority: alice.address,
        handle,
        record: bio,
        kind: 'text',
        key: 'bio',
        value,
      }),
    ]);
  await setText('first');
  await setText('second');
  const [x1] = await findRecordPda(programId, handle, 'address', 'X1');
  await exec(chain, alice, [
    getSetRecordInstruction({
      programId,
      authority: alice.address,
      handle,
      record: x1,
      kind: 'address',
      key: 'X1',
      value: till.address,
    }),
  ]);
  await exec(
    chain,
    alice,
    [getVerifyRecordInstruction({ programId, authority: alice.address, handle, record: x1, verifier: till.address })],
    [till],
  );
  const [primary] = await findPrimaryPointerPda(programId, alice.address);
  await exec(chain, alice, [getSetPrimaryInstruction({ programId, wallet: alice.address, handle, primary })]);
  const [attestation] = await findAttestationPda(programId, handle, 'github');
  await exec(chain, attester, [
    getAttestInstruction({
      programId,
      issuer: attester.address,
      handle,
      attestation,
      platform: 'github',
      subject: `${name}-gh`,
      expiresAt: 0,
    }),
  ]);
  await exec(chain, attester, [getRevokeAttestationInstruction({ programId, issuer: attester.address, attestation })]);
  await exec(chain, alice, [
    getTransferInstruction({ programId, owner: alice.address, handle, newOwner: bob.address }),
  ]);

  const [nft] = await findHandlePda(programId, `${name}nft`);
  await exec(chain, bob, [
    getRegisterInstruction({
      programId,
      payer: bob.address,
      owner: bob.address,
      handle: nft,
      name: `${name}nft`,
      handleType: 0,
    }),
  ]);
  const mint = await generateKeyPairSigner();
  await exec(
    chain,
    bob,
    [
      getTokenizeInstruction({
        programId,
        owner: bob.address,
        handle: nft,
        mint: mint.address,
        ownerTokenAccount: await ataOf(bob.address, mint.address, TOKEN_PROGRAM_ADDRESS),
      }),
    ],
    [mint],
  );
  const [gone] = await findHandlePda(programId, `${name}gone`);
  await exec(chain, bob, [
    getRegisterInstruction({
      programId,
      payer: bob.address,
      owner: bob.address,
      handle: gone,
      name: `${name}gone`,
      handleType: 0,
    }),
  ]);
  await exec(chain, bob, [getReleaseInstruction({ programId, owner: bob.address, handle: gone })]);

  const [namespace] = await findNamespacePda(programId, name);
  await exec(chain, alice, [
    getCreateNamespaceInstruction({ programId, authority: alice.address, namespace, tld: name }),
  ]);
  const [domain] = await findDomainPda(programId, namespace, 'home');
  await exec(chain, bob, [
    getRegisterUnderNamespaceInstruction({
      programId,
      payer: bob.address,
      owner: bob.address,
      namespace,
      domain,
      label: 'home',
    }),
  ]);
  await chain.finalizeAll();
  return { handle };
}
