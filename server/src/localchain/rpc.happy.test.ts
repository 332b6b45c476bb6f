// Every RPC method the local chain serves, through @solana/kit's own RPC client (so response shapes parse).
import { address, getBase58Encoder, getBase64Encoder, lamports, type KeyPairSigner, type Signature } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getAddMemoInstruction } from '@solana-program/memo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_OFFSETS, ACCOUNT_DISCRIMINATORS, decodeHandle } from '../platform/chain/registry';
import { startLocalChain, type LocalChain } from './index';
import { SPL_MEMO_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { base64Wire, fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';

let chain: LocalChain;
let payer: KeyPairSigner;
let memoSig: Signature;
const recipient = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, finalityLagSlots: 4 });
  payer = await fundedWallet(chain);
  const tx = await signedTransaction(chain, payer, [
    getTransferSolInstruction({ source: payer, destination: recipient, amount: 1_000_000n }),
    getAddMemoInstruction({ memo: 'hello sigil' }, { programAddress: SPL_MEMO_PROGRAM_ADDRESS }),
  ]);
  memoSig = await chain.sendAndConfirm(tx, { commitment: 'finalized' });
});
afterAll(() => chain.close());

describe('cluster methods', () => {
  it('getHealth, getVersion, getGenesisHash (deterministic per program id)', async () => {
    expect(await chain.rpc.getHealth().send()).toBe('ok');
    expect(await chain.rpc.getVersion().send()).toEqual({ 'solana-core': '2.2.0', 'feature-set': 3294202862 });
    const genesis = await chain.rpc.getGenesisHash().send();
    expect(genesis).toBe(chain.genesisHash);
    const other = await startLocalChain({ autoAdvance: false, scenario: false });
    try {
      expect(await other.rpc.getGenesisHash().send()).toBe(genesis);
    } finally {
      await other.close();
    }
  });

  it('GET / answers an index of the chain (JSON-RPC stays POST /)', async () => {
    const res = await fetch(`${chain.url}/`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      service: 'sigil local chain',
      rpc: `POST ${chain.url}/ (Solana JSON-RPC)`,
      links: { scenario: `${chain.url}/scenario`, health: `${chain.url}/health` },
      docs: 'docs/local-chain.md',
    });
  });

  it('getSlot / getBlockHeight / getEpochInfo per commitment', async () => {
    const processed = chain.slot();
    expect(await chain.rpc.getSlot({ commitment: 'processed' }).send()).toBe(processed);
    expect(await chain.rpc.getSlot({ commitment: 'confirmed' }).send()).toBe(processed - 1n);
    expect(await chain.rpc.getSlot({ commitment: 'finalized' }).send()).toBe(processed - 4n);
    // A bare request (no commitment) is answered at finalized, as a node does.
    const bare = await fetch(chain.url, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }),
    });
    expect(await bare.json()).toEqual({ jsonrpc: '2.0', id: 1, result: Number(processed - 4n) });
    expect(await chain.rpc.getBlockHeight({ commitment: 'processed' }).send()).toBe(processed);
    const epoch = await chain.rpc.getEpochInfo({ commitment: 'processed' }).send();
    expect(epoch).toMatchObject({
      absoluteSlot: processed,
      blockHeight: processed,
      epoch: 0n,
      slotIndex: processed,
      slotsInEpoch: 432000n,
    });
    expect(epoch.transactionCount).toBeGreaterThan(0n);
  });

  it('getBlockTime: wall-clock time, moved by slotMs per explicit advance; a future slot is an error', async () => {
    const start = chain.slot();
    const t0 = await chain.rpc.getBlockTime(start).send();
    expect(Math.abs(Number(t0) - Date.now() / 1000)).toBeLessThan(5);
    await chain.advance(10);
    const t10 = await chain.rpc.getBlockTime(start + 10n).send();
    expect(Number(t10 - t0)).toBeGreaterThanOrEqual(4); // 10 slots × 400 ms (+ wall-clock drift)
    expect(Number(t10 - t0)).toBeLessThanOrEqual(5);
    await expect(chain.rpc.getBlockTime(chain.slot() + 5n).send()).rejects.toThrow(/Block not available/);
  });

  it('getLatestBlockhash and isBlockhashValid', async () => {
    const { value, context } = await chain.rpc.getLatestBlockhash({ commitment: 'processed' }).send();
    expect(context.slot).toBe(chain.slot());
    expect(value.lastValidBlockHeight).toBe(chain.slot() + 150n);
    expect((await chain.rpc.isBlockhashValid(value.blockhash, { commitment: 'processed' }).send()).value).toBe(true);
    const bogus = '11111111111111111111111111111111' as never;
    expect((await chain.rpc.isBlockhashValid(bogus).send()).value).toBe(false);
  });

  it('getMinimumBalanceForRentExemption matches LiteSVM rent', async () => {
    expect(await chain.rpc.getMinimumBalanceForRentExemption(0n).send()).toBe(890880n);
    expect(await chain.rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2039280n);
  });
});

