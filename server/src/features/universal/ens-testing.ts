// Test fixture: a loopback Ethereum JSON-RPC node that decodes viem's real `resolveWithGateways` eth_call
// (DNS-encoded name, inner addr call, namehash) and answers with ABI-encoded records or the Universal Resolver's
// custom errors. Wire level, no EVM (docs/universal.md says why). Never imported by production code.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeFunctionData, encodeAbiParameters, encodeErrorResult, encodeFunctionResult, parseAbi, type Hex } from 'viem';
import { namehash } from 'viem/ens';

const RESOLVER = '0x0000000000000000000000000000000000000aaa';
const urAbi = parseAbi([
  'function resolveWithGateways(bytes name, bytes data, string[] gateways) view returns (bytes, address)',
  'error ResolverNotFound(bytes name)',
  'error UnsupportedResolverProfile(bytes4 selector)',
]);
const addrAbi = parseAbi(['function addr(bytes32 node) view returns (address)', 'function addr(bytes32 node, uint256 coinType) view returns (bytes)']);

/** name → coin type (as a decimal string) → record bytes. Coin 60 is answered through `addr(node)`. */
export type EnsRecords = Record<string, Record<string, Hex>>;

export interface EnsNode {
  url: string;
  /** Names asked for, in order. */
  calls: string[];
  /** While true, every request is answered with HTTP 503 (the adapter's "RPC failure"). */
  down: boolean;
  close(): Promise<void>;
}

function dnsDecode(bytes: Hex): string {
  const b = Buffer.from(bytes.slice(2), 'hex');
  const labels: string[] = [];
  for (let i = 0; b[i] !== 0; i += b[i]! + 1) labels.push(b.subarray(i + 1, i + 1 + b[i]!).toString('utf8'));
  return labels.join('.');
}

/**
 * Starts the node on loopback. A name in `records` with no entry for a coin answers UnsupportedResolverProfile (an
 * entry of `0x` answers an empty record); a name not in `records` answers ResolverNotFound; a name in
 * `offchainNames` answers the OffchainLookup revert (CCIP-read, which the adapter does not follow).
 */
export async function startEnsNode(records: EnsRecords, options: { offchainNames?: string[] } = {}): Promise<EnsNode> {
  const node = { calls: [] as string[], down: false } as EnsNode;

  function ethCall(data: Hex): { result?: Hex; revert?: Hex } {
    const { args } = decodeFunctionData({ abi: urAbi, data });
    const [nameBytes, inner] = args as [Hex, Hex, string[]];
    const name = dnsDecode(nameBytes);
    node.calls.push(name);
    if (options.offchainNames?.includes(name)) return { revert: `0x556f1830${'00'.repeat(64)}` as Hex };
    const named = records[name];
    if (!named) return { revert: encodeErrorResult({ abi: urAbi, errorName: 'ResolverNotFound', args: [nameBytes] }) };
    const call = decodeFunctionData({ abi: addrAbi, data: inner });
    if (call.args[0] !== namehash(name)) throw new Error('namehash mismatch');
    const resultOf = (bytes: Hex) => encodeFunctionResult({ abi: urAbi, functionName: 'resolveWithGateways', result: [bytes, RESOLVER] });
    const coin = call.args.length === 1 ? '60' : String((call.args as [Hex, bigint])[1]);
    const value = named[coin];
    if (value === undefined) return { revert: encodeErrorResult({ abi: urAbi, errorName: 'UnsupportedResolverProfile', args: ['0xf1cb7e06'] }) };
    return { result: resultOf(coin === '60' && call.args.length === 1 ? encodeAbiParameters([{ type: 'address' }], [value]) : encodeAbiParameters([{ type: 'bytes' }], [value])) };
  }

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (node.down) return res.writeHead(503).end();
      const msg = JSON.parse(body) as { id: number; method: string; params: [{ data: Hex }] };
      const reply = (payload: object) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...payload }));
      if (msg.method === 'eth_chainId') return reply({ result: '0x1' });
      if (msg.method !== 'eth_call') return reply({ error: { code: -32601, message: 'method not found' } });
      const answer = ethCall(msg.params[0].data);
      return answer.revert ? reply({ error: { code: 3, message: 'execution reverted', data: answer.revert } }) : reply({ result: answer.result });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return node;
}
