// The local chain's Yellowstone gRPC (Geyser) endpoint, so that a Geyser consumer is tested end to end with the stock
// client: `Subscribe` with `blocks` and `transactions` filters at any commitment, `from_slot` replay from any slot
// of the ledger, pings both ways; and the unary reads (GetSlot, GetVersion, Ping, GetLatestBlockhash,
// GetBlockHeight, IsBlockhashValid, SubscribeReplayInfo). Plain-text HTTP/2 on loopback only; an optional x-token.
// The chain's test faults apply: `skipEmptySlots` leaves those blocks out, `unreachable` or an `rpcError` (for all
// methods, or naming `Subscribe`) is an outage: streams end and calls are refused with UNAVAILABLE until cleared.
// See docs/local-chain.md "Geyser (Yellowstone gRPC)".
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { isAddressText } from './base58';
import type { Faults } from './faults';
import { blockUpdate, transactionInfo, type TransactionInfo } from './geyser-blocks';
import type { Commitment, Ledger, TransactionRecord } from './ledger';
import { RPC_API_VERSION } from './rpc-methods';
import type { LoopbackHost } from './rpc-server';

const PROTO_PATH = fileURLToPath(new URL('./geyser.proto', import.meta.url));

/** How often streams look for newly settled slots; a tenth of the default slot. */
const POLL_MS = 40;
/** Yellowstone's own server pings every stream this often, so a consumer's keep-alive handling is exercised. */
const DEFAULT_PING_INTERVAL_MS = 10_000;
const SHUTDOWN_GRACE_MS = 2_000;

const COMMITMENT_NAMES: Record<string, Commitment> = {
  PROCESSED: 'processed',
  CONFIRMED: 'confirmed',
  FINALIZED: 'finalized',
};

// Request and update shapes as @grpc/proto-loader decodes/encodes them (enums as names, u64 as decimal strings).
interface BlocksFilter {
  accountInclude?: string[];
  includeTransactions?: boolean;
  includeAccounts?: boolean;
  includeEntries?: boolean;
}
interface TransactionsFilter {
  vote?: boolean;
  failed?: boolean;
  signature?: string;
  accountInclude?: string[];
  accountExclude?: string[];
  accountRequired?: string[];
}
/** One entry of a filter map (geyser.proto spells the maps as entries); no value = a filter of defaults. */
type Entries<F> = { key?: string; value?: F }[];
interface SubscribeRequest {
  accounts?: Entries<unknown>;
  slots?: Entries<unknown>;
  transactions?: Entries<TransactionsFilter>;
  transactionsStatus?: Entries<unknown>;
  blocks?: Entries<BlocksFilter>;
  blocksMeta?: Entries<unknown>;
  entry?: Entries<unknown>;
  commitment?: string;
  accountsDataSlice?: unknown[];
  ping?: { id?: number };
  fromSlot?: string;
}
type Update = { filters: string[] } & Record<string, unknown>;
type SubscribeCall = grpc.ServerDuplexStream<SubscribeRequest, Update>;

class FilterError extends Error {}

/** A compiled subscription: which blocks and transactions one Subscribe stream receives, at which commitment. */
interface Subscription {
  commitment: Commitment;
  blocks: { name: string; includeTransactions: boolean; accounts: Set<string> | null }[];
  transactions: { name: string; matches: (record: TransactionRecord) => boolean }[];
}

const UNSERVED = ['accounts', 'slots', 'transactionsStatus', 'blocksMeta', 'entry'] as const;

/** A filter map as name → filter, later entries winning as in a protobuf map. */
function named<F extends object>(entries: Entries<F> | undefined): [string, Partial<F>][] {
  return [...new Map((entries ?? []).map((e): [string, Partial<F>] => [e.key ?? '', e.value ?? {}])).entries()];
}

function addresses(list: string[] | undefined, where: string): Set<string> {
  for (const text of list ?? []) {
    if (!isAddressText(text)) throw new FilterError(`${where}: invalid address ${text}`);
  }
  return new Set(list ?? []);
}

function compileTransactions(name: string, f: TransactionsFilter) {
  const include = addresses(f.accountInclude, `transactions.${name}.account_include`);
  const exclude = addresses(f.accountExclude, `transactions.${name}.account_exclude`);
  const required = addresses(f.accountRequired, `transactions.${name}.account_required`);
  // The local chain has no vote transactions: `vote: true` asks for votes only, so nothing matches.
  const votesOnly = f.vote === true;
  return (record: TransactionRecord) => {
    if (votesOnly) return false;
    if (f.failed !== undefined && f.failed !== (record.meta.err !== null)) return false;
    if (f.signature !== undefined && f.signature !== record.signature) return false;
    const keys = record.accountKeys;
    if (include.size > 0 && !keys.some((k) => include.has(k))) return false;
    if (keys.some((k) => exclude.has(k))) return false;
    for (const k of required) if (!keys.includes(k as never)) return false;
    return true;
  };
}

