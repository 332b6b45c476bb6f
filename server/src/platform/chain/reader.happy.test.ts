import { describe, expect, it } from 'vitest';
import { createChainReader } from './reader';
import type { RpcCallEvent } from './types';
import {
  encodeAttestation,
  encodeDomain,
  encodeInvoice,
  encodePrimaryPointer,
  encodeRecord,
  findAttestationPda,
  findDomainPda,
  findNamespacePda,
  findPrimaryPointerPda,
  findRecordPda,
  type RecordData,
} from './registry';
import { createFakeChain } from '@sigil/test/support/fake-rpc';
import { PROGRAM_ID, putHandle, testAddress } from '@sigil/test/support/fake-rpc-accounts';

const OWNER = testAddress(1);
const OTHER = testAddress(2);

function setup() {
  const chain = createFakeChain();
  const events: RpcCallEvent[] = [];
  const reader = createChainReader({
    rpcUrl: 'http://fake.invalid',
    programId: PROGRAM_ID,
    timeoutMs: 1000,
    transport: chain.transport,
    onRpcCall: (e) => events.push(e),
  });
  return { chain, reader, events };
}

describe('chain reader: reads and decodes', () => {
  it('getHandle: PDA by name, base64 + confirmed, slot of the answer, one metrics event', async () => {
    const { chain, reader, events } = setup();
    const stored = await putHandle(chain, { name: 'alice', owner: OWNER, handleType: 3 });
    chain.slot = 4242n;
    const got = await reader.getHandle('alice');
    expect(got).toEqual({ slot: 4242n, value: stored });
    expect(chain.calls).toEqual([
      { method: 'getAccountInfo', params: [stored.address, { encoding: 'base64', commitment: 'confirmed' }] },
    ]);
    expect(events).toHaveLength(1);
    expect(events[0].method).toBe('getAccountInfo');
    expect(events[0].error).toBeUndefined();
    expect(events[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it('getHandle: null when no account; explicit commitment is passed through', async () => {
    const { chain, reader } = setup();
    expect(await reader.getHandle('nobody', 'processed')).toEqual({ slot: 1000n, value: null });
    expect(chain.calls[0].params[1]).toEqual({ encoding: 'base64', commitment: 'processed' });
  });

  it('getHandleByAddress', async () => {
    const { chain, reader } = setup();
    const stored = await putHandle(chain, { name: 'bob', owner: OWNER });
    expect(await reader.getHandleByAddress(stored.address)).toEqual(stored);
    expect(await reader.getHandleByAddress(testAddress(77))).toBeNull();
  });

  it('getPrimary', async () => {
    const { chain, reader } = setup();
    const handle = await putHandle(chain, { name: 'alice', owner: OWNER });
    const [pda, bump] = await findPrimaryPointerPda(PROGRAM_ID, OWNER);
    const pointer = { wallet: OWNER, handle: handle.address, handleEpoch: 1n, setAt: 5, setSlot: 150n };
    chain.accounts.set(pda, { owner: PROGRAM_ID, data: encodePrimaryPointer({ ...pointer, bump }) });
    expect(await reader.getPrimary(OWNER)).toEqual({ address: pda, ...pointer });
    expect(await reader.getPrimary(OTHER)).toBeNull();
  });

  it('getRecords: memcmp on discriminator and handle offset 8, only this handle, sorted', async () => {
    const { chain, reader } = setup();
    const alice = await putHandle(chain, { name: 'alice', owner: OWNER });
    const bob = await putHandle(chain, { name: 'bob', owner: OTHER });
    const base: Omit<RecordData, 'kind' | 'key' | 'value' | 'bump' | 'handle'> = {
      authority: OWNER,
      handleEpoch: 1n,
      verified: true,
      verifiedAt: 9,
      updatedAt: 10,
      updatedSlot: 11n,
    };
    const put = async (handle: typeof alice, kind: 'address' | 'text', key: string, value: string) => {
      const [pda, bump] = await findRecordPda(PROGRAM_ID, handle.address, kind, key);
      chain.accounts.set(pda, {
        owner: PROGRAM_ID,
        data: encodeRecord({ ...base, handle: handle.address, kind, key, value, bump }),
      });
      return { address: pda, ...base, handle: handle.address, kind, key, value };
    };
    const text = await put(alice, 'text', 'agent.mcp', 'https://mcp');
    const sol = await put(alice, 'address', 'SOL', 'So1');
    const eth = await put(alice, 'address', 'ETH', '0xabc');
    await put(bob, 'address', 'SOL', 'other');

    expect(await reader.getRecords(alice.address)).toEqual([eth, sol, text]);
    expect(chain.calls[0]).toEqual({
      method: 'getProgramAccounts',
      params: [
        PROGRAM_ID,
        {
          encoding: 'base64',
          commitment: 'confirmed',
          filters: [
            // base58 of sha256("account:Record")[0..8]
            { memcmp: { offset: 0, bytes: 'jdxzFX4Rhvz', encoding: 'base58' } },
            { memcmp: { offset: 8, bytes: alice.address, encoding: 'base58' } },
          ],
        },
      ],
    });
  });

  it('getAttestations: sorted by platform', async () => {
    const { chain, reader } = setup();
    const alice = await putHandle(chain, { name: 'alice', owner: OWNER });
    const put = async (platform: string, subject: string) => {
      const [pda, bump] = await findAttestationPda(PROGRAM_ID, alice.address, platform);
      const att = {
        handle: alice.address,
        issuer: OTHER,
        issuedAt: 1,
        expiresAt: 0,
        revoked: false,
        platform,
        subject,
      };
      chain.accounts.set(pda, { owner: PROGRAM_ID, data: encodeAttestation({ ...att, bump }) });
      return { address: pda, ...att };
    };
    const x = await put('x', 'alice_x');
    const gh = await put('github', 'alice-gh');
    expect(await reader.getAttestations(alice.address)).toEqual([gh, x]);
  });

  it('getHandleWithAttestations: the same answers as getHandle + getAttestations, in ONE batched request', async () => {
    const { chain, reader } = setup();
    const alice = await putHandle(chain, { name: 'alice', owner: OWNER });
    for (const platform of ['x', 'github']) {
      const [pda, bump] = await findAttestationPda(PROGRAM_ID, alice.address, platform);
      chain.accounts.set(pda, {
        owner: PROGRAM_ID,
        data: encodeAttestation({
          handle: alice.address,
          issuer: OTHER,
          issuedAt: 1,
          expiresAt: 0,
          revoked: false,
          platform,
          subject: `s_${platform}`,
          bump,
        }),
      });
    }
    const separate = {
      handle: await reader.getHandle('alice', 'confirmed'),
      attestations: await reader.getAttestations(alice.address, 'confirmed'),
    };
    const separateCalls = chain.calls.splice(0);
    chain.requests = 0;
    expect(await reader.getHandleWithAttestations('alice', 'confirmed')).toEqual(separate);
    expect(separate.attestations.map((a) => a.platform)).toEqual(['github', 'x']);
    expect(chain.requests).toBe(1);
    expect(chain.calls).toEqual(separateCalls); // the same two calls, byte for byte, in one batch
    // No such handle: value null at the slot; the attestation scan still answers (empty).
    expect(await reader.getHandleWithAttestations('nobody')).toEqual({
      handle: { value: null, slot: 1000n },
      attestations: [],
    });
  });

  it('getDomain: namespace PDA by tld, domain PDA by (namespace, label)', async () => {
    const { chain, reader } = setup();
    const [ns] = await findNamespacePda(PROGRAM_ID, 'xnt');
    const [pda, bump] = await findDomainPda(PROGRAM_ID, ns, 'shop');
    const domain = {
      namespace: ns,
      owner: OWNER,
      tokenized: false,
      mint: null,
      registeredAt: 3,
      registeredSlot: 4n,
      label: 'shop',
      tld: 'xnt',
    };
    chain.accounts.set(pda, { owner: PROGRAM_ID, data: encodeDomain({ ...domain, bump }) });
    expect(await reader.getDomain('shop', 'xnt')).toEqual({ slot: 1000n, value: { address: pda, ...domain } });
    expect(await reader.getDomain('shop', 'x1')).toEqual({ slot: 1000n, value: null });
  });

  // kit sends no commitment for `finalized`: it is the JSON-RPC default, so the node (and our local chain) must apply it.
  it('getInvoice: finalized by default (sent as the absent commitment)', async () => {
    const { chain, reader } = setup();
    const at = testAddress(50);
    const invoice = {
      payee: OWNER,
      paidBy: null,
      mint: null,
      amount: 5n,
      fee: 0n,
      expiresAt: 9,
      status: 0 as const,
      boundHandle: null,
      createdAt: 1,
      createdSlot: 2n,
      paidAt: 0,
      id: 3n,
      memo: 'tea',
    };
    chain.accounts.set(at, { owner: PROGRAM_ID, data: encodeInvoice({ ...invoice, bump: 255 }) });
    expect(await reader.getInvoice(at)).toEqual({ address: at, ...invoice });
    expect(chain.calls[0].params[1]).toEqual({ encoding: 'base64' });
  });

  it('getSlot, getGenesisHash, getVersion', async () => {
    const { chain, reader } = setup();
    chain.slot = 77n;
    expect(await reader.getSlot()).toBe(77n);
    expect(await reader.getGenesisHash()).toBe('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG');
    expect(await reader.getVersion()).toEqual({ 'solana-core': '2.2.0', 'feature-set': 3294202862 });
    expect(reader.programId).toBe(PROGRAM_ID);
    expect(reader.rpcUrl).toBe('http://fake.invalid');
  });
});
