// The local chain's Geyser endpoint read with the stock Yellowstone client, unmodified: the unary reads, blocks and
// transactions subscriptions with their filters, from_slot replay, ping/pong, and transaction errors in the
// protocol's bincode form (checked against the client's own decoder).
import { generateKeyPairSigner, getBase58Decoder, type Address } from '@solana/kit';
import Client, {
  CommitmentLevel,
  SubscribeRequest,
  txErrDecode,
  type ClientDuplexStream,
  type SubscribeUpdate,
} from '@triton-one/yellowstone-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionErrorBytes } from './geyser-blocks';
import { startLocalChain, type LocalChain } from './index';
import type { TransactionErrorJson } from './ledger';

let chain: LocalChain;
let client: Client;
let wallet: Address;
let walletSignature: string;

const bs58Text = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  await chain.advance(3);
  await chain.airdrop((await generateKeyPairSigner()).address, 1_000_000_000n);
  wallet = (await generateKeyPairSigner()).address;
  walletSignature = await chain.airdrop(wallet, 2_000_000_000n);
  await chain.airdrop((await generateKeyPairSigner()).address, 1_000_000_000n);
  await chain.finalizeAll();
  client = new Client(chain.geyserUrl, undefined, undefined);
  await client.connect();
}, 60_000);
afterAll(() => chain?.close());

/** Updates of a stream until `last` says stop (the stream is then closed). */
async function readUntil(stream: ClientDuplexStream, last: (u: SubscribeUpdate) => boolean) {
  const out: SubscribeUpdate[] = [];
  for await (const update of stream as AsyncIterable<SubscribeUpdate>) {
    out.push(update);
    if (last(update)) break;
  }
  return out;
}

describe('Geyser endpoint: unary reads', () => {
  it('answers GetSlot, GetBlockHeight, GetLatestBlockhash, IsBlockhashValid, Ping, GetVersion, SubscribeReplayInfo', async () => {
    const finalized = chain.slot('finalized');
    expect(await client.getSlot(CommitmentLevel.FINALIZED)).toEqual({ slot: String(finalized) });
    expect(await client.getSlot(CommitmentLevel.PROCESSED)).toEqual({ slot: String(chain.slot('processed')) });
    expect(await client.getBlockHeight(CommitmentLevel.FINALIZED)).toEqual({ blockHeight: String(finalized) });
    const latest = await client.getLatestBlockhash(CommitmentLevel.FINALIZED);
    expect(latest).toEqual({
      slot: String(finalized),
      blockhash: chain.ledger.blockhashAt(finalized),
      lastValidBlockHeight: String(finalized + 150n),
    });
    expect(await client.isBlockhashValid(latest.blockhash)).toEqual({
      slot: String(chain.slot('processed')),
      valid: true,
    });
    expect((await client.isBlockhashValid('11111111111111111111111111111111')).valid).toBe(false);
    expect(await client.ping(7)).toEqual({ count: 7 });
    expect(JSON.parse((await client.getVersion()).version)).toEqual({
      version: { package: 'sigil-localchain', version: '2.2.0' },
    });
    expect(await client.subscribeReplayInfo()).toEqual({ firstAvailable: '0' });
  });
});

