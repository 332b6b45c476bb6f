// The one chain reader: every JSON-RPC call the service makes goes through here (docs/chain-reads.md).
// Transport failures and RPC errors become ChainError('unreachable'); undecodable data ChainError('malformed').
import { Pool } from 'undici';
// kit's own JSON codec for RPC (u64 as bigint both ways); a pinned dependency of @solana/kit 8.
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from '@solana/rpc-spec-types';
import {
  address as toAddress,
  createSolanaRpcFromTransport,
  SolanaError,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  getBase58Decoder,
  getBase58Encoder,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  type Address,
  type Base58EncodedBytes,
  type RpcTransport,
} from '@solana/kit';
import { findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from './programs';
import {
  ACCOUNT_DISCRIMINATORS,
  ACCOUNT_OFFSETS,
  decodeAttestation,
  decodeDomain,
  decodeHandle,
  decodeInvoice,
  decodePrimaryPointer,
  decodeRecord,
  findDomainPda,
  findHandlePda,
  findNamespacePda,
  findPrimaryPointerPda,
  RegistryDecodeError,
} from './registry';
import { isHandleReleased } from './live';
import {
  ChainError,
  type AtSlot,
  type AttestationAccount,
  type ChainReader,
  type ChainTransaction,
  type SignatureInfo,
  type TokenAccountRef,
  type TransactionTokenBalance,
  type WireTransaction,
  type Commitment,
  type DomainAccount,
  type HandleAccount,
  type HandleAuthority,
  type InvoiceAccount,
  type PrimaryPointerAccount,
  type RecordAccount,
  type RpcCallEvent,
} from './types';

export { isAttestationLive, isHandleReleased, isRecordLive, isRecordVerified, primaryTrusted } from './live';

const TOKEN_ACCOUNT_SIZE = 165;

/** Default commitment per read; see docs/chain-reads.md for why. */
export const DEFAULT_COMMITMENT = {
  resolution: 'confirmed',
  payments: 'finalized',
} as const satisfies Record<string, Commitment>;

export interface ChainReaderOptions {
  rpcUrl: string;
  programId: Address | string;
  /** Upper bound for one JSON-RPC call, transport included; a slower answer is `unreachable`. */
  timeoutMs: number;
  /** Called once per JSON-RPC call (the HTTP layer records Prometheus metrics from it). */
  onRpcCall?: (event: RpcCallEvent) => void;
  /** Replaces the HTTP transport (tests). The timeout still applies. */
  transport?: RpcTransport;
}

type EncodedAccount = { data: readonly [string, string] | unknown; owner: Address } | null;

class TimeoutError extends Error {}

/** The memcmp bytes of the registry scans, base58 once at load (kit's base58 goes through BigInt on every call). */
const SCAN_DISCRIMINATORS = {
  Record: getBase58Decoder().decode(ACCOUNT_DISCRIMINATORS.Record),
  Attestation: getBase58Decoder().decode(ACCOUNT_DISCRIMINATORS.Attestation),
} as const;

/** Most sockets kept open to the RPC node; requests beyond queue on them (HTTP/1.1, no pipelining). */
const RPC_CONNECTIONS = 32;

/**
 * JSON-RPC over a kept-alive undici Pool with `request()`: what kit's default transport does (POST JSON, u64 as
 * bigint, non-2xx is an HTTP error) without fetch's Request/Response/WebStream layers, which cost more CPU than
 * the RPC answer itself on small reads (docs/connect.md "Benchmark"). Unlike kit's default it does not ask for
 * compressed answers and does not coalesce identical requests of the same tick.
 *
 * `json: 'plain'` parses with JSON.parse instead of kit's bigint-exact codec (which wraps every integer of the
 * answer, ~20 µs per small read here). Only the account reads use it, and they read nothing from an answer but
 * the slot (checked to be a safe integer), the owner and the base64 data: lamports and rentEpoch are ignored.
 */
export function createPooledRpcTransport(rpcUrl: string, json: 'bigint' | 'plain' = 'bigint', pool?: Pool): RpcTransport {
  const url = new URL(rpcUrl);
  const connections = pool ?? new Pool(url.origin, { connections: RPC_CONNECTIONS });
  const path = url.pathname + url.search;
  const headers = { accept: 'application/json', 'content-type': 'application/json; charset=utf-8', 'solana-client': 'js/sigil' };
  const [stringify, parse] = json === 'plain' ? [JSON.stringify, JSON.parse] : [stringifyJsonWithBigInts, parseJsonWithBigInts];
  return (async ({ payload, signal }: Parameters<RpcTransport>[0]) => {
    const res = await connections.request({ method: 'POST', path, headers, body: stringify(payload), signal });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers: new Headers(), message: `HTTP ${res.statusCode}`, statusCode: res.statusCode });
    }
    return parse(text);
  }) as RpcTransport;
}

