// The pay consumer of the ingestion pipeline (docs/webhooks.md): every FINALIZED block's transactions are matched
// against the watched wallets (an indexed lookup of the block's addresses in the watched-wallet table kept with the
// subscriptions, token accounts recognized by the owner in the transaction's token balances: no RPC and no scan per
// subscriber), turned into `sigil.pay-events/v1` payloads with their bindings, stored idempotently (pev_ id) and
// fanned out as delivery rows in one db transaction per chain transaction, so a replayed block adds nothing. Also: re-checks unverifiable
// bindings, pauses `@name` subscriptions whose scope changed. The slot cursor and the source live in
// platform/chain/source/ingest.ts; the loop, lease and backoff in workers/indexer.ts.
import type { Address } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import type { Kysely } from 'kysely';
import { readKv, writeKv } from '../../platform/db/index';
import { runIngestPass, type BlockConsumer } from '../../platform/chain/source/ingest';
import type { ChainSource, SourceBlock } from '../../platform/chain/source/types';
import {
  PAY_EVENT_NOTICE,
  PAY_EVENTS_SCHEMA,
  PayEventSchema,
  payEventId,
  type PayEvent,
  type Payment,
} from '@sigil/contract/pay-events';
import { isoSeconds, SCOPE_CHANGED_PREFIX, type PayEventType } from '@sigil/contract/webhooks';
import {
  decodeRegistryInstruction,
  RegistryDecodeError,
  type RegistryInstruction,
} from '../../platform/chain/registry';
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../../platform/chain/programs';
import type { ChainReader, ChainTransaction } from '../../platform/chain/types';
import type { Database } from '../../platform/db/index';
import { newDeliveryRow, type SubscriptionRow } from '../webhooks/index';
import { PAYMENT_RECORD_KEY, readNameControl, readNameControlByAccount } from './control';
import { decodePaymentFacts, transactionMemo, type PaymentFact } from './decode';
import {
  insertDeliveryOnce,
  insertInvoiceIfAbsent,
  insertPayEventOnce,
  pauseActiveSubscription,
  selectActivePayNameSubscriptions,
  selectEarliestPayWatch,
  selectInvoice,
  selectPayCreatedSince,
  selectPayNamesWatching,
  selectPaySubscriptionsFor,
  selectUnverifiedBindings,
  selectWatchedWallets,
  setBindingCheck,
  setInvoiceStatus,
  upsertIndexedInvoice,
  type InvoiceRow,
} from './queries';

export interface IndexerDeps {
  chain: ChainReader;
  /** Where finalized blocks come from; default: block polling over `chain` (platform/chain/source/blocks.ts). */
  source?: ChainSource;
  /** The finalized slot the pass runs up to; default: read from `chain` at the start of the pass. */
  tip?: bigint;
  now?: () => number;
  paymentRecordKey?: string;
  /** How many times an unverifiable binding is re-checked before it is left as is. */
  bindingRecheckLimit?: number;
  /** Called after deliveries were queued (wakes the delivery worker): per chain transaction, as soon as committed. */
  onQueued?: () => void;
  /** Stay at the tip this long after the pass starts, consuming new blocks as they come (ingest.ts). Default 0. */
  followMs?: number;
  /** Ends a following pass early (the worker is stopping). */
  signal?: AbortSignal;
  /**
   * False when pay webhooks are off (SIGIL_PAY_WEBHOOKS): the blocks still feed the other consumers, the pay consumer
   * and its rechecks do not run. Default true.
   */
  pay?: boolean;
}

export interface IndexerPassResult {
  transactions: number;
  events: number;
  deliveries: number;
  paused: number;
}

type Db = Kysely<Database>;
type Binding = Payment['binding'];

const nowOf = (deps: IndexerDeps) => deps.now?.() ?? Date.now();

// ---------------------------------------------------------------------------------------------------------
// Invoices: what we know of them (the account of a closed invoice is gone)

