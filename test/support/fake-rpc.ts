// An in-memory JSON-RPC transport for chain-reader tests: accounts by address, the memcmp/owner filtering of
// getProgramAccounts, token holders for getTokenLargestAccounts, plus hooks to inject faults. Test-only.
import { getBase58Encoder, type Address, type RpcTransport } from '@solana/kit';
import { getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

export interface FakeAccount {
  owner: Address;
  data: Uint8Array;
}

export interface RpcRequest {
  method: string;
  params: any[];
}

/** Thrown by an override to answer with a JSON-RPC error object. */
export class RpcErrorReply extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface FakeChain {
  transport: RpcTransport;
  accounts: Map<Address, FakeAccount>;
  /** Mints that exist (getTokenLargestAccounts answers -32602 for any other). */
  mints: Set<Address>;
  calls: RpcRequest[];
  /** Transport invocations (HTTP requests, for a real node): a JSON-RPC batch is one request with several calls. */
  requests: number;
  slot: bigint;
  /** Per-method replacement: return a result, throw RpcErrorReply for an RPC error, or throw anything for a transport failure. */
  overrides: Map<string, (params: any[]) => unknown>;
}

export function createFakeChain(): FakeChain {
  const chain: FakeChain = {
    accounts: new Map(),
    mints: new Set(),
    calls: [],
    requests: 0,
    slot: 1000n,
    overrides: new Map(),
    transport: undefined as unknown as RpcTransport,
  };
  const encoded = (acc: FakeAccount) => ({
    data: [Buffer.from(acc.data).toString('base64'), 'base64'],
    owner: acc.owner,
    lamports: 1_000_000,
    executable: false,
    rentEpoch: 0,
    space: acc.data.length,
  });
  const base58 = getBase58Encoder();

  const handlers: Record<string, (params: any[]) => unknown> = {
    getAccountInfo([address]) {
      const acc = chain.accounts.get(address);
      return { context: { slot: Number(chain.slot) }, value: acc ? encoded(acc) : null };
    },
    getProgramAccounts([program, config]) {
      const out = [];
      for (const [pubkey, acc] of chain.accounts) {
        if (acc.owner !== program) continue;
        const matches = (config?.filters ?? []).every((f: any) => {
          if (f.dataSize !== undefined) return acc.data.length === Number(f.dataSize);
          const bytes = base58.encode(f.memcmp.bytes);
          const offset = Number(f.memcmp.offset);
          return bytes.every((b, i) => acc.data[offset + i] === b);
        });
        if (matches) out.push({ pubkey, account: encoded(acc) });
      }
      return out;
    },
    getTokenLargestAccounts([mint]) {
      if (!chain.mints.has(mint)) throw new RpcErrorReply(-32602, 'Invalid param: could not find mint');
      const holders = [];
      for (const [address, acc] of chain.accounts) {
        if (acc.owner !== TOKEN_PROGRAM_ADDRESS) continue;
        const token = getTokenDecoder().decode(acc.data);
        if (token.mint === mint) holders.push({ address, amount: token.amount });
      }
      holders.sort((a, b) => (a.amount < b.amount ? 1 : -1));
      return {
        context: { slot: Number(chain.slot) },
        value: holders.map((h) => ({
          address: h.address,
          amount: String(h.amount),
          decimals: 0,
          uiAmount: Number(h.amount),
          uiAmountString: String(h.amount),
        })),
      };
    },
    getSlot: () => Number(chain.slot),
    getGenesisHash: () => 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    getVersion: () => ({ 'solana-core': '2.2.0', 'feature-set': 3294202862 }),
  };

  const answer = async (call: unknown) => {
    const { id, method, params } = call as { id: unknown; method: string; params: any[] };
    chain.calls.push({ method, params });
    const handler = chain.overrides.get(method) ?? handlers[method];
    if (!handler) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
    try {
      return { jsonrpc: '2.0', id, result: await handler(params ?? []) };
    } catch (err) {
      if (err instanceof RpcErrorReply) return { jsonrpc: '2.0', id, error: { code: err.code, message: err.message } };
      throw err;
    }
  };
  // A batch (an array of calls) is answered in reverse order, as a node may: callers must match answers by id.
  chain.transport = (async ({ payload }: { payload: unknown }) => {
    chain.requests++;
    if (!Array.isArray(payload)) return answer(payload);
    const answers = [];
    for (const call of payload) answers.push(await answer(call));
    return answers.reverse();
  }) as RpcTransport;
  return chain;
}
