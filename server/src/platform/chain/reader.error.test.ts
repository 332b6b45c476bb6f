import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createChainReader } from './reader';
import { ChainError, type RpcCallEvent } from './types';
import { ACCOUNT_DISCRIMINATORS, encodeHandle, encodeRecord, findHandlePda, findRecordPda } from './registry';
import { createFakeChain, RpcErrorReply } from '@sigil/test/support/fake-rpc';
import { PROGRAM_ID, putHandle, testAddress } from '@sigil/test/support/fake-rpc-accounts';

const OWNER = testAddress(1);

function setup(timeoutMs = 1000) {
  const chain = createFakeChain();
  const events: RpcCallEvent[] = [];
  const reader = createChainReader({
    rpcUrl: 'http://fake.invalid',
    programId: PROGRAM_ID,
    timeoutMs,
    transport: chain.transport,
    onRpcCall: (e) => events.push(e),
  });
  return { chain, reader, events };
}

async function chainError(promise: Promise<unknown>): Promise<ChainError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ChainError);
    return err as ChainError;
  }
  throw new Error('expected a ChainError, the read succeeded');
}

describe('chain reader: unreachable', () => {
  it('a transport failure is ChainError(unreachable) and is reported', async () => {
    const { chain, reader, events } = setup();
    chain.overrides.set('getAccountInfo', () => {
      throw new TypeError('fetch failed');
    });
    const err = await chainError(reader.getHandle('alice'));
    expect(err.kind).toBe('unreachable');
    expect(err.message).toBe('getAccountInfo: fetch failed');
    expect(events.map((e) => [e.method, e.error])).toEqual([['getAccountInfo', 'unreachable']]);
  });

  it('a JSON-RPC error answer is ChainError(unreachable)', async () => {
    const { chain, reader } = setup();
    chain.overrides.set('getSlot', () => {
      throw new RpcErrorReply(-32005, 'Node is behind by 42 slots');
    });
    expect((await chainError(reader.getSlot())).kind).toBe('unreachable');
  });

  it('a transport that never answers times out as unreachable, within the bound', async () => {
    const { chain, reader, events } = setup(80);
    chain.overrides.set('getGenesisHash', () => new Promise(() => {}));
    const started = Date.now();
    const err = await chainError(reader.getGenesisHash());
    expect(err.kind).toBe('unreachable');
    expect(err.message).toBe('getGenesisHash: no answer within 80 ms');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(events[0].error).toBe('unreachable');
  });

  describe('over real HTTP', () => {
    let server: Server | undefined;
    afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));
    const listen = (handler: Parameters<typeof createServer>[1]) =>
      new Promise<string>((resolve) => {
        server = createServer(handler);
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`));
      });

    it('HTTP 500 is unreachable', async () => {
      const url = await listen((_req, res) => res.writeHead(500).end('oops'));
      const reader = createChainReader({ rpcUrl: url, programId: PROGRAM_ID, timeoutMs: 1000 });
      expect((await chainError(reader.getSlot())).kind).toBe('unreachable');
    });

    it('a server that never answers is unreachable after timeoutMs, and the request is aborted', async () => {
      let closed = false;
      const url = await listen((req) => req.on('close', () => (closed = true)));
      const reader = createChainReader({ rpcUrl: url, programId: PROGRAM_ID, timeoutMs: 100 });
      const err = await chainError(reader.getSlot());
      expect(err.kind).toBe('unreachable');
      await new Promise((r) => setTimeout(r, 50));
      expect(closed).toBe(true);
      server!.closeAllConnections();
    });

    it('a port with nothing listening is unreachable', async () => {
      const url = await listen(() => {});
      await new Promise<void>((done) => server!.close(() => done()));
      server = undefined;
      const reader = createChainReader({ rpcUrl: url, programId: PROGRAM_ID, timeoutMs: 1000 });
      expect((await chainError(reader.getGenesisHash())).kind).toBe('unreachable');
    });

    it('reads a real JSON-RPC answer', async () => {
      const url = await listen((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const { id, method } = JSON.parse(body);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'getSlot' ? 12345 : null }));
        });
      });
      const reader = createChainReader({ rpcUrl: url, programId: PROGRAM_ID, timeoutMs: 1000 });
      expect(await reader.getSlot()).toBe(12345n);
    });

    // The account reads parse with plain JSON.parse (transport.ts createPooledRpcTransport 'plain'): pin what they
    // accept and refuse, byte for byte as a node sends it.
    const answering = (text: (method: string, id: string) => string) =>
      listen((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const { id, method } = JSON.parse(body);
          res.setHeader('content-type', 'application/json');
          res.end(text(method, id));
        });
      });
    const handleAnswer = async (slot: string, value: string) => {
      const chain = createFakeChain();
      const alice = await putHandle(chain, { name: 'alice', owner: OWNER });
      const data = Buffer.from(chain.accounts.get(alice.address)!.data).toString('base64');
      return {
        alice,
        text: (id: string) =>
          `{"jsonrpc":"2.0","id":"${id}","result":{"context":{"slot":${slot},"apiVersion":"2.2.0"},"value":${value.replace('DATA', data)}}}`,
      };
    };

    it('plain path: decodes an account whose u64 fields exceed 2^53 (ignored), with the exact slot', async () => {
      const { alice, text } = await handleAnswer(
        '987654321',
        `{"data":["DATA","base64"],"executable":false,"lamports":18446744073709551615,"owner":"${PROGRAM_ID}","rentEpoch":18446744073709551615,"space":300}`,
      );
      const url = await answering((_m, id) => text(id));
      const reader = createChainReader({ rpcUrl: url, programId: PROGRAM_ID, timeoutMs: 1000 });
      const read = await reader.getHandle('alice');
      expect(read.slot).toBe(987654321n);
      expect(read.value?.address).toBe(alice.address);
    });

    it('plain path: a slot that is not a safe integer, or an answer without value, is malformed', async () => {
      for (const [slot, value] of [
        ['9007199254740993', 'null'],
        ['"12"', 'null'],
        ['-1', 'null'],
      ] as const) {
        const { text } = await handleAnswer(slot, value);
        const url = await answering((_m, id) => text(id));
        const reader = createChainReader({ rpcUrl: url, programId: PROGRAM_ID, timeoutMs: 1000 });
        expect((await chainError(reader.getHandle('alice'))).kind, slot).toBe('malformed');
        await new Promise<void>((done) => server!.close(() => done()));
        server = undefined;
      }
      const url = await answering((_m, id) => `{"jsonrpc":"2.0","id":"${id}","result":{"context":{"slot":5}}}`);
      const reader = createChainReader({ rpcUrl: url, programId: PROGRAM_ID, timeoutMs: 1000 });
      expect((await chainError(reader.getHandle('alice'))).kind).toBe('malformed');
    });

    it('plain path: a JSON-RPC error object or an answer without result is unreachable', async () => {
      const url = await answering(
        (_m, id) => `{"jsonrpc":"2.0","id":"${id}","error":{"code":-32005,"message":"Node is behind"}}`,
      );
      const reader = createChainReader({ rpcUrl: url, programId: PROGRAM_ID, timeoutMs: 1000 });
      const err = await chainError(reader.getAttestations(OWNER));
      expect(err.kind).toBe('unreachable');
      expect(err.message).toBe('getProgramAccounts: JSON-RPC error -32005: Node is behind');
      await new Promise<void>((done) => server!.close(() => done()));
      const url2 = await answering((_m, id) => `{"jsonrpc":"2.0","id":"${id}"}`);
      const reader2 = createChainReader({ rpcUrl: url2, programId: PROGRAM_ID, timeoutMs: 1000 });
      expect((await chainError(reader2.getHandle('alice'))).kind).toBe('unreachable');
    });
  });
});

describe('chain reader: the batched handle + attestations read', () => {
  it('an attestation-scan error or undecodable list gives attestations null; the handle still answers', async () => {
    const { chain, reader, events } = setup();
    const alice = await putHandle(chain, { name: 'alice', owner: OWNER });
    chain.overrides.set('getProgramAccounts', () => {
      throw new RpcErrorReply(-32010, 'scan too expensive');
    });
    const read = await reader.getHandleWithAttestations('alice');
    expect(read.handle.value?.address).toBe(alice.address);
    expect(read.attestations).toBeNull();
    expect(events.map((e) => [e.method, e.error])).toEqual([
      ['getProgramAccounts', 'unreachable'],
      ['getAccountInfo', undefined],
    ]);
    chain.overrides.set('getProgramAccounts', () => [
      { pubkey: OWNER, account: { data: ['AAAA', 'base64'], owner: PROGRAM_ID } },
    ]);
    expect((await reader.getHandleWithAttestations('alice')).attestations).toBeNull();
  });

  it('the handle part fails the read as getHandle does: an RPC error is unreachable, a bad account malformed', async () => {
    const { chain, reader } = setup();
    await putHandle(chain, { name: 'alice', owner: OWNER });
    chain.overrides.set('getAccountInfo', () => {
      throw new RpcErrorReply(-32005, 'Node is behind');
    });
    expect((await chainError(reader.getHandleWithAttestations('alice'))).kind).toBe('unreachable');
    chain.overrides.set('getAccountInfo', () => ({
      context: { slot: 5 },
      value: { data: ['AAAA', 'base64'], owner: PROGRAM_ID },
    }));
    expect((await chainError(reader.getHandleWithAttestations('alice'))).kind).toBe('malformed');
  });

  it('a transport failure fails the whole read as unreachable, reported for both calls', async () => {
    const { chain, reader, events } = setup();
    chain.overrides.set('getAccountInfo', () => {
      throw new TypeError('socket hang up'); // not an RPC error: the fake transport itself throws
    });
    expect((await chainError(reader.getHandleWithAttestations('alice'))).kind).toBe('unreachable');
    expect(events.map((e) => [e.method, e.error])).toEqual([
      ['getProgramAccounts', 'unreachable'],
      ['getAccountInfo', 'unreachable'],
    ]);
  });
});

describe('chain reader: malformed', () => {
  it('wrong discriminator at a handle PDA → malformed naming the account, reported as malformed', async () => {
    const { chain, reader, events } = setup();
    const [pda] = await findHandlePda(PROGRAM_ID, 'alice');
    const data = new Uint8Array(120);
    data.set(ACCOUNT_DISCRIMINATORS.Record);
    chain.accounts.set(pda, { owner: PROGRAM_ID, data });
    const err = await chainError(reader.getHandle('alice'));
    expect(err.kind).toBe('malformed');
    expect(err.account).toBe(pda);
    expect(events.map((e) => [e.method, e.error])).toEqual([['getAccountInfo', 'malformed']]);
  });

  it('truncated data and bad UTF-8 → malformed', async () => {
    const { chain, reader } = setup();
    const stored = await putHandle(chain, { name: 'alice', owner: OWNER });
    const good = chain.accounts.get(stored.address)!.data;
    chain.accounts.set(stored.address, { owner: PROGRAM_ID, data: good.subarray(0, 60) });
    expect((await chainError(reader.getHandle('alice'))).kind).toBe('malformed');
    const badUtf8 = Uint8Array.from(good);
    badUtf8[103] = 0xff;
    chain.accounts.set(stored.address, { owner: PROGRAM_ID, data: badUtf8 });
    expect((await chainError(reader.getHandleByAddress(stored.address))).account).toBe(stored.address);
  });

  it('an account at the PDA not owned by the program → malformed', async () => {
    const { chain, reader } = setup();
    const stored = await putHandle(chain, { name: 'alice', owner: OWNER });
    chain.accounts.get(stored.address)!.owner = testAddress(9);
    const err = await chainError(reader.getHandle('alice'));
    expect(err.kind).toBe('malformed');
    expect(err.account).toBe(stored.address);
  });

  it('a handle account storing another name than its PDA → malformed', async () => {
    const { chain, reader } = setup();
    const [pda, bump] = await findHandlePda(PROGRAM_ID, 'alice');
    chain.accounts.set(pda, {
      owner: PROGRAM_ID,
      data: encodeHandle({
        owner: OWNER,
        handleType: 0,
        tokenized: false,
        mint: null,
        registrationEpoch: 1n,
        registeredAt: 1,
        registeredSlot: 1n,
        bump,
        name: 'mallory',
      }),
    });
    expect((await chainError(reader.getHandle('alice'))).kind).toBe('malformed');
  });

  it('data not base64-encoded → malformed', async () => {
    const { chain, reader } = setup();
    chain.overrides.set('getAccountInfo', () => ({
      context: { slot: 1 },
      value: { data: 'plain', owner: PROGRAM_ID, lamports: 1, executable: false, rentEpoch: 0, space: 5 },
    }));
    expect((await chainError(reader.getHandle('alice'))).kind).toBe('malformed');
  });

  it('one malformed record among good ones fails the whole read (never a partial answer)', async () => {
    const { chain, reader } = setup();
    const alice = await putHandle(chain, { name: 'alice', owner: OWNER });
    const [good, bump] = await findRecordPda(PROGRAM_ID, alice.address, 'address', 'SOL');
    const record = {
      handle: alice.address,
      kind: 'address' as const,
      authority: OWNER,
      handleEpoch: 1n,
      verified: false,
      verifiedAt: 0,
      updatedAt: 1,
      updatedSlot: 1n,
      bump,
      key: 'SOL',
      value: 'x',
    };
    chain.accounts.set(good, { owner: PROGRAM_ID, data: encodeRecord(record) });
    const [bad] = await findRecordPda(PROGRAM_ID, alice.address, 'address', 'ETH');
    const broken = encodeRecord({ ...record, key: 'ETH' });
    broken[81] = 7; // `verified` must be 0 or 1
    chain.accounts.set(bad, { owner: PROGRAM_ID, data: broken });
    const err = await chainError(reader.getRecords(alice.address));
    expect(err.kind).toBe('malformed');
    expect(err.account).toBe(bad);
  });

  it('getVersion without solana-core → malformed', async () => {
    const { chain, reader } = setup();
    chain.overrides.set('getVersion', () => ({}));
    expect((await chainError(reader.getVersion())).kind).toBe('malformed');
  });
});
