// Scenario steps: one handle per case of the public endpoints (records in every verification state, attestations
// live, revoked and expired, a tokenized handle held by another wallet, primaries that stopped counting, an Agent
// handle, a handle shaped like a domain).
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { getReleaseInstruction, getTokenizeInstruction, getTransferInstruction } from '../../platform/chain/registry';
import {
  ata,
  attest,
  describe,
  exec,
  handleAccount,
  register,
  revokeAttestation,
  secpKey,
  setPrimary,
  setRecord,
  verifyEd25519,
  verifySecp,
  type Seed,
  type WalletName,
} from './seed';

/** alice: plain handle with primary; verified X1/SOL/ETH records, unverified BTC; live x + github attestations. */
export async function alice(s: Seed): Promise<void> {
  const { w } = s;
  const aliceKeys = secpKey(s, 'alice');
  await register(s, 'alice', 'alice');
  await setPrimary(s, 'alice', 'alice');
  await setRecord(s, 'alice', 'alice', 'address', 'X1', w.alice.address);
  await verifyEd25519(s, 'alice', 'alice', 'X1', w.alice);
  await setRecord(s, 'alice', 'alice', 'address', 'SOL', w.aliceSol.address);
  await verifyEd25519(s, 'alice', 'alice', 'SOL', w.aliceSol);
  await setRecord(s, 'alice', 'alice', 'address', 'ETH', aliceKeys.eth);
  await verifySecp(s, 'alice', 'alice', 'ETH', aliceKeys.privateKey);
  await setRecord(s, 'alice', 'alice', 'address', 'BTC', aliceKeys.btc);
  await setRecord(s, 'alice', 'alice', 'text', 'url', 'https://alice.example');
  await attest(s, 'alice', 'x', 'alice_onchain');
  await attest(s, 'alice', 'github', 'alice-dev');
  await describe(
    s,
    'alice',
    'alice',
    'alice',
    'plain handle with primary; X1/SOL/ETH verified, BTC unverified; x + github attestations',
  );
}

/** bob: the opposite verification states (X1/SOL/ETH unverified, BTC verified); revoked x, expired github. */
export async function bob(s: Seed): Promise<void> {
  const { core, w } = s;
  const bobKeys = secpKey(s, 'bob');
  await register(s, 'bob', 'bob');
  await setPrimary(s, 'bob', 'bob');
  await setRecord(s, 'bob', 'bob', 'address', 'X1', w.bob.address);
  await setRecord(s, 'bob', 'bob', 'address', 'SOL', w.aliceSol.address);
  await setRecord(s, 'bob', 'bob', 'address', 'ETH', bobKeys.eth);
  await setRecord(s, 'bob', 'bob', 'address', 'BTC', bobKeys.btc);
  await verifySecp(s, 'bob', 'bob', 'BTC', bobKeys.privateKey);
  const bobX = await attest(s, 'bob', 'x', 'bob_builds');
  await revokeAttestation(s, bobX);
  await attest(s, 'bob', 'github', 'bob-gh', core.ledger.blockTime(core.ledger.slot) - 86_400);
  await describe(
    s,
    'bob',
    'bob',
    'bob',
    'plain handle with primary; X1/SOL/ETH unverified, BTC verified; revoked x, expired github',
  );
}

/**
 * vault: tokenized by carol, NFT now held by dave (recorded owner carol ≠ holder dave). Both set a primary:
 * carol's (set while she held authority) lost it; dave's counts.
 */