/** The request's filters as a Subscription; a filter the local chain does not serve is refused by name. */
function compile(request: SubscribeRequest): Subscription {
  for (const kind of UNSERVED) {
    if ((request[kind] ?? []).length > 0) throw new FilterError(`${kind} filters are not served here`);
  }
  if ((request.accountsDataSlice ?? []).length > 0) throw new FilterError('accounts_data_slice is not served here');
  const commitment = COMMITMENT_NAMES[request.commitment ?? 'PROCESSED'];
  if (!commitment) throw new FilterError(`unknown commitment ${request.commitment}`);
  const blocks = named(request.blocks).map(([name, f]) => {
    if (f.includeAccounts || f.includeEntries) {
      throw new FilterError(`blocks.${name}: include_accounts and include_entries are not served here`);
    }
    const accounts = addresses(f.accountInclude, `blocks.${name}.account_include`);
    return { name, includeTransactions: f.includeTransactions !== false, accounts: accounts.size ? accounts : null };
  });
  const transactions = named(request.transactions).map(([name, f]) => ({
    name,
    matches: compileTransactions(name, f),
  }));
  return { commitment, blocks, transactions };
}

/** Every update one slot produces for a subscription: its matching transactions, then its blocks. */
function updatesFor(ledger: Ledger, faults: Faults, subscription: Subscription, slot: bigint): Update[] {
  const records = ledger.blockTransactions(slot);
  // A slot reported as skipped has no block: nothing to send.
  if (records.length === 0 && faults.skipEmptySlots) return [];
  const infos = new Map<number, TransactionInfo>();
  const info = (index: number) => {
    let hit = infos.get(index);
    if (!hit) infos.set(index, (hit = transactionInfo(records[index]!, index)));
    return hit;
  };
  const out: Update[] = [];
  records.forEach((record, index) => {
    const names = subscription.transactions.filter((t) => t.matches(record)).map((t) => t.name);
    if (names.length > 0)
      out.push({ filters: names, transaction: { transaction: info(index), slot: slot.toString() } });
  });
  for (const block of subscription.blocks) {
    const kept = block.includeTransactions
      ? records.flatMap((record, index) =>
          block.accounts === null || record.accountKeys.some((k) => block.accounts!.has(k)) ? [info(index)] : [],
        )
      : [];
    out.push({ filters: [block.name], block: blockUpdate(ledger, slot, kept) });
  }
  return out;
}

/** One Subscribe stream: its subscription, the next slot to send, and writes that wait for the client to read. */
class Stream {
  private subscription: Subscription | null = null;
  private next: bigint | null = null;
  private pumping = false;
  private closed = false;
  private readonly whenClosed: Promise<void>;

  constructor(
    private readonly call: SubscribeCall,
    private readonly ledger: Ledger,
    private readonly faults: Faults,
  ) {
    this.whenClosed = new Promise((resolve) => {
      const close = () => {
        this.closed = true;
        resolve();
      };
      call.once('cancelled', close);
      call.once('close', close);
      call.once('error', close);
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onRequest(request: SubscribeRequest): void {
    if (request.ping) {
      void this.write({ filters: [], pong: { id: request.ping.id ?? 0 } });
      return;
    }
    let subscription: Subscription;
    try {
      subscription = compile(request);
    } catch (err) {
      if (!(err instanceof FilterError)) throw err;
      this.fail(grpc.status.INVALID_ARGUMENT, `failed to create filter: ${err.message}`);
      return;
    }
    this.subscription = subscription;
    if (request.fromSlot !== undefined) this.next = BigInt(request.fromSlot);
    else if (this.next === null) this.next = this.ledger.completeSlotAt(subscription.commitment) + 1n;
    void this.pump();
  }

  ping(): void {
    if (this.subscription) void this.write({ filters: [], ping: {} });
  }

  /** Sends every settled slot from `next` on, one update at a time (a slow reader holds the stream, not memory). */
  async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const outage = outageOf(this.faults);
        if (outage) return this.fail(grpc.status.UNAVAILABLE, outage);
        const { subscription, next: slot } = this;
        if (this.closed || !subscription || slot === null || slot > this.ledger.completeSlotAt(subscription.commitment))
          return;
        for (const update of updatesFor(this.ledger, this.faults, subscription, slot)) await this.write(update);
        // A new request with from_slot may have moved the cursor while this slot was being written.
        if (this.next === slot) this.next = slot + 1n;
      }
    } catch (err) {
      this.fail(grpc.status.INTERNAL, `cannot serve the block: ${(err as Error).message}`);
    } finally {
      this.pumping = false;
    }
  }

  private async write(update: Update): Promise<void> {
    if (this.closed) return;
    if (!this.call.write(update)) {
      await Promise.race([new Promise((resolve) => this.call.once('drain', resolve)), this.whenClosed]);
    }
  }

  fail(code: grpc.status, details: string): void {
    if (this.closed) return;
    this.closed = true;
    this.call.emit('error', { code, details });
  }
}