export function createChainReader(opts: ChainReaderOptions): ChainReader {
  const programId = toAddress(opts.programId);
  const pool = opts.transport ? undefined : new Pool(new URL(opts.rpcUrl).origin, { connections: RPC_CONNECTIONS });
  const inner = opts.transport ?? createPooledRpcTransport(opts.rpcUrl, 'bigint', pool);
  // The hot account reads skip kit's typed client (its request/response transformers walk every value) and its
  // bigint JSON codec; a test transport serves both paths.
  const plainInner = opts.transport ?? createPooledRpcTransport(opts.rpcUrl, 'plain', pool);

  // Abort the request (real HTTP) and also race a timer, so even a transport that ignores the signal cannot hang us.
  const withTimeout = (target: RpcTransport) =>
    (<TResponse>(config: Parameters<RpcTransport>[0]) => {
      const controller = new AbortController();
      const onOuterAbort = () => controller.abort(config.signal?.reason);
      config.signal?.addEventListener('abort', onOuterAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new TimeoutError(`no answer within ${opts.timeoutMs} ms`));
        }, opts.timeoutMs);
      });
      return Promise.race([target<TResponse>({ ...config, signal: controller.signal }), timeout]).finally(() => {
        clearTimeout(timer);
        config.signal?.removeEventListener('abort', onOuterAbort);
      });
    }) as RpcTransport;
  const transport = withTimeout(inner);
  const plainTransport = withTimeout(plainInner);
  let nextId = 0;

  /** One JSON-RPC answer object's `result`, or a thrown error (a JSON-RPC error object, or no result). */
  function resultOf(answer: unknown): unknown {
    const reply = answer as { result?: unknown; error?: { code?: unknown; message?: unknown } } | null;
    if (reply?.error) throw new Error(`JSON-RPC error ${String(reply.error.code)}: ${String(reply.error.message)}`);
    if (!reply || typeof reply !== 'object' || !('result' in reply)) throw new Error('JSON-RPC answer without result');
    return reply.result;
  }

  /** One JSON-RPC call on the plain path: its `result`, or a thrown error (JSON-RPC error objects included). */
  async function plainCall(method: string, params: unknown[]): Promise<unknown> {
    return resultOf(await plainTransport({ payload: { jsonrpc: '2.0', id: String(nextId++), method, params } }));
  }

  /**
   * Several calls in ONE JSON-RPC batch request on the plain path (one HTTP exchange instead of several). Each
   * call's answer is matched by id and unwrapped separately, so one call's error does not hide the others'.
   */
  async function plainBatch(calls: readonly (readonly [method: string, params: unknown[]])[]): Promise<(() => unknown)[]> {
    const ids = calls.map(() => String(nextId++));
    const answers = await plainTransport({ payload: calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: ids[i], method, params })) });
    if (!Array.isArray(answers)) throw new Error('JSON-RPC batch answer is not an array');
    const byId = new Map(answers.map((a) => [String((a as { id?: unknown })?.id), a]));
    return ids.map((id) => () => resultOf(byId.get(id)));
  }
  const rpc = createSolanaRpcFromTransport(transport);

  function report(method: string, started: number, error?: RpcCallEvent['error']) {
    opts.onRpcCall?.({ method, durationMs: performance.now() - started, ...(error ? { error } : {}) });
  }

  /** One RPC call: send, then decode; each failure kind is reported and mapped to ChainError. */
  /** getTransaction in one encoding; `processed` is not served for transactions, so it reads as `confirmed`. */
  function sendGetTransaction(signature: string, commitment: Commitment, encoding: 'json' | 'base64') {
    return () =>
      rpc
        .getTransaction(signature as never, {
          commitment: commitment === 'processed' ? 'confirmed' : commitment,
          encoding: encoding as 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send() as Promise<unknown>;
  }

  async function read<R, T>(method: string, send: () => Promise<R>, decode: (raw: R) => T | Promise<T>): Promise<T> {
    const started = performance.now();
    let raw: R;
    try {
      raw = await send();
    } catch (err) {
      throw sendFailed(method, started, err);
    }
    return decodeReported(method, started, raw, decode);
  }

  /** A call that got no usable answer: reported, as ChainError('unreachable') (or the ChainError it already is). */
  function sendFailed(method: string, started: number, err: unknown): ChainError {
    // A well-delivered answer of the wrong shape (the plain path checks it while reading) stays `malformed`.
    if (err instanceof ChainError) {
      report(method, started, err.kind);
      return err;
    }
    report(method, started, 'unreachable');
    return new ChainError('unreachable', `${method}: ${describe(err)}`);
  }

  /** Decodes an answer; a failure is reported and thrown as ChainError('malformed'). */
  async function decodeReported<R, T>(method: string, started: number, raw: R, decode: (raw: R) => T | Promise<T>): Promise<T> {
    try {
      const value = await decode(raw);
      report(method, started);
      return value;
    } catch (err) {
      report(method, started, 'malformed');
      if (err instanceof ChainError) throw err;
      throw new ChainError('malformed', `${method}: ${describe(err)}`);
    }
  }

  /** Account bytes, or null when absent. The account must be owned by `owners` and base64-encoded. */
  function accountBytes(account: EncodedAccount, at: Address, owners: readonly Address[]): Uint8Array | null {
    if (account === null) return null;
    if (!owners.includes(account.owner)) {
      throw new ChainError('malformed', `account ${at} is owned by ${account.owner}, not ${owners.join(' or ')}`, at);
    }
    const data = account.data;
    if (!Array.isArray(data) || data[1] !== 'base64' || typeof data[0] !== 'string') {
      throw new ChainError('malformed', `account ${at}: data is not base64`, at);
    }
    return Buffer.from(data[0], 'base64');
  }

  /** Runs a registry decoder, turning its RegistryDecodeError into ChainError('malformed', account). */
  function decodeAs<T>(at: Address, decode: () => T): T {
    try {
      return decode();
    } catch (err) {
      if (err instanceof RegistryDecodeError) throw new ChainError('malformed', `account ${at}: ${err.message}`, at);
      throw err;
    }
  }

  const accountParams = (at: Address, commitment: Commitment) => [at, { encoding: 'base64', ...commitmentParam(commitment) }];

  /** A plain getAccountInfo result, checked: `{context: {slot: bigint}, value}`. */
  function accountAnswer(at: Address, result: unknown): { context: { slot: bigint }; value: unknown } {
    const answer = result as { context?: { slot?: unknown }; value?: unknown } | null;
    if (!answer || typeof answer !== 'object' || answer.value === undefined) throw new ChainError('malformed', `getAccountInfo ${at}: no value in the answer`, at);
    return { context: { slot: slotOf(answer.context?.slot) }, value: answer.value };
  }

  /** getAccountInfo (base64) on the plain path. */
  function getAccount(at: Address, commitment: Commitment) {
    return async () => accountAnswer(at, await plainCall('getAccountInfo', accountParams(at, commitment)));
  }

  // PDA derivation hashes and checks the curve: memoize the few thousand names a process sees (bounded).
  const pdaMemo = new Map<string, Address>();
  async function memoPda(key: string, derive: () => Promise<readonly [Address, number]>): Promise<Address> {
    const hit = pdaMemo.get(key);
    if (hit) return hit;
    const [pda] = await derive();
    if (pdaMemo.size >= 10_000) pdaMemo.clear();
    pdaMemo.set(key, pda);
    return pda;
  }

  /** The registry's filtered scan: accounts of `kind` that belong to `handle` (memcmp on discriminator and handle). */
  function programAccountsParams(kind: 'Record' | 'Attestation', handle: Address, commitment: Commitment): unknown[] {
    const discriminator = SCAN_DISCRIMINATORS[kind];
    return [
      programId,
      {
        encoding: 'base64',
        ...commitmentParam(commitment),
        filters: [
          { memcmp: { offset: 0, bytes: discriminator, encoding: 'base58' } },
          { memcmp: { offset: ACCOUNT_OFFSETS[kind].handle, bytes: handle, encoding: 'base58' } },
        ],
      },
    ];
  }

  function decodeProgramAccounts<T>(accounts: unknown, decode: (at: Address, bytes: Uint8Array) => T): T[] {
    return (accounts as readonly { pubkey: Address; account: EncodedAccount }[]).map(({ pubkey, account }) => {
      const bytes = accountBytes(account, pubkey, [programId])!;
      return decodeAs(pubkey, () => decode(pubkey, bytes));
    });
  }

  async function programAccountsByHandle<T>(
    kind: 'Record' | 'Attestation',
    handle: Address,
    commitment: Commitment,
    decode: (at: Address, bytes: Uint8Array) => T,
  ): Promise<T[]> {
    return read(
      'getProgramAccounts',
      () => plainCall('getProgramAccounts', programAccountsParams(kind, handle, commitment)),
      (accounts) => decodeProgramAccounts(accounts, decode),
    );
  }

  /** A getHandle answer: the live account under the name's PDA, or null. */
  function handleOf(name: string, pda: Address, { context, value }: { context: { slot: bigint }; value: unknown }): AtSlot<HandleAccount | null> {
    const bytes = accountBytes(value as EncodedAccount, pda, [programId]);
    if (!bytes) return { value: null, slot: context.slot };
    const handle = stripBump(decodeAs(pda, () => decodeHandle(pda, bytes)));
    // The PDA commits to the name; a different stored name means the account is not what it claims.
    if (handle.name !== name) throw new ChainError('malformed', `account ${pda}: stores name "${handle.name}"`, pda);
    return { value: handle, slot: context.slot };
  }

  const decodeAttestations = (accounts: unknown): AttestationAccount[] =>
    decodeProgramAccounts(accounts, (at, bytes) => stripBump(decodeAttestation(at, bytes))).sort((a, b) =>
      a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0,
    );

  function stripBump<T extends { bump: number }>(value: T): Omit<T, 'bump'> {
    const { bump: _bump, ...rest } = value;
    return rest;
  }

  const reader: ChainReader = {
    rpcUrl: opts.rpcUrl,
    programId,

    async getHandle(name, commitment = DEFAULT_COMMITMENT.resolution) {
      const pda = await memoPda(`handle:${name}`, () => findHandlePda(programId, name));
      return read('getAccountInfo', getAccount(pda, commitment), (answer) => handleOf(name, pda, answer));
    },

    async getHandleWithAttestations(name, commitment = DEFAULT_COMMITMENT.resolution) {
      const pda = await memoPda(`handle:${name}`, () => findHandlePda(programId, name));
      const started = performance.now();
      let results: (() => unknown)[];
      try {
        results = await plainBatch([
          ['getAccountInfo', accountParams(pda, commitment)],
          ['getProgramAccounts', programAccountsParams('Attestation', pda, commitment)],
        ]);
      } catch (err) {
        sendFailed('getProgramAccounts', started, err);
        throw sendFailed('getAccountInfo', started, err);
      }
      const [handleResult, attestationsResult] = results as [() => unknown, () => unknown];
      /** One call's result out of the batch; its JSON-RPC error is reported as that call's failure. */
      const unwrap = (method: string, result: () => unknown) => {
        try {
          return result();
        } catch (err) {
          throw sendFailed(method, started, err);
        }
      };
      // The attestations part never fails the read: its error or undecodable answer is `null` (reported as such).
      const readAttestations = async () => decodeReported('getProgramAccounts', started, unwrap('getProgramAccounts', attestationsResult), decodeAttestations);
      const attestations = await readAttestations().catch(() => null);
      const answer = unwrap('getAccountInfo', handleResult);
      const handle = await decodeReported('getAccountInfo', started, answer, (result) => handleOf(name, pda, accountAnswer(pda, result)));
      return { handle, attestations };
    },

    async getHandleByAddress(handle, commitment = DEFAULT_COMMITMENT.resolution) {
      return read('getAccountInfo', getAccount(handle, commitment), ({ value }) => {
        const bytes = accountBytes(value as EncodedAccount, handle, [programId]);
        return bytes ? stripBump(decodeAs(handle, () => decodeHandle(handle, bytes))) : null;
      });
    },

    async getHandleAuthority(handle, commitment = DEFAULT_COMMITMENT.resolution): Promise<HandleAuthority> {
      if (!handle.tokenized) {
        if (isHandleReleased(handle)) return { authority: null, source: 'owner', reason: 'released' };
        return { authority: handle.owner, source: 'owner' };
      }
      const mint = handle.mint;
      if (!mint) throw new ChainError('malformed', `handle ${handle.address} is tokenized without a mint`, handle.address);

      const holder = await read(
        'getTokenLargestAccounts',
        async () => {
          try {
            return await rpc.getTokenLargestAccounts(mint, { commitment }).send();
          } catch (err) {
            // The node answers "invalid params" when the mint account is gone or not a mint: nobody holds the NFT.
            if (isSolanaError(err, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)) return null;
            throw err;
          }
        },
        (answer) => answer?.value.find((entry) => BigInt(entry.amount) >= 1n)?.address ?? null,
      );
      if (!holder) return { authority: null, source: 'nft-holder', reason: 'nft-burned' };

      const token = await read('getAccountInfo', getAccount(holder, commitment), ({ value }) => {
        const account = value as EncodedAccount;
        const bytes = accountBytes(account, holder, [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]);
        if (!bytes) return null; // closed between the two reads
        if (bytes.length < TOKEN_ACCOUNT_SIZE) throw new ChainError('malformed', `token account ${holder}: ${bytes.length} bytes`, holder);
        const decoded = getTokenDecoder().decode(bytes);
        if (decoded.mint !== mint) throw new ChainError('malformed', `token account ${holder} is for mint ${decoded.mint}`, holder);
        return { owner: decoded.owner, amount: decoded.amount, tokenProgram: account!.owner };
      });
      if (!token || token.amount < 1n) return { authority: null, source: 'nft-holder', reason: 'nft-burned' };

      const [ata] = await findAssociatedTokenPda({ owner: token.owner, mint, tokenProgram: token.tokenProgram });
      if (ata !== holder) return { authority: null, source: 'nft-holder', reason: 'nft-not-in-ata' };
      return { authority: token.owner, source: 'nft-holder' };
    },

    async getPrimary(wallet, commitment = DEFAULT_COMMITMENT.resolution): Promise<PrimaryPointerAccount | null> {
      const pda = await memoPda(`primary:${wallet}`, () => findPrimaryPointerPda(programId, wallet));
      return read('getAccountInfo', getAccount(pda, commitment), ({ value }) => {
        const bytes = accountBytes(value as EncodedAccount, pda, [programId]);
        if (!bytes) return null;
        const pointer = stripBump(decodeAs(pda, () => decodePrimaryPointer(pda, bytes)));
        if (pointer.wallet !== wallet) throw new ChainError('malformed', `account ${pda}: stores wallet ${pointer.wallet}`, pda);
        return pointer;
      });
    },

    async getRecords(handle, commitment = DEFAULT_COMMITMENT.resolution): Promise<RecordAccount[]> {
      const records = await programAccountsByHandle('Record', handle, commitment, (at, bytes) => stripBump(decodeRecord(at, bytes)));
      // Deterministic order for callers and caches: address records first, then by key.
      return records.sort((a, b) => (a.kind === b.kind ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : a.kind === 'address' ? -1 : 1));
    },

    async getAttestations(handle, commitment = DEFAULT_COMMITMENT.resolution): Promise<AttestationAccount[]> {
      return read('getProgramAccounts', () => plainCall('getProgramAccounts', programAccountsParams('Attestation', handle, commitment)), decodeAttestations);
    },

    async getDomain(label, tld, commitment = DEFAULT_COMMITMENT.resolution) {
      const namespace = await memoPda(`namespace:${tld}`, () => findNamespacePda(programId, tld));
      const pda = await memoPda(`domain:${namespace}:${label}`, () => findDomainPda(programId, namespace, label));
      return read('getAccountInfo', getAccount(pda, commitment), ({ context, value }): AtSlot<DomainAccount | null> => {
        const bytes = accountBytes(value as EncodedAccount, pda, [programId]);
        if (!bytes) return { value: null, slot: context.slot };
        const domain = stripBump(decodeAs(pda, () => decodeDomain(pda, bytes)));
        if (domain.label !== label || domain.tld !== tld || domain.namespace !== namespace) {
          throw new ChainError('malformed', `account ${pda}: stores ${domain.label}.${domain.tld}`, pda);
        }
        return { value: domain, slot: context.slot };
      });
    },

    async getInvoice(invoice, commitment = DEFAULT_COMMITMENT.payments): Promise<InvoiceAccount | null> {
      return read('getAccountInfo', getAccount(invoice, commitment), ({ value }) => {
        const bytes = accountBytes(value as EncodedAccount, invoice, [programId]);
        return bytes ? stripBump(decodeAs(invoice, () => decodeInvoice(invoice, bytes))) : null;
      });
    },

    getSlot(commitment = DEFAULT_COMMITMENT.resolution) {
      return read('getSlot', () => rpc.getSlot({ commitment }).send(), (slot) => BigInt(slot));
    },

    getGenesisHash() {
      return read('getGenesisHash', () => rpc.getGenesisHash().send(), (hash) => {
        if (typeof hash !== 'string' || hash.length === 0) throw new ChainError('malformed', 'getGenesisHash: not a hash');
        return hash as string;
      });
    },

    getVersion() {
      return read('getVersion', () => rpc.getVersion().send(), (version) => {
        if (typeof version?.['solana-core'] !== 'string') throw new ChainError('malformed', 'getVersion: no solana-core');
        const featureSet = version['feature-set'];
        return featureSet === undefined || featureSet === null
          ? { 'solana-core': version['solana-core'] }
          : { 'solana-core': version['solana-core'], 'feature-set': Number(featureSet) };
      });
    },

    // ---- payments (pay indexer): finalized by default ------------------------------------------------------

    getSignaturesForAddress(address, options = {}, commitment = DEFAULT_COMMITMENT.payments): Promise<SignatureInfo[]> {
      return read(
        'getSignaturesForAddress',
        () =>
          rpc
            .getSignaturesForAddress(address, {
              commitment: commitment === 'processed' ? 'confirmed' : commitment,
              ...(options.before ? { before: options.before as never } : {}),
              ...(options.until ? { until: options.until as never } : {}),
              ...(options.limit ? { limit: options.limit } : {}),
            })
            .send(),
        (list) =>
          (list as readonly { signature: string; slot: bigint; err: unknown; blockTime: bigint | null }[]).map((entry) => {
            if (typeof entry.signature !== 'string') throw new ChainError('malformed', 'getSignaturesForAddress: entry without signature');
            return {
              signature: entry.signature,
              slot: BigInt(entry.slot),
              err: entry.err ?? null,
              blockTime: entry.blockTime === null || entry.blockTime === undefined ? null : Number(entry.blockTime),
            };
          }),
      );
    },

    getTransaction(signature, commitment = DEFAULT_COMMITMENT.payments): Promise<ChainTransaction | null> {
      return read('getTransaction', sendGetTransaction(signature, commitment, 'json'), (raw) =>
        raw === null ? null : decodeTransaction(signature, raw as unknown as RawTransaction),
      );
    },

    getTransactionWire(signature, commitment = DEFAULT_COMMITMENT.payments): Promise<WireTransaction | null> {
      return read('getTransaction', sendGetTransaction(signature, commitment, 'base64'), (raw) => {
        if (raw === null) return null;
        const tx = raw as unknown as WireTransaction;
        if (!Array.isArray(tx.transaction) || typeof tx.transaction[0] !== 'string') {
          throw new ChainError('malformed', `getTransaction ${signature}: no base64 transaction`);
        }
        return tx;
      });
    },

    async getTokenAccountsByOwner(owner, commitment = DEFAULT_COMMITMENT.payments): Promise<TokenAccountRef[]> {
      // getProgramAccounts with the owner filter (offset 32 of a token account) on both token programs: served by
      // every node and by the local chain. Token-2022 accounts may carry extensions (longer than 165 bytes).
      const out: TokenAccountRef[] = [];
      for (const programId of [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]) {
        const filters = [
          { memcmp: { offset: 32n, bytes: owner as unknown as Base58EncodedBytes, encoding: 'base58' as const } },
          ...(programId === TOKEN_PROGRAM_ADDRESS ? [{ dataSize: BigInt(TOKEN_ACCOUNT_SIZE) }] : []),
        ];
        const accounts = await read(
          'getProgramAccounts',
          () => rpc.getProgramAccounts(programId, { encoding: 'base64', commitment, filters }).send(),
          (list) =>
            (list as readonly { pubkey: Address; account: EncodedAccount }[]).flatMap(({ pubkey, account }) => {
              const bytes = accountBytes(account, pubkey, [programId]);
              // A Token-2022 account with extensions has its account type (2 = Account) right after the base layout.
              if (!bytes || bytes.length < TOKEN_ACCOUNT_SIZE || (bytes.length > TOKEN_ACCOUNT_SIZE && bytes[TOKEN_ACCOUNT_SIZE] !== 2)) return [];
              const decoded = getTokenDecoder().decode(bytes.subarray(0, TOKEN_ACCOUNT_SIZE));
              if (decoded.owner !== owner) return [];
              return [{ address: pubkey, mint: decoded.mint, owner: decoded.owner, programId }];
            }),
        );
        out.push(...accounts);
      }
      return out;
    },
  };
  return reader;
}

interface RawInstruction {
  programIdIndex: number | bigint;
  accounts: readonly (number | bigint)[];
  data: string;
}
interface RawTokenBalance {
  accountIndex: number | bigint;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string };
}
interface RawTransaction {
  slot: bigint;
  blockTime: bigint | null;
  meta: {
    err: unknown;
    preBalances: readonly bigint[];
    postBalances: readonly bigint[];
    preTokenBalances?: readonly RawTokenBalance[] | null;
    postTokenBalances?: readonly RawTokenBalance[] | null;
    innerInstructions?: readonly { index: number | bigint; instructions: readonly RawInstruction[] }[] | null;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
  transaction: {
    message: { accountKeys: readonly string[]; header: { numRequiredSignatures: number | bigint }; instructions: readonly RawInstruction[] };
  };
}

/** The RPC's json form → ChainTransaction. Throws on anything that does not add up (indices out of range). */
function decodeTransaction(signature: string, raw: RawTransaction): ChainTransaction {
  const meta = raw.meta;
  if (!meta) throw new ChainError('malformed', `getTransaction ${signature}: no meta`);
  const message = raw.transaction.message;
  const accountKeys = [
    ...message.accountKeys,
    ...(meta.loadedAddresses?.writable ?? []),
    ...(meta.loadedAddresses?.readonly ?? []),
  ].map((k) => toAddress(k));
  const key = (index: number | bigint): Address => {
    const k = accountKeys[Number(index)];
    if (k === undefined) throw new ChainError('malformed', `getTransaction ${signature}: account index ${index} out of range`);
    return k;
  };
  const base58 = getBase58Encoder();
  const instruction = (ix: RawInstruction) => ({
    programId: key(ix.programIdIndex),
    accounts: ix.accounts.map(key),
    data: new Uint8Array(base58.encode(ix.data)),
  });
  const inner = new Map<number, RawInstruction[]>();
  for (const group of meta.innerInstructions ?? []) inner.set(Number(group.index), [...group.instructions]);
  const balances = (list: readonly RawTokenBalance[] | null | undefined): TransactionTokenBalance[] =>
    (list ?? []).map((b) => ({
      accountIndex: Number(b.accountIndex),
      account: key(b.accountIndex),
      mint: toAddress(b.mint),
      owner: b.owner ? toAddress(b.owner) : null,
      programId: b.programId ? toAddress(b.programId) : null,
      amount: BigInt(b.uiTokenAmount.amount),
    }));
  return {
    signature,
    slot: BigInt(raw.slot),
    blockTime: raw.blockTime === null || raw.blockTime === undefined ? null : Number(raw.blockTime),
    err: meta.err ?? null,
    accountKeys,
    signers: accountKeys.slice(0, Number(message.header.numRequiredSignatures)),
    instructions: message.instructions.map((ix, index) => ({ ...instruction(ix), inner: (inner.get(index) ?? []).map(instruction) })),
    preBalances: meta.preBalances.map((b) => BigInt(b)),
    postBalances: meta.postBalances.map((b) => BigInt(b)),
    preTokenBalances: balances(meta.preTokenBalances),
    postTokenBalances: balances(meta.postTokenBalances),
  };
}

/** As kit sends it: `finalized` is every node's default, so it is left out. */
function commitmentParam(commitment: Commitment): { commitment?: Commitment } {
  return commitment === 'finalized' ? {} : { commitment };
}

/** A slot from a plain-JSON answer: a safe integer (a larger one could not be read exactly), as bigint. */
function slotOf(slot: unknown): bigint {
  if (typeof slot === 'bigint') return slot; // a test transport speaking kit's codec
  if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) throw new ChainError('malformed', `context.slot ${String(slot)} is not a slot`);
  return BigInt(slot);
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