export async function vault(s: Seed): Promise<void> {
  const { programId, w, mintSigners } = s;
  const handle = await register(s, 'vault', 'carol');
  await setPrimary(s, 'carol', 'vault');
  const vaultMint = mintSigners.vaultNft.address;
  const carolAta = await ata(w.carol.address, vaultMint);
  await exec(
    s,
    w.carol,
    [
      getTokenizeInstruction({
        programId,
        owner: w.carol.address,
        handle,
        mint: vaultMint,
        ownerTokenAccount: carolAta,
      }),
    ],
    [mintSigners.vaultNft],
  );
  const daveAta = await ata(w.dave.address, vaultMint);
  await exec(s, w.carol, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: w.carol,
      ata: daveAta,
      owner: w.dave.address,
      mint: vaultMint,
    }),
    getTransferCheckedInstruction({
      source: carolAta,
      mint: vaultMint,
      destination: daveAta,
      authority: w.carol,
      amount: 1n,
      decimals: 0,
    }),
  ]);
  await setPrimary(s, 'dave', 'vault');
  await describe(s, 'vault', 'carol', 'dave', 'tokenized; NFT held by dave, recorded owner carol');
}

async function release(s: Seed, owner: WalletName, name: string): Promise<void> {
  const { programId, w } = s;
  await exec(s, w[owner], [
    getReleaseInstruction({ programId, owner: w[owner].address, handle: await handleAccount(s, name) }),
  ]);
}

/**
 * phoenix: erin set her primary, released the handle and registered it again (epoch 2): the pointer predates
 * the current registration although erin holds authority again.
 */
export async function phoenix(s: Seed): Promise<void> {
  await register(s, 'phoenix', 'erin');
  await setPrimary(s, 'erin', 'phoenix');
  await release(s, 'erin', 'phoenix');
  await register(s, 'phoenix', 'erin');
  await describe(s, 'phoenix', 'erin', 'erin', 're-registered (epoch 2); erin’s primary was set during epoch 1');
}

/** drift: grace set her primary, then transferred the handle to heidi: grace lost authority. */
export async function drift(s: Seed): Promise<void> {
  const { programId, w } = s;
  await register(s, 'drift', 'grace');
  await setPrimary(s, 'grace', 'drift');
  await exec(s, w.grace, [
    getTransferInstruction({
      programId,
      owner: w.grace.address,
      handle: await handleAccount(s, 'drift'),
      newOwner: w.heidi.address,
    }),
  ]);
  await describe(s, 'drift', 'heidi', 'heidi', 'transferred from grace to heidi; grace’s primary still points here');
}

/** lapsed: judy set her primary, then released the handle: the pointer names a handle nobody holds. */
export async function lapsed(s: Seed): Promise<void> {
  await register(s, 'lapsed', 'judy');
  await setPrimary(s, 'judy', 'lapsed');
  await release(s, 'judy', 'lapsed');
  await describe(s, 'lapsed', 'judy', null, 'released by judy; judy’s primary still points at it');
}

/** scout: an Agent handle (handleType 3) with its manifest (on the demo agent host) and MCP endpoint. */
export async function scout(s: Seed): Promise<void> {
  const { origin, w } = s;
  await register(s, 'scout', 'ivan', 3);
  await setPrimary(s, 'ivan', 'scout');
  await setRecord(s, 'ivan', 'scout', 'text', 'agent.manifest', `${origin}/scout/manifest.json`);
  await setRecord(s, 'ivan', 'scout', 'text', 'agent.mcp', 'https://agents.example/scout/mcp');
  await setRecord(s, 'ivan', 'scout', 'address', 'X1', w.ivan.address);
  await describe(s, 'scout', 'ivan', 'ivan', 'Agent handle (type 3) with agent.manifest and agent.mcp');
}

/** satoshi: handle `satoshi` and dotted handle `satoshi.x1`; with domain `satoshi.x1`, `@satoshi.x1` is ambiguous. */
export async function satoshi(s: Seed): Promise<void> {
  await register(s, 'satoshi', 'satoshi');
  await register(s, 'satoshi.x1', 'satoshi');
  await describe(
    s,
    'satoshi',
    'satoshi',
    'satoshi',
    'plain handle, no primary; its owner also holds the domain satoshi.x1',
  );
  await describe(
    s,
    'satoshi.x1',
    'satoshi',
    'satoshi',
    'dotted handle that is also domain-shaped (see domain satoshi.x1)',
  );
}