function decodeRegistry(data: Uint8Array, accounts: Address[], programId: Address): RegistryInstruction | null {
  try {
    return decodeRegistryInstruction(data, accounts, programId);
  } catch (err) {
    if (err instanceof RegistryDecodeError) return null;
    throw err;
  }
}

/**
 * The invoice as known: our cache (created while indexed), else its account (finalized), else rebuilt from its
 * history (create, pay, cancel instructions) — the last two mark `create_indexed` 0.
 */
async function knownInvoice(db: Db, chain: ChainReader, invoice: Address, now: number): Promise<InvoiceRow | null> {
  const cached = await selectInvoice(db, invoice);
  if (cached) return cached;
  let row: InvoiceRow | null = null;
  const account = await chain.getInvoice(invoice, 'finalized');
  if (account) {
    row = {
      address: invoice,
      payee: account.payee,
      mint: account.mint,
      amount: account.amount.toString(),
      fee: account.fee.toString(),
      expires_at: String(account.expiresAt),
      bound: account.boundHandle ? 1 : 0,
      handle_account: account.boundHandle,
      status: account.status,
      create_indexed: 0,
      updated_at: now,
    };
  } else {
    const history = await chain.getSignaturesForAddress(invoice, { limit: 1000 }, 'finalized');
    for (const entry of [...history].reverse()) {
      if (entry.err !== null) continue;
      const tx = await chain.getTransaction(entry.signature, 'finalized');
      for (const ix of tx?.instructions.flatMap((i) => [i, ...i.inner]) ?? []) {
        if (ix.programId !== chain.programId) continue;
        const decoded = decodeRegistry(ix.data, ix.accounts, chain.programId);
        if (decoded?.name === 'create_invoice' && decoded.accounts.invoice === invoice) {
          row = {
            address: invoice,
            payee: decoded.accounts.payee,
            mint: decoded.accounts.mint,
            amount: decoded.args.amount.toString(),
            fee: '0',
            expires_at: String(decoded.args.expiresAt),
            bound: decoded.args.bound ? 1 : 0,
            handle_account: decoded.accounts.handle,
            status: 0,
            create_indexed: 0,
            updated_at: now,
          };
        } else if (row && decoded?.name === 'pay_invoice' && decoded.accounts.invoice === invoice) row.status = 1;
        else if (row && decoded?.name === 'cancel_invoice' && decoded.accounts.invoice === invoice) row.status = 2;
      }
    }
  }
  if (row) await insertInvoiceIfAbsent(db, row);
  return row;
}

