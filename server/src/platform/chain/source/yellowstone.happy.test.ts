// The Yellowstone source with the stock client (@triton-one/yellowstone-grpc) against the local chain's Geyser
// endpoint: every finalized block in slot order, each transaction exactly as the JSON-RPC reader reads it, the
// chain followed live, and resumption after the last processed slot across a new run and an endpoint restart.
import { generateKeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLogger } from '@sigil/test/support/captured-log';
import { describeIngestionSuite } from '@sigil/test/support/ingestion-suite';
import { base64Wire, fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { startLocalChain, type LocalChain } from '../../../localchain';
import { startGeyserServer } from '../../../localchain/geyser-server';
import { createChainReader } from '../reader';
import type { ChainReader } from '../types';
import type { ChainSource, SourceBlock } from './types';
import { createYellowstoneSource } from './yellowstone';

let chain: LocalChain;
let reader: ChainReader;
let failedSignature: string;

/** The first `count` blocks the source hands out after `afterSlot`, then it is stopped. */
async function take(source: ChainSource, afterSlot: bigint, count: number): Promise<SourceBlock[]> {
  const stop = new AbortController();
  const out: SourceBlock[] = [];
  for await (const block of source.blocks(afterSlot, stop.signal)) {
    out.push(block);
    if (out.length === count) stop.abort();
  }
  return out;
}

const range = (from: bigint, to: bigint) => Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i));

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: true });
  reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
  // One failed transaction that lands (skipPreflight): the block carries it with its error.
  const poor = await fundedWallet(chain, 1_000_000_000n);
  await chain.advance(1);
  const tx = await signedTransaction(chain, poor, [
    getTransferSolInstruction({ source: poor, destination: chain.programId, amount: 5_000_000_000n }),
  ]);
  failedSignature = await chain.rpc.sendTransaction(base64Wire(tx), { encoding: 'base64', skipPreflight: true }).send();
  await chain.finalizeAll();
}, 60_000);
afterAll(() => chain?.close());