describe('Geyser endpoint: Subscribe', () => {
  it('replays blocks from from_slot at FINALIZED, one per slot, with every transaction in block order', async () => {
    const tip = chain.slot('finalized');
    const stream = await client.subscribe(
      SubscribeRequest.fromPartial({
        blocks: { all: {} },
        commitment: CommitmentLevel.FINALIZED,
        fromSlot: '1',
      }),
    );
    const updates = (await readUntil(stream, (u) => u.block?.slot === String(tip))).filter((u) => !u.ping);
    expect(updates.map((u) => u.block?.slot)).toEqual(Array.from({ length: Number(tip) }, (_, i) => String(i + 1)));
    expect(updates.every((u) => u.filters.join() === 'all')).toBe(true);
    const landed = chain.ledger.getTransaction(walletSignature, 'finalized')!;
    const block = updates.find((u) => u.block?.slot === String(landed.slot))!.block!;
    expect(block.blockhash).toBe(chain.ledger.blockhashAt(landed.slot));
    expect(block.parentSlot).toBe(String(landed.slot - 1n));
    expect(block.blockTime).toEqual({ timestamp: String(chain.ledger.blockTime(landed.slot)) });
    expect(block.transactions.map((t) => bs58Text(t.signature))).toEqual(
      chain.ledger.blockTransactions(landed.slot).map((r) => r.signature),
    );
    const info = block.transactions.find((t) => bs58Text(t.signature) === walletSignature)!;
    expect(info.meta!.preBalances).toEqual(landed.meta.preBalances.map(String));
    expect(info.meta!.postBalances).toEqual(landed.meta.postBalances.map(String));
    expect(info.meta!.err).toBeUndefined();
    expect(info.transaction!.message!.accountKeys.map((k) => bs58Text(k))).toEqual(landed.accountKeys);
  });

  it('a transactions filter sends only the matching transactions; a blocks filter narrows its block', async () => {
    const landed = chain.ledger.getTransaction(walletSignature, 'finalized')!;
    const stream = await client.subscribe(
      SubscribeRequest.fromPartial({
        transactions: { mine: { accountInclude: [wallet], failed: false } },
        blocks: { narrowed: { accountInclude: [wallet] } },
        commitment: CommitmentLevel.FINALIZED,
        fromSlot: '1',
      }),
    );
    const updates = await readUntil(stream, (u) => u.block?.slot === String(landed.slot));
    const transactions = updates.filter((u) => u.transaction);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]!.filters).toEqual(['mine']);
    expect(transactions[0]!.transaction!.slot).toBe(String(landed.slot));
    expect(bs58Text(transactions[0]!.transaction!.transaction!.signature)).toBe(walletSignature);
    const block = updates.at(-1)!.block!;
    expect(block.transactions.map((t) => bs58Text(t.signature))).toEqual([walletSignature]);
    expect(block.executedTransactionCount).toBe(String(chain.ledger.blockTransactions(landed.slot).length));
  });

  it('answers a ping request with a pong of the same id, and follows the chain as it finalizes', async () => {
    const stream = await client.subscribe(
      SubscribeRequest.fromPartial({ blocks: { all: {} }, commitment: CommitmentLevel.FINALIZED }),
    );
    stream.write(SubscribeRequest.fromPartial({ ping: { id: 42 } }));
    const next = String(chain.slot('finalized') + 1n);
    const updates = await readUntil(stream, (u) => {
      if (u.pong) void chain.advance(1);
      return u.block !== undefined;
    });
    expect(updates.find((u) => u.pong)).toMatchObject({ filters: [], pong: { id: 42 } });
    expect(updates.at(-1)!.block!.slot).toBe(next);
  });
});

describe('Geyser endpoint: transaction errors', () => {
  const cases: [TransactionErrorJson, number[]][] = [
    ['BlockhashNotFound', [7, 0, 0, 0]],
    [{ InstructionError: [0, { Custom: 1 }] }, [8, 0, 0, 0, 0, 25, 0, 0, 0, 1, 0, 0, 0]],
    [{ InstructionError: [2, 'InsufficientFunds'] }, [8, 0, 0, 0, 2, 5, 0, 0, 0]],
    [{ DuplicateInstruction: 3 }, [30, 0, 0, 0, 3]],
    [{ InsufficientFundsForRent: { account_index: 1 } }, [31, 0, 0, 0, 1]],
    [{ ProgramExecutionTemporarilyRestricted: { account_index: 4 } }, [35, 0, 0, 0, 4]],
    ['CommitCancelled', [38, 0, 0, 0]],
  ];
  it.each(cases)('%j is written as bincode the stock client decodes back', (json, bytes) => {
    const encoded = transactionErrorBytes(json);
    expect([...encoded]).toEqual(bytes);
    expect(txErrDecode.decode(encoded)).toEqual(json);
  });

  it('BorshIoError travels without its message (current Solana has none)', () => {
    expect(txErrDecode.decode(transactionErrorBytes({ InstructionError: [1, { BorshIoError: 'eof' }] }))).toEqual({
      InstructionError: [1, 'BorshIoError'],
    });
  });
});
