// The indexer end to end on the local chain: native, SPL, Token-2022 with a transfer fee, invoice
// create/pay/cancel/close → sigil.pay-events/v1 payloads with literal fields, fan-out to wallet and @name
// subscriptions, idempotence across restarts, RPC faults, scope changes, a new URL's re-proven wallets, nothing queued
// while disabled. Both dialects.
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { getAddMemoInstruction } from '@solana-program/memo';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { payEventId, type PayEvent } from '@sigil/contract/pay-events';
import { describeEachDialect } from '@sigil/test/support/db';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { SPL_MEMO_PROGRAM_ADDRESS } from '../../platform/chain/programs';
import { createChainReader } from '../../platform/chain/reader';
import {
  findInvoicePda,
  getCancelInvoiceInstruction,
  getCloseInvoiceInstruction,
  getCreateInvoiceInstruction,
  getPayInvoiceInstruction,
} from '../../platform/chain/registry';
import type { ChainReader } from '../../platform/chain/types';
import { runIndexerPass, type IndexerDeps } from './indexer';
import { selectWatchedWallets } from './queries';
import { editWebhook, issueUrlChallenge, registerWebhook, type WebhookServiceDeps } from './service';
import {
  createFeeMint,
  createMint,
  exec,
  fundedWallet,
  fundTokens,
  registerName,
  setPaymentAddress,
  signRaw,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  transferName,
  issueChallengeFromBody,
  payWebhooksService,
} from '@sigil/test/support/webhooks-world';

const MEMO = SPL_MEMO_PROGRAM_ADDRESS;