describe('Yellowstone source over the local chain (stock client)', () => {
  it('hands out every finalized block after the cursor in slot order, transactions as the JSON-RPC reader reads them', async () => {
    const { logger } = capturedLogger();
    const source = createYellowstoneSource({ url: chain.geyserUrl, logger });
    expect(source.kind).toBe('yellowstone');
    const tip = chain.slot('finalized');
    // From genesis: after slot -1, slot 0 included.
    const blocks = await take(source, -1n, Number(tip) + 1);

    expect(blocks.map((b) => b.slot)).toEqual(range(0n, tip));
    const transactions = blocks.flatMap((b) => b.transactions);
    expect(BigInt(transactions.length)).toBe(chain.ledger.totalTransactions);
    for (const block of blocks) {
      expect(block.blockTime).toBe(chain.ledger.blockTime(block.slot));
      expect(block.transactions.map((t) => t.signature)).toEqual(
        chain.ledger.blockTransactions(block.slot).map((r) => r.signature),
      );
    }
    for (const tx of transactions) expect(tx).toEqual(await reader.getTransaction(tx.signature));

    const failed = transactions.find((t) => t.signature === failedSignature);
    expect(failed?.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    // The demo scenario moves tokens: token balances and inner instructions come through too.
    expect(transactions.some((t) => t.postTokenBalances.length > 0)).toBe(true);
    expect(transactions.some((t) => t.instructions.some((ix) => ix.inner.length > 0))).toBe(true);
  });

  it('follows the chain: a transaction finalized after the stream started arrives in its block', async () => {
    const { logger } = capturedLogger();
    const source = createYellowstoneSource({ url: chain.geyserUrl, logger });
    const after = chain.slot('finalized');
    const stop = new AbortController();
    const iterator = source.blocks(after, stop.signal)[Symbol.asyncIterator]();
    const first = iterator.next();
    const signature = await chain.airdrop((await generateKeyPairSigner()).address, 1_000_000_000n);
    await chain.finalizeAll();
    const seen: SourceBlock[] = [(await first).value as SourceBlock];
    while (!seen.some((b) => b.transactions.some((t) => t.signature === signature))) {
      seen.push((await iterator.next()).value as SourceBlock);
    }
    stop.abort();
    await iterator.return?.();
    expect(seen.map((b) => b.slot)).toEqual(range(after + 1n, seen.at(-1)!.slot));
    const landed = chain.ledger.getTransaction(signature, 'finalized')!;
    expect(seen.at(-1)!.slot).toBe(landed.slot);
  });

  it('keeps one stream across passes that resume where it is; another position opens a new one', async () => {
    const endpoint = await startGeyserServer({
      ledger: chain.ledger,
      faults: chain.faults,
      host: '127.0.0.1',
      port: 0,
    });
    const source = createYellowstoneSource({ url: endpoint.url, logger: capturedLogger().logger });
    try {
      const start = chain.slot('finalized') - 4n;
      const first = await take(source, start, 2);
      const second = await take(source, first[1]!.slot, 2);
      expect([...first, ...second].map((b) => b.slot)).toEqual(range(start + 1n, start + 4n));
      expect(endpoint.subscriptions).toBe(1);
      // Followed live: a pass waiting at the tip gets the next finalized block on the same stream.
      const waiting = take(source, second[1]!.slot, 1);
      await chain.airdrop((await generateKeyPairSigner()).address, 1_000_000n);
      await chain.finalizeAll();
      expect((await waiting)[0]!.slot).toBe(second[1]!.slot + 1n);
      expect(endpoint.subscriptions).toBe(1);
      // A pass that failed in the middle of a block asks again before it: a new stream, from there.
      const again = await take(source, start, 1);
      expect(again[0]!.slot).toBe(start + 1n);
      expect(endpoint.subscriptions).toBe(2);
    } finally {
      source.close?.();
      await endpoint.close();
    }
  });

  it('resumes after the last processed slot: across an endpoint restart and a new run, nothing lost or repeated', async () => {
    const first = await startGeyserServer({ ledger: chain.ledger, faults: chain.faults, host: '127.0.0.1', port: 0 });
    const url = first.url;
    const { logger, lines } = capturedLogger();
    const source = createYellowstoneSource({ url, logger, backoff: { initialMs: 20, maxMs: 200 } });
    const start = chain.slot('finalized') - 3n;
    const stop = new AbortController();
    const iterator = source.blocks(start, stop.signal)[Symbol.asyncIterator]();
    const seen: bigint[] = [];
    const next = async () => {
      const { value } = await iterator.next();
      seen.push((value as SourceBlock).slot);
    };
    while (seen.at(-1) !== chain.slot('finalized')) await next();

    // The endpoint goes away mid-stream; the chain moves on meanwhile; the endpoint comes back on the same port.
    await first.close();
    await chain.airdrop((await generateKeyPairSigner()).address, 1_000_000_000n);
    await chain.finalizeAll();
    const second = await startGeyserServer({
      ledger: chain.ledger,
      faults: chain.faults,
      host: '127.0.0.1',
      port: first.port,
    });
    try {
      while (seen.at(-1) !== chain.slot('finalized')) await next();
      expect(seen).toEqual(range(start + 1n, chain.slot('finalized')));
      expect(lines.some((l) => l.level === 'error' && l.msg === 'Geyser stream failed; reconnecting')).toBe(true);
      stop.abort();
      await iterator.return?.();

      // A new run asks again after the slot it processed last: it starts right there.
      const lastProcessed = seen[seen.length - 2]!;
      const [resumed] = await take(source, lastProcessed, 1);
      expect(resumed!.slot).toBe(lastProcessed + 1n);
    } finally {
      await second.close();
    }
  });
});

// The shared ingestion suite, the same the block-polling source passes, over the chain's Geyser endpoint.
describeIngestionSuite('yellowstone', async (chain) => {
  const source = createYellowstoneSource({
    url: chain.geyserUrl,
    logger: capturedLogger().logger,
    backoff: { initialMs: 20, maxMs: 100 },
  });
  return { source, close: async () => source.close?.() };
});