describe('accounts', () => {
  it('getBalance and getAccountInfo (base64, base58, dataSlice)', async () => {
    expect((await chain.rpc.getBalance(recipient).send()).value).toBe(1_000_000n);
    const handle = chain.scenario!.handles.alice!.account;
    const info = await chain.rpc.getAccountInfo(handle, { encoding: 'base64' }).send();
    expect(info.value!.owner).toBe(chain.programId);
    const bytes = getBase64Encoder().encode(info.value!.data[0]);
    expect(decodeHandle(handle, bytes).name).toBe('alice');
    expect(info.value!.space).toBe(BigInt(bytes.length));
    const sliced = await chain.rpc
      .getAccountInfo(handle, { encoding: 'base58', dataSlice: { offset: 0, length: 8 } })
      .send();
    expect(Array.from(getBase58Encoder().encode(sliced.value!.data[0]))).toEqual(
      Array.from(ACCOUNT_DISCRIMINATORS.Handle),
    );
    expect(
      (
        await chain.rpc
          .getAccountInfo(address('8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh'), { encoding: 'base64' })
          .send()
      ).value,
    ).toBeNull();
  });

  it('getMultipleAccounts keeps order and nulls', async () => {
    const { alice, bob } = chain.scenario!.handles;
    const missing = address('8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh');
    const res = await chain.rpc
      .getMultipleAccounts([bob!.account, missing, alice!.account], { encoding: 'base64' })
      .send();
    expect(res.value.map((v) => v?.owner ?? null)).toEqual([chain.programId, null, chain.programId]);
  });

  it('getProgramAccounts with memcmp / dataSize filters and withContext', async () => {
    const handleDisc = Buffer.from(ACCOUNT_DISCRIMINATORS.Handle).toString('base64');
    const all = await chain.rpc
      .getProgramAccounts(chain.programId, {
        encoding: 'base64',
        filters: [{ memcmp: { offset: 0n, bytes: handleDisc as never, encoding: 'base64' } }],
      })
      .send();
    const names = all.map((a) => decodeHandle(a.pubkey, getBase64Encoder().encode(a.account.data[0])).name).sort();
    expect(names).toEqual(Object.keys(chain.scenario!.handles).sort());
    expect(names).toEqual(
      [
        ...['alice', 'bob', 'drift', 'lapsed', 'phoenix', 'satoshi', 'satoshi.x1', 'scout', 'vault'],
        ...['broker', 'courier', 'ghost', 'kiosk', 'mirror', 'nomad', 'relay'], // the demo agents
        ...['bazaar', 'gavel', 'ribbon', 'exhibit', 'tenant'], // one per market state
      ].sort(),
    );

    const carol = chain.scenario!.wallets.carol!.address;
    const byOwner = await chain.rpc
      .getProgramAccounts(chain.programId, {
        encoding: 'base64',
        commitment: 'finalized',
        withContext: true,
        filters: [
          { memcmp: { offset: 0n, bytes: handleDisc as never, encoding: 'base64' } },
          { memcmp: { offset: BigInt(ACCOUNT_OFFSETS.Handle.owner), bytes: carol as never, encoding: 'base58' } },
        ],
      })
      .send();
    expect(byOwner.context.slot).toBe(chain.slot('finalized'));
    expect(byOwner.value.map((a) => a.pubkey)).toEqual([chain.scenario!.handles.vault!.account]);

    const aliceLen = (
      await chain.rpc.getAccountInfo(chain.scenario!.handles.alice!.account, { encoding: 'base64' }).send()
    ).value!.space;
    const sized = await chain.rpc
      .getProgramAccounts(chain.programId, { encoding: 'base64', filters: [{ dataSize: aliceLen }] })
      .send();
    expect(sized.map((a) => a.pubkey)).toContain(chain.scenario!.handles.alice!.account);
    expect(sized.every((a) => a.account.space === aliceLen)).toBe(true);
  });

  it('token balance methods', async () => {
    const usdx = chain.scenario!.mints.usdx!.address;
    const largest = await chain.rpc.getTokenLargestAccounts(usdx).send();
    expect(largest.value[0]).toMatchObject({ amount: '1000000000', decimals: 6, uiAmountString: '1000' });
    const balance = await chain.rpc.getTokenAccountBalance(largest.value[0]!.address).send();
    expect(balance.value).toEqual({ amount: '1000000000', decimals: 6, uiAmount: 1000, uiAmountString: '1000' });
  });
});