describeEachDialect('pay indexer', (ctx) => {
  let chain: LocalChain;
  let reader: ChainReader;
  let merchant: KeyPairSigner;
  let till: KeyPairSigner;
  let payer: KeyPairSigner;
  let shop: Address;
  let walletHook: string;
  let nameHook: string;
  let deps: IndexerDeps;
  let service: WebhookServiceDeps;
  const caller = { keyId: 'key_idx', account: 'acct_idx' };
  const register = async (scope: string, signer: KeyPairSigner) => {
    const c = await issueChallengeFromBody(ctx.db, service, caller, { scope, url: 'https://shop.example.com/h' });
    return (
      await registerWebhook(ctx.db, service, caller, { nonce: c.nonce, signature: await signRaw(signer, c.message) })
    ).id;
  };

  beforeAll(async () => {
    chain = await startLocalChain({ autoAdvance: false, scenario: false });
    reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    merchant = await fundedWallet(chain);
    till = await fundedWallet(chain);
    payer = await fundedWallet(chain);
    shop = await registerName(chain, 'shop', merchant, till);
    await chain.finalizeAll();
    service = { chain: reader, resolver: async () => [{ address: '93.184.216.34', family: 4 }] };
    walletHook = await register(till.address, till);
    nameHook = await register('@shop', merchant);
    deps = { chain: reader };
  });
  afterAll(() => chain?.close());

  const events = async () =>
    (
      await ctx.db
        .selectFrom('pay_events')
        .select(['payload'])
        .where('test', '=', 0)
        .orderBy('slot')
        .orderBy('ix_index')
        .execute()
    ).map((r) => JSON.parse(r.payload) as PayEvent & { invoice?: Record<string, unknown> });
  const deliveriesOf = async (hook: string) =>
    (
      await ctx.db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'event_type'])
        .where('webhook_id', '=', hook)
        .execute()
    )
      .map((d) => `${d.event_type} ${d.event_id}`)
      .sort();
  const send = async (signer: KeyPairSigner, ixs: Instruction[], others: KeyPairSigner[] = []) => {
    const sig = await exec(chain, signer, ixs, others);
    return { sig, tx: (await reader.getTransaction(sig, 'finalized'))! };
  };

  it('native transfer with memo and reference → payment.received, bound to @shop by its verified payment address', async () => {
    const reference = (await generateKeyPairSigner()).address;
    const transfer = getTransferSolInstruction({ source: payer, destination: till.address, amount: 1_250_000n });
    const withReference = {
      ...transfer,
      accounts: [...transfer.accounts, { address: reference, role: 0 }],
    } as Instruction;
    const { sig, tx } = await send(payer, [
      getAddMemoInstruction({ memo: 'order 42' }, { programAddress: MEMO }),
      withReference,
    ]);

    const result = await runIndexerPass(ctx.db, deps);
    expect(result).toMatchObject({ transactions: 1, events: 1, deliveries: 2 });
    const [event] = await events();
    const handleSlot = event!.payment!.binding.handles[0]!.checkedSlot;
    expect(handleSlot).toBeGreaterThanOrEqual(Number(tx.slot));
    expect(event).toEqual({
      schema: 'sigil.pay-events/v1',
      id: payEventId(sig, 1, -1, 'payment.received'),
      type: 'payment.received',
      notice:
        'Notification only: the chain is the source of truth. Confirm the transaction on chain before releasing value.',
      chain: {
        signature: sig,
        ixIndex: 1,
        innerIndex: -1,
        slot: Number(tx.slot),
        blockTime: new Date(tx.blockTime! * 1000).toISOString().replace('.000Z', 'Z'),
        commitment: 'finalized',
        finalized: true,
      },
      payment: {
        kind: 'transfer',
        payer: payer.address,
        recipient: till.address,
        recipientTokenAccount: null,
        asset: 'native',
        mint: null,
        amount: '1250000',
        fee: '0',
        net: '1250000',
        invoice: null,
        reference,
        references: [reference],
        memo: 'order 42',
        binding: {
          status: 'verified',
          handles: [{ name: 'shop', tld: null, account: shop, basis: 'verified-record', checkedSlot: handleSlot }],
        },
      },
    });
    expect(await deliveriesOf(walletHook)).toEqual([`payment.received ${event!.id}`]);
    expect(await deliveriesOf(nameHook)).toEqual([`payment.received ${event!.id}`]);
  });

  it('SPL and Token-2022 (1% fee) transfers: recipient is the token account owner; fee and net from the balance change', async () => {
    const usd = await createMint(chain, payer, TOKEN_PROGRAM_ADDRESS, 6);
    const fee = await createFeeMint(chain, payer, 100, 1_000_000n, 6);
    const payerUsd = await fundTokens(chain, payer, usd, payer.address, TOKEN_PROGRAM_ADDRESS, 10_000_000n);
    const tillUsd = await fundTokens(chain, payer, usd, till.address, TOKEN_PROGRAM_ADDRESS);
    const payerFee = await fundTokens(chain, payer, fee, payer.address, TOKEN_2022_PROGRAM_ADDRESS, 10_000_000n);
    const tillFee = await fundTokens(chain, payer, fee, till.address, TOKEN_2022_PROGRAM_ADDRESS);
    await runIndexerPass(ctx.db, deps); // discovers till's token accounts (created above, no payment yet)

    const spl = await send(payer, [
      getTransferCheckedInstruction({
        source: payerUsd,
        mint: usd,
        destination: tillUsd,
        authority: payer,
        amount: 2_500_000n,
        decimals: 6,
      }),
    ]);
    const t22 = await send(payer, [
      getTransferCheckedInstruction(
        { source: payerFee, mint: fee, destination: tillFee, authority: payer, amount: 1_000_000n, decimals: 6 },
        { programAddress: TOKEN_2022_PROGRAM_ADDRESS },
      ),
    ]);
    await runIndexerPass(ctx.db, deps);
    const byId = new Map((await events()).map((e) => [e.id, e]));
    const splEvent = byId.get(payEventId(spl.sig, 0, -1, 'payment.received'))!;
    expect(splEvent.payment).toMatchObject({
      kind: 'transfer',
      payer: payer.address,
      recipient: till.address,
      recipientTokenAccount: tillUsd,
      asset: 'spl',
      mint: usd,
      amount: '2500000',
      fee: '0',
      net: '2500000',
      reference: null,
      references: [],
      memo: '',
      binding: { status: 'verified' },
    });
    const t22Event = byId.get(payEventId(t22.sig, 0, -1, 'payment.received'))!;
    expect(t22Event.payment).toMatchObject({
      recipient: till.address,
      recipientTokenAccount: tillFee,
      asset: 'spl',
      mint: fee,
      amount: '1000000',
      fee: '10000',
      net: '990000',
    });
    expect(await deliveriesOf(walletHook)).toContain(`payment.received ${t22Event.id}`);
  });

  it('invoices: created (bound), paid (invoice.paid only, binding basis invoice), cancelled, closed with closedStatus', async () => {
    const programId = chain.programId;
    const [bound] = await findInvoicePda(programId, merchant.address, 1n);
    const [loose] = await findInvoicePda(programId, merchant.address, 2n);
    const created = await send(merchant, [
      getCreateInvoiceInstruction({
        programId,
        payee: merchant.address,
        invoice: bound,
        mint: null,
        handle: shop,
        id: 1n,
        amount: 5_000_000n,
        expiresAt: 0,
        memo: 'inv 1',
      }),
      getCreateInvoiceInstruction({
        programId,
        payee: merchant.address,
        invoice: loose,
        mint: null,
        handle: null,
        id: 2n,
        amount: 7n,
        expiresAt: 4_000_000_000,
        memo: '',
      }),
    ]);
    const paid = await send(payer, [
      getPayInvoiceInstruction({
        programId,
        kind: 'native',
        payer: payer.address,
        invoice: bound,
        payee: merchant.address,
      }),
    ]);
    const cancelled = await send(merchant, [
      getCancelInvoiceInstruction({ programId, payee: merchant.address, invoice: loose }),
    ]);
    const closed = await send(merchant, [
      getCloseInvoiceInstruction({ programId, payee: merchant.address, invoice: bound }),
      getCloseInvoiceInstruction({ programId, payee: merchant.address, invoice: loose }),
    ]);
    await runIndexerPass(ctx.db, deps);
    const byId = new Map((await events()).map((e) => [e.id, e]));
    const detail = { payee: merchant.address, actor: merchant.address, mint: null, createIndexed: true };
    expect(byId.get(payEventId(created.sig, 0, -1, 'invoice.created'))).toMatchObject({
      type: 'invoice.created',
      payment: null,
      invoice: { ...detail, address: bound, amount: '5000000', expiresAt: '0', bound: true, handleAccount: shop },
    });
    expect(byId.get(payEventId(created.sig, 1, -1, 'invoice.created'))!.invoice).toEqual({
      ...detail,
      address: loose,
      amount: '7',
      expiresAt: '4000000000',
      bound: false,
      handleAccount: null,
    });
    const paidEvent = byId.get(payEventId(paid.sig, 0, -1, 'invoice.paid'))!;
    expect(paidEvent).toMatchObject({
      type: 'invoice.paid',
      invoice: { address: bound, payee: merchant.address },
      payment: {
        kind: 'invoice',
        payer: payer.address,
        recipient: merchant.address,
        recipientTokenAccount: null,
        asset: 'native',
        mint: null,
        amount: '5000000',
        fee: '0',
        net: '5000000',
        invoice: bound,
        reference: null,
        references: [],
        memo: '',
        binding: {
          status: 'verified',
          handles: [{ name: 'shop', tld: null, account: shop, basis: 'invoice', checkedSlot: Number(paid.tx.slot) }],
        },
      },
    });
    // Exactly one event for the payment: the program's inner system transfer is not a second payment.
    expect([...byId.values()].filter((e) => e.chain.signature === paid.sig).map((e) => e.type)).toEqual([
      'invoice.paid',
    ]);
    expect(byId.get(payEventId(cancelled.sig, 0, -1, 'invoice.cancelled'))!.invoice).toMatchObject({
      address: loose,
      bound: false,
    });
    expect(byId.get(payEventId(closed.sig, 0, -1, 'invoice.closed'))!.invoice).toMatchObject({
      address: bound,
      closedStatus: 1,
      bound: true,
    });
    expect(byId.get(payEventId(closed.sig, 1, -1, 'invoice.closed'))!.invoice).toMatchObject({
      address: loose,
      closedStatus: 2,
    });

    // merchant is a proven wallet of @shop only: the @name hook gets the bound invoice's events, not the unbound one's.
    const nameDeliveries = await deliveriesOf(nameHook);
    expect(nameDeliveries).toContain(`invoice.paid ${paidEvent.id}`);
    expect(nameDeliveries).toContain(`invoice.created ${payEventId(created.sig, 0, -1, 'invoice.created')}`);
    expect(nameDeliveries).not.toContain(`invoice.created ${payEventId(created.sig, 1, -1, 'invoice.created')}`);
    expect(nameDeliveries).not.toContain(`invoice.cancelled ${payEventId(cancelled.sig, 0, -1, 'invoice.cancelled')}`);
  });

  it('restarts neither lose nor duplicate: replaying every cursor from scratch adds no event and no delivery', async () => {
    const before = {
      events: (await events()).length,
      deliveries: (await ctx.db.selectFrom('webhook_deliveries').select('id').execute()).length,
    };
    await ctx.db.deleteFrom('kv').where('key', 'like', 'ingest.%').execute();
    const again = await runIndexerPass(ctx.db, deps);
    expect(again.deliveries).toBe(0);
    expect((await events()).length).toBe(before.events);
    expect((await ctx.db.selectFrom('webhook_deliveries').select('id').execute()).length).toBe(before.deliveries);
  });

  it('RPC faults fail the pass without losing the payment; the next pass picks it up', async () => {
    const { sig } = await send(payer, [
      getTransferSolInstruction({ source: payer, destination: till.address, amount: 777n }),
    ]);
    chain.faults.set({ rpcError: { code: -32005, message: 'Node is behind' }, methods: ['getBlock'] });
    await expect(runIndexerPass(ctx.db, deps)).rejects.toThrow(/getBlock/);
    chain.faults.clear();
    await runIndexerPass(ctx.db, deps);
    expect((await events()).map((e) => e.id)).toContain(payEventId(sig, 0, -1, 'payment.received'));
  });

  it('scope change: @shop changes owner → its subscription pauses; later payments to the new owner are not queued', async () => {
    const newOwner = await fundedWallet(chain);
    await transferName(chain, shop, merchant, newOwner.address);
    const result = await runIndexerPass(ctx.db, deps);
    expect(result.paused).toBe(1);
    const hook = await ctx.db
      .selectFrom('webhook_subscriptions')
      .select(['status', 'paused_reason'])
      .where('id', '=', nameHook)
      .executeTakeFirstOrThrow();
    expect(hook).toEqual({ status: 'paused', paused_reason: 'scope_changed: @shop changed owner' });
    const before = await deliveriesOf(nameHook);
    await send(payer, [getTransferSolInstruction({ source: payer, destination: till.address, amount: 999n })]);
    await runIndexerPass(ctx.db, deps);
    expect(await deliveriesOf(nameHook)).toEqual(before);
  });

  it('a new URL re-proves an @name: its moved payment address is watched from then on and its payments are delivered', async () => {
    const owner = await fundedWallet(chain);
    const [oldTill, newTill] = [await fundedWallet(chain), await fundedWallet(chain)];
    const cafe = await registerName(chain, 'cafe', owner, oldTill);
    await chain.finalizeAll();
    const hook = await register('@cafe', owner);
    await setPaymentAddress(chain, cafe, owner, newTill);
    await chain.finalizeAll();

    const url = 'https://shop.example.com/v2';
    const c = await issueUrlChallenge(ctx.db, service, caller, hook, { url });
    const edited = await editWebhook(ctx.db, service, caller, hook, {
      url,
      nonce: c.nonce,
      signature: await signRaw(owner, c.message),
    });
    expect(edited.scope.wallets).toEqual([owner.address, newTill.address]);

    const paid = await send(payer, [
      getTransferSolInstruction({ source: payer, destination: newTill.address, amount: 31n }),
    ]);
    await send(payer, [getTransferSolInstruction({ source: payer, destination: oldTill.address, amount: 32n })]);
    const result = await runIndexerPass(ctx.db, deps);
    // Its recorded payment address is the chain's: nothing to pause.
    expect(result.paused).toBe(0);
    expect(await deliveriesOf(hook)).toEqual([`payment.received ${payEventId(paid.sig, 0, -1, 'payment.received')}`]);
    // The index is the subscription's wallets again: the old payment address is watched by no one.
    const watched = await ctx.db
      .selectFrom('webhook_watched_wallets')
      .select('wallet')
      .where('subscription_id', '=', hook)
      .execute();
    expect(watched.map((row) => row.wallet).sort()).toEqual([owner.address, newTill.address].sort());
    expect([...(await selectWatchedWallets(ctx.db, [newTill.address, oldTill.address])).keys()]).toEqual([
      newTill.address,
    ]);
  });

  it('a disabled webhook is queued nothing: a payment meanwhile never reaches it, not after enable, not by recover', async () => {
    const hooks = payWebhooksService(ctx.db, service);
    const since = Date.now();
    await hooks.disable(caller, walletHook);
    const during = await send(payer, [
      getTransferSolInstruction({ source: payer, destination: till.address, amount: 41n }),
    ]);
    await runIndexerPass(ctx.db, deps);
    await hooks.enable(caller, walletHook);
    expect(await hooks.recover(caller, walletHook, { since })).toMatchObject({ requeued: 0 });
    const after = await send(payer, [
      getTransferSolInstruction({ source: payer, destination: till.address, amount: 42n }),
    ]);
    // The webhook is among the newest: enabled again, it is still not taken for a new one to look back for.
    await runIndexerPass(ctx.db, deps);
    const delivered = await deliveriesOf(walletHook);
    expect(delivered).not.toContain(`payment.received ${payEventId(during.sig, 0, -1, 'payment.received')}`);
    expect(delivered).toContain(`payment.received ${payEventId(after.sig, 0, -1, 'payment.received')}`);
  });
});