function invoiceDetail(row: InvoiceRow, actor: string) {
  return {
    address: row.address,
    payee: row.payee,
    actor,
    mint: row.mint,
    amount: row.amount,
    expiresAt: row.expires_at,
    bound: row.bound === 1,
    handleAccount: row.handle_account,
    createIndexed: row.create_indexed === 1,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Binding: which @names pay to a wallet, proven at the payment's slot

/**
 * True when `account` may have changed after `slot`: a finalized transaction after that slot touched it and
 * (when `modifies` is given) one of its registry instructions modifies it; a full page counts as changed.
 */
async function changedAfter(
  chain: ChainReader,
  account: Address,
  slot: bigint,
  modifies?: (ix: RegistryInstruction) => boolean,
): Promise<boolean> {
  const page = 20;
  const recent = await chain.getSignaturesForAddress(account, { limit: page }, 'finalized');
  const newer = recent.filter((s) => s.slot > slot && s.err === null);
  if (newer.length === 0) return false;
  if (!modifies || (recent.length === page && newer.length === page)) return true;
  for (const entry of newer) {
    const tx = await chain.getTransaction(entry.signature, 'finalized');
    if (!tx) return true;
    for (const ix of tx.instructions.flatMap((i) => [i, ...i.inner])) {
      if (ix.programId !== chain.programId) continue;
      const decoded = decodeRegistry(ix.data, ix.accounts, chain.programId);
      if (decoded && modifies(decoded)) return true;
    }
  }
  return false;
}

const HANDLE_MODIFYING = new Set(['register', 'release', 'tokenize', 'transfer']);

type HandleProof =
  { status: 'verified'; handle: Binding['handles'][number] } | { status: 'none' } | { status: 'unverifiable' };

/**
 * Does `name` pay to `wallet` at `slot`? Read the name's control at finalized (slot C ≥ slot) and show that
 * nothing it depends on changed in between: no handle-modifying instruction (register, release, tokenize,
 * transfer) on the Handle account, no set/verify on the payment record (verified-record basis), no movement of
 * the NFT holder's token account (holder basis). Then the state at C is the state at the payment's slot.
 */
async function proveHandle(
  chain: ChainReader,
  name: string,
  wallet: Address,
  slot: bigint,
  recordKey: string,
): Promise<HandleProof> {
  try {
    const control = await readNameControl(chain, name, recordKey);
    if (!control) return { status: 'none' };
    const { handle } = control;
    let basis: 'owner' | 'holder' | 'verified-record';
    if (control.authority.authority === wallet) basis = control.authority.source === 'owner' ? 'owner' : 'holder';
    else if (control.paymentWallet === wallet) basis = 'verified-record';
    else return { status: 'none' };
    if (handle.registeredSlot > slot) return { status: 'none' }; // registered after the payment
    const handleMoved = await changedAfter(
      chain,
      handle.address,
      slot,
      (ix) => HANDLE_MODIFYING.has(ix.name) && Object.values(ix.accounts).includes(handle.address),
    );
    if (handleMoved) return { status: 'unverifiable' };
    if (basis === 'verified-record' && control.paymentRecord) {
      const record = control.paymentRecord.address;
      const recordMoved = await changedAfter(
        chain,
        record,
        slot,
        (ix) => (ix.name === 'set_record' || ix.name === 'verify_record') && ix.accounts.record === record,
      );
      if (recordMoved) return { status: 'unverifiable' };
    }
    if (
      control.authority.source === 'nft-holder' &&
      control.authority.authority &&
      handle.mint &&
      basis !== 'verified-record'
    ) {
      for (const tokenProgram of [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]) {
        const [ata] = await findAssociatedTokenPda({
          owner: control.authority.authority,
          mint: handle.mint,
          tokenProgram,
        });
        if (await changedAfter(chain, ata, slot)) return { status: 'unverifiable' };
      }
    }
    return {
      status: 'verified',
      handle: { name: handle.name, tld: null, account: handle.address, basis, checkedSlot: Number(control.slot) },
    };
  } catch {
    return { status: 'unverifiable' }; // RPC fault or undecodable account: not proven yet, re-checked later
  }
}

/** The binding of a transfer to `wallet`: candidates are the @name subscriptions proving it and its primary name. */
async function transferBinding(
  db: Db,
  chain: ChainReader,
  wallet: Address,
  slot: bigint,
  recordKey: string,
): Promise<Binding> {
  const names = new Set((await selectPayNamesWatching(db, wallet)).map((scope) => scope.slice(1)));
  let unverifiable = false;
  try {
    const primary = await chain.getPrimary(wallet, 'finalized');
    if (primary) {
      const handle = await chain.getHandleByAddress(primary.handle, 'finalized');
      if (handle && !handle.name.includes('.')) names.add(handle.name);
    }
  } catch {
    unverifiable = true;
  }
  const handles: Binding['handles'] = [];
  for (const name of [...names].sort()) {
    const proof = await proveHandle(chain, name, wallet, slot, recordKey);
    if (proof.status === 'verified') handles.push(proof.handle);
    else if (proof.status === 'unverifiable') unverifiable = true;
  }
  if (handles.length > 0) return { status: 'verified', handles };
  return { status: unverifiable ? 'unverifiable' : 'none', handles: [] };
}

/** An invoice payment: bound invoices are proven by the program (it checked the payee's control at creation). */
async function invoiceBinding(chain: ChainReader, invoice: InvoiceRow, slot: bigint): Promise<Binding> {
  if (invoice.bound !== 1 || !invoice.handle_account) return { status: 'unbound', handles: [] };
  try {
    const handle = await chain.getHandleByAddress(invoice.handle_account as Address, 'finalized');
    if (!handle) return { status: 'unverifiable', handles: [] };
    return {
      status: 'verified',
      handles: [{ name: handle.name, tld: null, account: handle.address, basis: 'invoice', checkedSlot: Number(slot) }],
    };
  } catch {
    return { status: 'unverifiable', handles: [] };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Events and fan-out

interface Built {
  event: PayEvent;
  /** The wallet the event is about (recipient / payee). */
  wallet: string;
}

function chainPart(tx: ChainTransaction, fact: PaymentFact): PayEvent['chain'] {
  return {
    signature: tx.signature,
    ixIndex: fact.ixIndex,
    innerIndex: fact.innerIndex,
    slot: Number(tx.slot),
    blockTime: tx.blockTime === null ? null : isoSeconds(tx.blockTime),
    commitment: 'finalized',
    finalized: true,
  };
}

const base = (
  tx: ChainTransaction,
  fact: PaymentFact,
  type: PayEventType,
): Pick<PayEvent, 'schema' | 'id' | 'notice' | 'chain'> => ({
  schema: PAY_EVENTS_SCHEMA,
  id: payEventId(tx.signature, fact.ixIndex, fact.innerIndex, type),
  notice: PAY_EVENT_NOTICE,
  chain: chainPart(tx, fact),
});

async function buildEvent(
  db: Db,
  deps: IndexerDeps,
  tx: ChainTransaction,
  fact: PaymentFact,
  memo: string,
): Promise<Built | null> {
  const step: EventStep = { db, deps, tx, memo, now: nowOf(deps) };
  switch (fact.kind) {
    case 'transfer':
      return transferEvent(step, fact);
    case 'invoice.paid':
      return invoicePaidEvent(step, fact);
    case 'invoice.created':
      return invoiceCreatedEvent(step, fact);
    case 'invoice.cancelled':
    case 'invoice.closed':
      return invoiceChangeEvent(step, fact);
  }
}

/** What every event builder works with: the pass's db, its deps, the transaction and its memo, the pass's clock. */
interface EventStep {
  db: Db;
  deps: IndexerDeps;
  tx: ChainTransaction;
  memo: string;
  now: number;
}

type FactOf<K extends PaymentFact['kind']> = Extract<PaymentFact, { kind: K }>;

async function transferEvent({ db, deps, tx, memo }: EventStep, fact: FactOf<'transfer'>): Promise<Built> {
  const recordKey = deps.paymentRecordKey ?? PAYMENT_RECORD_KEY;
  const binding = await transferBinding(db, deps.chain, fact.recipient, tx.slot, recordKey);
  const payment: Payment = {
    kind: 'transfer',
    payer: fact.payer,
    recipient: fact.recipient,
    recipientTokenAccount: fact.recipientTokenAccount,
    asset: fact.asset,
    mint: fact.mint,
    amount: fact.amount.toString(),
    fee: fact.fee?.toString() ?? null,
    net: fact.net?.toString() ?? null,
    invoice: null,
    reference: fact.references[0] ?? null,
    references: fact.references,
    memo,
    binding,
  };
  return {
    event: { ...base(tx, fact, 'payment.received'), type: 'payment.received', payment: payment as never },
    wallet: fact.recipient,
  };
}

async function invoicePaidEvent({ db, deps, tx, memo, now }: EventStep, fact: FactOf<'invoice.paid'>): Promise<Built> {
  const invoice = await knownInvoice(db, deps.chain, fact.invoice, now);
  const binding = invoice
    ? await invoiceBinding(deps.chain, invoice, tx.slot)
    : { status: 'unverifiable' as const, handles: [] };
  const fee = invoice?.fee === null || invoice?.fee === undefined ? null : BigInt(invoice.fee);
  const net = fact.received ?? (fee === null ? null : fact.amount - fee);
  const payment: Payment = {
    kind: 'invoice',
    payer: fact.payer,
    recipient: fact.payee,
    recipientTokenAccount: fact.recipientTokenAccount,
    asset: fact.mint ? 'spl' : 'native',
    mint: fact.mint,
    amount: fact.amount.toString(),
    fee: fact.received !== null ? (fact.amount - fact.received).toString() : (fee?.toString() ?? null),
    net: net?.toString() ?? null,
    invoice: fact.invoice,
    reference: null,
    references: [],
    memo,
    binding,
  };
  await setInvoiceStatus(db, fact.invoice, 1, now);
  return {
    event: {
      ...base(tx, fact, 'invoice.paid'),
      type: 'invoice.paid',
      payment: payment as never,
      invoice: { address: fact.invoice, payee: fact.payee },
    },
    wallet: fact.payee,
  };
}

async function invoiceCreatedEvent({ db, tx, now }: EventStep, fact: FactOf<'invoice.created'>): Promise<Built> {
  const row: InvoiceRow = {
    address: fact.invoice,
    payee: fact.payee,
    mint: fact.mint,
    amount: fact.amount.toString(),
    fee: '0',
    expires_at: fact.expiresAt.toString(),
    bound: fact.bound ? 1 : 0,
    handle_account: fact.handleAccount,
    status: 0,
    create_indexed: 1,
    updated_at: now,
  };
  await upsertIndexedInvoice(db, row, now);
  return {
    event: {
      ...base(tx, fact, 'invoice.created'),
      type: 'invoice.created',
      payment: null,
      invoice: invoiceDetail(row, fact.actor),
    },
    wallet: fact.payee,
  };
}

async function invoiceChangeEvent(
  { db, deps, tx, now }: EventStep,
  fact: FactOf<'invoice.cancelled' | 'invoice.closed'>,
): Promise<Built | null> {
  const invoice = await knownInvoice(db, deps.chain, fact.invoice, now);
  if (!invoice) return null; // neither cached, nor on chain, nor in its history: nothing to describe
  if (fact.kind === 'invoice.cancelled') {
    await setInvoiceStatus(db, fact.invoice, 2, now);
    return {
      event: {
        ...base(tx, fact, 'invoice.cancelled'),
        type: 'invoice.cancelled',
        payment: null,
        invoice: invoiceDetail({ ...invoice, status: 2 }, fact.actor),
      },
      wallet: fact.payee,
    };
  }
  const closedStatus = invoice.status as 0 | 1 | 2;
  return {
    event: {
      ...base(tx, fact, 'invoice.closed'),
      type: 'invoice.closed',
      payment: null,
      invoice: { ...invoiceDetail(invoice, fact.actor), closedStatus },
    },
    wallet: fact.payee,
  };
}

/** Does this active subscription receive this event? (status, types and watch start are checked by the caller) */
function subscriptionMatches(sub: SubscriptionRow, event: PayEvent, wallet: string): boolean {
  if (sub.scope_type === 'wallet') return sub.scope_value === wallet && event.type !== 'payment.binding_verified';
  if (!(JSON.parse(sub.wallets) as string[]).includes(wallet)) return false;
  if (event.payment) {
    // An @name subscription receives only payments whose binding to THIS name is verified.
    return (
      event.payment.binding.status === 'verified' &&
      event.payment.binding.handles.some((h) => h.account === sub.handle_account)
    );
  }
  // Invoice lifecycle events: invoices created bound to this name.
  const invoice = event.invoice as { bound?: boolean; handleAccount?: string | null };
  return invoice.bound === true && invoice.handleAccount === sub.handle_account;
}

/** Stores the event (once) and queues one delivery per matching active subscription (once). Returns deliveries added. */
async function persistAndFanOut(db: Db, subs: SubscriptionRow[], built: Built, now: number): Promise<number> {
  const event = PayEventSchema.parse(built.event);
  await insertPayEventOnce(db, {
    id: event.id,
    type: event.type,
    signature: event.chain.signature,
    slot: event.chain.slot,
    ix_index: event.chain.ixIndex,
    inner_index: event.chain.innerIndex,
    wallet: built.wallet,
    binding_status: event.payment?.binding.status ?? null,
    binding_checks: 0,
    payload: JSON.stringify(event),
    test: 0,
    created_at: now,
  });
  let queued = 0;
  for (const sub of subs) {
    if (sub.status !== 'active' || event.chain.slot <= sub.watch_from_slot) continue;
    if (!(JSON.parse(sub.event_types) as string[]).includes(event.type)) continue;
    if (!subscriptionMatches(sub, event, built.wallet)) continue;
    queued += await insertDeliveryOnce(db, newDeliveryRow(sub.id, event, false, now));
  }
  return queued;
}

// ---------------------------------------------------------------------------------------------------------
// The pass

/** Processes one finalized transaction for the watched wallets: its events and their deliveries in one db transaction. */
async function processTransaction(
  db: Kysely<Database>,
  deps: IndexerDeps,
  wallets: Map<string, number>,
  tx: ChainTransaction,
): Promise<{ events: number; deliveries: number }> {
  const now = nowOf(deps);
  const facts = decodePaymentFacts(tx, deps.chain.programId).filter((f) => {
    const from = wallets.get(f.kind === 'transfer' ? f.recipient : f.payee);
    return from !== undefined && tx.slot > BigInt(from);
  });
  const memo = transactionMemo(tx);
  // Chain reads (bindings, invoices) happen before the db transaction: a SQLite write lock must never be held
  // across network waits. The invoice cache writes are idempotent, so doing them here is safe.
  const built: Built[] = [];
  for (const fact of facts) {
    const one = await buildEvent(db, deps, tx, fact, memo);
    if (one) built.push(one);
  }
  let deliveries = 0;
  if (built.length > 0) {
    await db.transaction().execute(async (trx) => {
      const subs = await selectPaySubscriptionsFor(trx, [...new Set(built.map((one) => one.wallet))]);
      for (const one of built) deliveries += await persistAndFanOut(trx, subs, one, now);
    });
  }
  return { events: built.length, deliveries };
}

/** The addresses of a transaction a wallet subscription may watch: its keys and its token accounts' owners. */
function candidateWallets(tx: ChainTransaction): string[] {
  const owners = [...tx.preTokenBalances, ...tx.postTokenBalances].map((b) => b.owner);
  return [...tx.accountKeys, ...owners.filter((owner): owner is Address => owner !== null)];
}

/** Does this successful transaction touch a wallet watched since before its slot (directly or by a token account)? */
function touchesWatched(tx: ChainTransaction, wallets: Map<string, number>): boolean {
  const slot = Number(tx.slot);
  return candidateWallets(tx).some((wallet) => {
    const from = wallets.get(wallet);
    return from !== undefined && slot > from;
  });
}

/** How far back a subscription created before the last pass's newest one may still be unseen (replica clock skew). */
const NEW_SUBSCRIPTION_SKEW_MS = 5_000;
/** kv: the newest subscription creation time a completed pass saw, and the ids it saw within the skew before it. */
const SUBSCRIPTIONS_SEEN_KEY = 'ingest.pay.subscriptions-seen';

interface SeenSubscriptions {
  at: number;
  ids: string[];
}

/**
 * The slot after which the pay consumer needs blocks: its stored position, or earlier when a subscription no
 * completed pass has seen watches from a slot the cursor may have passed already (it looks back to it). Reads only
 * the subscriptions created since the last pass (an index range), or, on the very first pass, one aggregate.
 */
async function lookBack(
  db: Kysely<Database>,
  position: bigint | null,
  tip: bigint,
  seen: SeenSubscriptions,
): Promise<{ after: bigint; next: SeenSubscriptions }> {
  const recent = await selectPayCreatedSince(db, seen.at - NEW_SUBSCRIPTION_SKEW_MS + 1);
  const known = new Set(seen.ids);
  const fresh = recent.filter((sub) => !known.has(sub.id));
  const at = recent.reduce((newest, sub) => Math.max(newest, Number(sub.created_at)), seen.at);
  const next = {
    at,
    ids: recent.filter((sub) => Number(sub.created_at) > at - NEW_SUBSCRIPTION_SKEW_MS).map((sub) => sub.id),
  };
  const from =
    position === null
      ? await selectEarliestPayWatch(db)
      : fresh.reduce<number | null>((low, sub) => Math.min(low ?? Infinity, Number(sub.watch_from_slot)), null);
  const after = position ?? tip;
  return { after: from !== null && BigInt(from) < after ? BigInt(from) : after, next };
}

/**
 * The pay consumer: each block's candidate addresses are looked up in the watched-wallet index kept with the
 * subscriptions (webhook_watched_wallets, active subscriptions only), so a block costs one indexed lookup of its
 * own addresses, whatever the number of subscriptions, and every replica sees the same watched set.
 */
function payConsumer(db: Kysely<Database>, deps: IndexerDeps, result: IndexerPassResult): BlockConsumer {
  let next: SeenSubscriptions = { at: 0, ids: [] };
  let stored: string | undefined;
  return {
    name: 'pay',
    async prepare(position, tip) {
      stored = await readKv(db, SUBSCRIPTIONS_SEEN_KEY);
      const seen: SeenSubscriptions = stored ? (JSON.parse(stored) as SeenSubscriptions) : { at: 0, ids: [] };
      const planned = await lookBack(db, position, tip, seen);
      next = planned.next;
      return planned.after;
    },
    async consume(block: SourceBlock) {
      const succeeded = block.transactions.filter((tx) => tx.err === null);
      if (succeeded.length === 0) return;
      const wallets = await selectWatchedWallets(db, succeeded.flatMap(candidateWallets));
      if (wallets.size === 0) return;
      for (const tx of succeeded) {
        if (!touchesWatched(tx, wallets)) continue;
        const done = await processTransaction(db, deps, wallets, tx);
        result.transactions++;
        result.events += done.events;
        result.deliveries += done.deliveries;
        if (done.deliveries > 0) deps.onQueued?.();
      }
    },
    async finish() {
      const value = JSON.stringify(next);
      if (value !== stored) await writeKv(db, SUBSCRIPTIONS_SEEN_KEY, value, nowOf(deps));
    },
  };
}

/**
 * One indexer pass: new finalized blocks → events → deliveries (the pay consumer, plus `others` fed from the same
 * blocks under the same cursor), then binding re-checks and scope-change checks. Throws ChainError on RPC faults
 * (the worker backs off and retries; the cursor stays before the block that failed, nothing is lost or duplicated).
 */
export async function runIndexerPass(
  db: Kysely<Database>,
  deps: IndexerDeps,
  others: readonly BlockConsumer[] = [],
): Promise<IndexerPassResult> {
  const result: IndexerPassResult = { transactions: 0, events: 0, deliveries: 0, paused: 0 };
  const tip = deps.tip ?? (await deps.chain.getSlot('finalized'));
  const pay = deps.pay !== false;
  await runIngestPass(db, {
    chain: deps.chain,
    source: deps.source,
    consumers: pay ? [payConsumer(db, deps, result), ...others] : others,
    tip,
    followMs: deps.followMs,
    signal: deps.signal,
    now: deps.now,
  });
  if (!pay) return result;
  const rechecked = await recheckBindings(db, deps);
  result.events += rechecked.events;
  result.deliveries += rechecked.deliveries;
  result.paused = await pauseChangedScopes(db, deps);
  if (rechecked.deliveries > 0) deps.onQueued?.();
  return result;
}

/**
 * Payments whose binding was unverifiable: prove again; once verified, emit payment.binding_verified (its own
 * pev_ id, the full payment with the verified binding) to the @name subscriptions it now reaches.
 */
export async function recheckBindings(
  db: Kysely<Database>,
  deps: IndexerDeps,
): Promise<{ events: number; deliveries: number }> {
  const limit = deps.bindingRecheckLimit ?? 100;
  const rows = await selectUnverifiedBindings(db, limit, 50);
  let events = 0;
  let deliveries = 0;
  for (const row of rows) {
    const original = JSON.parse(row.payload) as PayEvent;
    if (!original.payment) continue;
    const slot = BigInt(row.slot);
    let binding: Binding;
    if (original.payment.kind === 'invoice' && original.payment.invoice) {
      const invoice = await knownInvoice(db, deps.chain, original.payment.invoice as Address, nowOf(deps));
      binding = invoice ? await invoiceBinding(deps.chain, invoice, slot) : { status: 'unverifiable', handles: [] };
    } else {
      binding = await transferBinding(
        db,
        deps.chain,
        row.wallet as Address,
        slot,
        deps.paymentRecordKey ?? PAYMENT_RECORD_KEY,
      );
    }
    const now = nowOf(deps);
    if (binding.status !== 'verified') {
      await setBindingCheck(db, row.id, {
        status: binding.status === 'none' ? 'none' : 'unverifiable',
        checks: row.binding_checks + 1,
      });
      continue;
    }
    const event = {
      ...original,
      id: payEventId(
        original.chain.signature,
        original.chain.ixIndex,
        original.chain.innerIndex,
        'payment.binding_verified',
      ),
      type: 'payment.binding_verified',
      payment: { ...original.payment, binding },
      ...(original.type === 'invoice.paid' ? { invoice: original.invoice } : {}),
    } as PayEvent;
    await db.transaction().execute(async (trx) => {
      const subs = await selectPaySubscriptionsFor(trx, [row.wallet]);
      deliveries += await persistAndFanOut(trx, subs, { event, wallet: row.wallet }, now);
      await setBindingCheck(trx, row.id, { status: 'verified-later', checks: row.binding_checks + 1 });
    });
    events++;
  }
  return { events, deliveries };
}

/**
 * `@name` subscriptions whose name changed owner, moved its payment address, or was released: paused with
 * `scope_changed: …` (a fresh registration with a new proof is required). RPC faults leave them as they are.
 */
export async function pauseChangedScopes(db: Kysely<Database>, deps: IndexerDeps): Promise<number> {
  let paused = 0;
  for (const sub of await selectActivePayNameSubscriptions(db)) {
    let reason: string | null = null;
    try {
      const control = await readNameControlByAccount(
        deps.chain,
        sub.handle_account as Address,
        deps.paymentRecordKey ?? PAYMENT_RECORD_KEY,
      );
      if (!control || control.handle.name !== sub.scope_value.slice(1))
        reason = `${sub.scope_value} is no longer registered`;
      else if (control.authority.authority !== sub.authority_wallet) reason = `${sub.scope_value} changed owner`;
      else if (control.paymentWallet !== sub.payment_wallet) reason = `${sub.scope_value} payment address moved`;
    } catch {
      continue;
    }
    if (!reason) continue;
    paused += await pauseActiveSubscription(db, sub.id, SCOPE_CHANGED_PREFIX + reason, nowOf(deps));
  }
  return paused;
}