/** Why the endpoint is down under the chain's current faults, or null. */
function outageOf(faults: Faults): string | null {
  if (faults.unreachable) return 'the local chain is unreachable (fault)';
  const error = faults.rpcErrorFor('Subscribe');
  return error ? `the local chain answers errors (fault): ${error.message}` : null;
}

export interface GeyserServerOptions {
  ledger: Ledger;
  faults: Faults;
  host: LoopbackHost;
  /** 0 = any free port. */
  port: number;
  /** When set, every call must carry it in the `x-token` header (as hosted Geyser endpoints require). */
  token?: string;
  pingIntervalMs?: number;
}

export interface GeyserServer {
  /** http://127.0.0.1:<port> — what a Yellowstone client is given. */
  readonly url: string;
  readonly port: number;
  /** Subscribe streams accepted so far (a client keeping one stream open shows here as one). */
  readonly subscriptions: number;
  /** Ends every stream (UNAVAILABLE) and stops listening. */
  close(): Promise<void>;
}

type Unary<Req, Res> = grpc.handleUnaryCall<Req, Res>;

const commitmentOf = (request: { commitment?: string }): Commitment =>
  COMMITMENT_NAMES[request.commitment ?? 'PROCESSED'] ?? 'processed';

export async function startGeyserServer(options: GeyserServerOptions): Promise<GeyserServer> {
  const { ledger, faults } = options;
  const definition = loadSync(PROTO_PATH, { keepCase: false, longs: String, enums: String, defaults: false });
  const service = (grpc.loadPackageDefinition(definition).geyser as grpc.GrpcObject)
    .Geyser as grpc.ServiceClientConstructor;
  const streams = new Set<Stream>();
  let subscriptions = 0;

  const authorized = (metadata: grpc.Metadata) =>
    options.token === undefined || metadata.get('x-token')[0] === options.token;
  const unauthenticated = { code: grpc.status.UNAUTHENTICATED, details: 'invalid x-token' };
  /** A unary handler behind the x-token check. */
  const unary =
    <Req, Res>(answer: (request: Req) => Res): Unary<Req, Res> =>
    (call, callback) => {
      const outage = outageOf(faults);
      if (!authorized(call.metadata)) callback(unauthenticated);
      else if (outage) callback({ code: grpc.status.UNAVAILABLE, details: outage });
      else callback(null, answer(call.request));
    };

  const server = new grpc.Server();
  server.addService(service.service, {
    subscribe(call: SubscribeCall) {
      const stream = new Stream(call, ledger, faults);
      const outage = outageOf(faults);
      if (!authorized(call.metadata)) {
        stream.fail(unauthenticated.code, unauthenticated.details);
        return;
      }
      if (outage) {
        stream.fail(grpc.status.UNAVAILABLE, outage);
        return;
      }
      streams.add(stream);
      subscriptions++;
      call.on('data', (request: SubscribeRequest) => stream.onRequest(request));
      // The client half-closed: it sends no more requests, but keeps receiving (as Yellowstone does).
      call.on('end', () => undefined);
      call.once('cancelled', () => streams.delete(stream));
      call.once('close', () => streams.delete(stream));
    },
    subscribeReplayInfo: unary(() => ({ firstAvailable: '0' })),
    ping: unary((request: { count?: number }) => ({ count: request.count ?? 0 })),
    getLatestBlockhash: unary((request: { commitment?: string }) => {
      const latest = ledger.latestBlockhash(commitmentOf(request));
      return {
        slot: latest.slot.toString(),
        blockhash: latest.blockhash,
        lastValidBlockHeight: latest.lastValidBlockHeight.toString(),
      };
    }),
    getBlockHeight: unary((request: { commitment?: string }) => ({
      blockHeight: ledger.slotAt(commitmentOf(request)).toString(),
    })),
    getSlot: unary((request: { commitment?: string }) => ({ slot: ledger.slotAt(commitmentOf(request)).toString() })),
    isBlockhashValid: unary((request: { blockhash?: string; commitment?: string }) => ({
      slot: ledger.slotAt(commitmentOf(request)).toString(),
      valid: ledger.isBlockhashValid(request.blockhash ?? ''),
    })),
    getVersion: unary(() => ({
      version: JSON.stringify({ version: { package: 'sigil-localchain', version: RPC_API_VERSION } }),
    })),
  });

  const address = options.host === '::1' ? `[::1]:${options.port}` : `${options.host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  const poll = setInterval(() => {
    for (const stream of streams) void stream.pump();
  }, POLL_MS);
  const pings = setInterval(() => {
    for (const stream of streams) stream.ping();
  }, options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS);
  poll.unref();
  pings.unref();

  return {
    url: `http://${options.host === '::1' ? '[::1]' : options.host}:${port}`,
    port,
    get subscriptions() {
      return subscriptions;
    },
    async close() {
      clearInterval(poll);
      clearInterval(pings);
      for (const stream of streams) stream.fail(grpc.status.UNAVAILABLE, 'the local chain is shutting down');
      streams.clear();
      await new Promise<void>((resolve) => {
        // A client that keeps its connection open does not hold the shutdown beyond this bound.
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, SHUTDOWN_GRACE_MS);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
