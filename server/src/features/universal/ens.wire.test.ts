// The ENS adapter at the JSON-RPC wire level: a loopback Ethereum node that decodes viem's real
// `resolveWithGateways` eth_call (DNS-encoded name, inner addr call, namehash) and answers with ABI-encoded results
// or the Universal Resolver's custom errors. (No in-process EVM here: see docs/universal.md.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionResult,
  parseAbi,
  type Hex,
} from 'viem';
import { namehash } from 'viem/ens';
import { ApiError } from '@sigil/contract/errors';
import { btcAddressFromScript, createEnsAdapter, type EnsAdapter } from './ens';

const UR = '0x00000000000000000000000000000000000000e5';
const RESOLVER = '0x0000000000000000000000000000000000000aaa';
const urAbi = parseAbi([
  'function resolveWithGateways(bytes name, bytes data, string[] gateways) view returns (bytes, address)',
  'error ResolverNotFound(bytes name)',
  'error UnsupportedResolverProfile(bytes4 selector)',
]);
const addrAbi = parseAbi(['function addr(bytes32 node) view returns (address)', 'function addr(bytes32 node, uint256 coinType) view returns (bytes)']);

const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const SOL_KEY = `0x${'11'.repeat(32)}` as Hex; // base58 of 32 × 0x11 (computed independently with python)
const P2WPKH = '0x0014751e76e8199196d454941c45d1b3a323f1433bd6' as Hex; // BIP-173 example

/** name → coin type → bytes (coin 60 answered through addr(node)). */
const RECORDS: Record<string, Record<string, Hex>> = {
  'vitalik.eth': { '60': VITALIK, '501': SOL_KEY, '0': P2WPKH },
  'nosol.eth': { '60': VITALIK },
};

let server: http.Server;
let ens: EnsAdapter;
const calls: string[] = [];

function dnsDecode(bytes: Hex): string {
  const b = Buffer.from(bytes.slice(2), 'hex');
  const labels: string[] = [];
  for (let i = 0; b[i] !== 0; i += b[i]! + 1) labels.push(b.subarray(i + 1, i + 1 + b[i]!).toString('utf8'));
  return labels.join('.');
}

function ethCall(data: Hex): { result?: Hex; revert?: Hex } {
  const { args } = decodeFunctionData({ abi: urAbi, data });
  const [nameBytes, inner] = args as [Hex, Hex, string[]];
  const name = dnsDecode(nameBytes);
  calls.push(name);
  if (name === 'offchain.eth') return { revert: `0x556f1830${'00'.repeat(64)}` as Hex };
  const records = RECORDS[name];
  if (!records) return { revert: encodeErrorResult({ abi: urAbi, errorName: 'ResolverNotFound', args: [nameBytes] }) };
  const call = decodeFunctionData({ abi: addrAbi, data: inner });
  if (call.args[0] !== namehash(name)) throw new Error('namehash mismatch');
  const resultOf = (bytes: Hex) => encodeFunctionResult({ abi: urAbi, functionName: 'resolveWithGateways', result: [bytes, RESOLVER] });
  if (call.args.length === 1) return { result: resultOf(encodeAbiParameters([{ type: 'address' }], [records['60'] as Hex])) };
  const coin = String((call.args as [Hex, bigint])[1]);
  if (name === 'nosol.eth' && coin === '0') return { revert: encodeErrorResult({ abi: urAbi, errorName: 'UnsupportedResolverProfile', args: ['0xf1cb7e06'] }) };
  return { result: resultOf(encodeAbiParameters([{ type: 'bytes' }], [records[coin] ?? '0x'])) };
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string; params: [{ data: Hex }] };
      const reply = (payload: object) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...payload }));
      if (msg.method === 'eth_chainId') return reply({ result: '0x1' });
      if (msg.method !== 'eth_call') return reply({ error: { code: -32601, message: 'method not found' } });
      const answer = ethCall(msg.params[0].data);
      return answer.revert ? reply({ error: { code: 3, message: 'execution reverted', data: answer.revert } }) : reply({ result: answer.result });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ens = createEnsAdapter({ rpcUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 2000, universalResolverAddress: UR });
}, 20_000);
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('ENS adapter over JSON-RPC', () => {
  it('ENSIP-15 normalizes, then resolves ETH (checksummed), SOL (base58) and BTC (from the script)', async () => {
    expect(await ens.resolve('VITALIK.eth', 'ETH')).toEqual({ name: 'vitalik.eth', address: VITALIK, verified: false });
    expect((await ens.resolve('vitalik.eth', 'SOL')).address).toBe('29d2S7vB453rNYFdR5Ycwt7y9haRT5fwVwL9zTmBhfV2');
    expect((await ens.resolve('vitalik.eth', 'BTC')).address).toBe('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    expect(calls.at(-1)).toBe('vitalik.eth');
  });
  it('maps strict errors and empty answers to our codes', async () => {
    expect(await failure(ens.resolve('unknown.eth', 'ETH'))).toEqual({ status: 404, code: 'NAME_NOT_FOUND', message: 'unknown.eth is not registered (no resolver)' });
    expect(await failure(ens.resolve('nosol.eth', 'SOL'))).toEqual({ status: 404, code: 'NO_RECORD_FOR_CHAIN', message: 'nosol.eth has no SOL address' });
    expect(await failure(ens.resolve('nosol.eth', 'BTC'))).toMatchObject({ status: 404, code: 'NO_RECORD_FOR_CHAIN', message: 'nosol.eth has no BTC address (UnsupportedResolverProfile)' });
    expect(await failure(ens.resolve('offchain.eth', 'ETH'))).toMatchObject({ status: 404, code: 'NO_RECORD_FOR_CHAIN' });
    expect(await failure(ens.resolve('vitalik.eth', 'X1'))).toMatchObject({ status: 404, code: 'NO_RECORD_FOR_CHAIN' });
    expect(await failure(ens.resolve('bad name.eth', 'ETH'))).toMatchObject({ status: 400, code: 'INVALID_NAME' });
  });
  it('502 when the node is unreachable', async () => {
    const down = createEnsAdapter({ rpcUrl: 'http://127.0.0.1:1', timeoutMs: 500, universalResolverAddress: UR });
    expect(await failure(down.resolve('vitalik.eth', 'ETH'))).toEqual({ status: 502, code: 'RPC_ERROR', message: 'the Ethereum RPC is unreachable' });
  });
  it('BTC scripts: P2PKH, P2SH, P2TR; unknown scripts refused', () => {
    const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
    expect(btcAddressFromScript(hex('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac'))).toBe('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa');
    expect(btcAddressFromScript(hex('a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87'))).toBe('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy');
    expect(btcAddressFromScript(hex('5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c'))).toBe(
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
    );
    expect(btcAddressFromScript(hex('6a0100'))).toBeNull();
  });
});
