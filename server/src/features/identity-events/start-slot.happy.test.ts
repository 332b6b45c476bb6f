// The identity log started after the registry's beginning (SIGIL_IDENTITY_BACKFILL_SLOT): nothing before the start
// slot is in it, and a later change to a handle registered before it — which the identity tables never saw
// registered — is named from the chain, even once the handle is released (a release keeps the handle's account, with
// its name, and zeroes its owner: docs/registry-program.md). Both dialects.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Address, KeyPairSigner } from '@solana/kit';
import type { IdentityEvent } from '@sigil/contract/identity-events';
import { describeEachDialect } from '@sigil/test/support/db';
import { exec, fundedWallet, registerName } from '@sigil/test/support/webhooks-world';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { findRecordPda, getReleaseInstruction, getSetRecordInstruction } from '../../platform/chain/registry/index';
import { createChainReader } from '../../platform/chain/reader';
import type { ChainReader } from '../../platform/chain/types';
import { runIdentityPass } from './indexer';

let chain: LocalChain;
let reader: ChainReader;
let alice: KeyPairSigner;
let startSlot: number;
const signatures: string[] = [];

async function setBio(handle: Address, value: string): Promise<string> {
  const programId = chain.programId;
  const [record] = await findRecordPda(programId, handle, 'text', 'bio');
  return exec(chain, alice, [
    getSetRecordInstruction({ programId, authority: alice.address, handle, record, kind: 'text', key: 'bio', value }),
  ]);
}

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
  alice = await fundedWallet(chain);
  // Before the log's start: a handle registered, its record set.
  const early = await registerName(chain, 'earlybird', alice);
  await setBio(early, 'before the start');
  // The log starts in a new slot: every later transaction lands in it or after.
  startSlot = Number(await chain.advance(1));
  signatures.push(await setBio(early, 'after the start'));
  signatures.push(
    await exec(chain, alice, [
      getReleaseInstruction({ programId: chain.programId, owner: alice.address, handle: early }),
    ]),
  );
  await registerName(chain, 'latecomer', alice);
  // Every block so far complete and finalized (the open slot is never served).
  await chain.advance(1);
  await chain.finalizeAll();
});
afterAll(() => chain?.close());

describeEachDialect('identity log started after the registry began', (ctx) => {
  it('from the start slot on only; a handle registered before it is named from the chain, released too; its record has no before', async () => {
    const result = await runIdentityPass(ctx.db, { chain: reader, backfillFromSlot: startSlot });
    const rows = await ctx.db.selectFrom('identity_events').select('payload').orderBy('sequence').execute();
    const events = rows.map((r) => JSON.parse(r.payload) as IdentityEvent);
    expect(events.map((e) => [e.sequence, e.type, e.handle?.name, e.change])).toEqual([
      [
        1,
        'record.set',
        'earlybird',
        expect.objectContaining({ key: 'bio', value: { before: null, after: 'after the start' } }),
      ],
      [2, 'handle.released', 'earlybird', { owner: { before: alice.address, after: null } }],
      [3, 'handle.registered', 'latecomer', expect.anything()],
    ]);
    expect(events.slice(0, 2).map((e) => e.chain.signature)).toEqual(signatures);
    expect(events.every((e) => e.chain.slot >= startSlot)).toBe(true);
    expect(result).toMatchObject({ transactions: 3, events: 3 });
  });
});