describe('transactions', () => {
  it('getSignaturesForAddress with memo, limit, before/until', async () => {
    const sigs = await chain.rpc.getSignaturesForAddress(recipient).send();
    expect(sigs).toHaveLength(1);
    expect(sigs[0]).toMatchObject({
      signature: memoSig,
      err: null,
      memo: '[11] hello sigil',
      confirmationStatus: 'finalized',
    });

    const alice = chain.scenario!.wallets.alice!.address;
    const all = await chain.rpc.getSignaturesForAddress(alice).send();
    expect(all.length).toBeGreaterThan(10);
    const slots = all.map((s) => s.slot);
    expect([...slots].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(slots); // newest first
    const page = await chain.rpc.getSignaturesForAddress(alice, { limit: 3, before: all[1]!.signature }).send();
    expect(page.map((s) => s.signature)).toEqual(all.slice(2, 5).map((s) => s.signature));
    const until = await chain.rpc.getSignaturesForAddress(alice, { until: all[3]!.signature }).send();
    expect(until.map((s) => s.signature)).toEqual(all.slice(0, 3).map((s) => s.signature));
  });

  it('getTransaction in json and base64, v0 needs maxSupportedTransactionVersion', async () => {
    const json = await chain.rpc
      .getTransaction(memoSig, { encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(json!.version).toBe(0);
    expect(json!.meta!.fee).toBe(5000n);
    expect(json!.meta!.err).toBeNull();
    expect(json!.transaction.signatures).toEqual([memoSig]);
    const keys = json!.transaction.message.accountKeys;
    const i = keys.indexOf(recipient);
    expect(json!.meta!.postBalances[i]! - json!.meta!.preBalances[i]!).toBe(1_000_000n);
    expect(json!.meta!.logMessages).toEqual(
      expect.arrayContaining(['Program log: Memo (len 11)', 'Program log: hello sigil']),
    );

    const b64 = await chain.rpc
      .getTransaction(memoSig, { encoding: 'base64', maxSupportedTransactionVersion: 0 })
      .send();
    expect(b64!.transaction[1]).toBe('base64');
    expect(b64!.slot).toBe(json!.slot);
    await expect(chain.rpc.getTransaction(memoSig, { encoding: 'json' }).send()).rejects.toThrow(
      /maxSupportedTransactionVersion/,
    );
  });

  it('legacy transactions: getTransaction without maxSupportedTransactionVersion has no version field', async () => {
    const tx = await signedTransaction(
      chain,
      payer,
      [getTransferSolInstruction({ source: payer, destination: recipient, amount: 5n })],
      {
        version: 'legacy',
      },
    );
    const sig = await chain.rpc.sendTransaction(base64Wire(tx), { encoding: 'base64' }).send();
    await chain.advance(1);
    const res = await chain.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json' }).send();
    expect(res).not.toBeNull();
    expect('version' in res!).toBe(false);
    expect(res!.transaction.message.header.numRequiredSignatures).toBe(1);
  });

  it('sendTransaction base58 + getSignatureStatuses', async () => {
    const tx = await signedTransaction(chain, payer, [
      getTransferSolInstruction({ source: payer, destination: recipient, amount: 7n }),
    ]);
    const { getBase58Decoder, getTransactionEncoder } = await import('@solana/kit');
    const wire58 = getBase58Decoder().decode(getTransactionEncoder().encode(tx));
    const sig = await chain.rpc.sendTransaction(wire58 as never).send(); // default encoding is base58
    const statuses = await chain.rpc
      .getSignatureStatuses([
        sig,
        memoSig,
        '1111111111111111111111111111111111111111111111111111111111111111' as Signature,
      ])
      .send();
    expect(statuses.value[0]).toMatchObject({
      confirmations: 0n,
      err: null,
      status: { Ok: null },
      confirmationStatus: 'processed',
    });
    expect(statuses.value[1]).toMatchObject({ confirmations: null, confirmationStatus: 'finalized' });
    expect(statuses.value[2]).toBeNull();
  });

  it('simulateTransaction does not land and reports logs', async () => {
    const before = (await chain.rpc.getBalance(recipient, { commitment: 'processed' }).send()).value;
    const tx = await signedTransaction(chain, payer, [
      getTransferSolInstruction({ source: payer, destination: recipient, amount: 9n }),
    ]);
    const sim = await chain.rpc
      .simulateTransaction(base64Wire(tx), {
        encoding: 'base64',
        sigVerify: true,
        accounts: { addresses: [recipient], encoding: 'base64' },
      })
      .send();
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs).toContain('Program 11111111111111111111111111111111 success');
    expect(sim.value.accounts![0]!.lamports).toBe(before + 9n);
    expect((await chain.rpc.getBalance(recipient, { commitment: 'processed' }).send()).value).toBe(before);
    expect(
      (await chain.rpc.getSignatureStatuses([(await import('@solana/kit')).getSignatureFromTransaction(tx)]).send())
        .value[0],
    ).toBeNull();
  });

  it('requestAirdrop lands a real faucet transfer with history', async () => {
    const target = address('GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW');
    const sig = await chain.rpc.requestAirdrop(target, lamports(2_000_000_000n)).send();
    expect((await chain.rpc.getBalance(target, { commitment: 'processed' }).send()).value).toBe(2_000_000_000n);
    await chain.advance(1);
    const sigs = await chain.rpc.getSignaturesForAddress(target, { commitment: 'confirmed' }).send();
    expect(sigs.map((s) => s.signature)).toEqual([sig]);
  });
});
