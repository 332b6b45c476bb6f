// Test fixture: a loopback Ethereum JSON-RPC node over an in-process EVM (@ethereumjs/evm) that executes real
// contract code: ENS's own compiled ENSRegistry and PublicResolver, and our Universal Resolver and odd resolvers of
// resolvers.sol (bytecode in contracts.json, rebuilt by build.ts). The Universal Resolver
// also sits at viem's mainnet address, so an adapter with production defaults resolves against it. Never imported by
// production code.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { createAddressFromString } from '@ethereumjs/util';
import {
  bytesToHex,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  hexToBytes,
  labelhash,
  parseAbi,
  type Address,
  type Hex,
} from 'viem';
import { mainnet } from 'viem/chains';
import { namehash } from 'viem/ens';
import type { EnsTestContract } from './build';

const contracts = JSON.parse(readFileSync(new URL('./contracts.json', import.meta.url), 'utf8')) as Record<
  string,
  EnsTestContract
>;

const registryAbi = parseAbi([
  'function setSubnodeOwner(bytes32 node, bytes32 label, address owner) returns (bytes32)',
  'function setResolver(bytes32 node, address resolver)',
]);
const publicResolverAbi = parseAbi(['function setAddr(bytes32 node, uint256 coinType, bytes a)']);
const urAbi = parseAbi([
  'function resolveWithGateways(bytes name, bytes data, string[] gateways) view returns (bytes, address)',
]);

/**
 * What a test name gets on chain. An object: ENS's PublicResolver with these records, by ENSIP-9 coin type as a
 * decimal string ('60' a 20-byte ETH address, '501' a 32-byte SOL key, '0' a BTC scriptPubKey); `{}` = no records.
 * `reverting-resolver`: every call reverts. `offchain-resolver`: an ENSIP-10 resolver answering EIP-3668
 * `OffchainLookup`. `eoa-resolver`: the resolver is an address without code. `{ legacyResolver }`: an old resolver
 * with `addr(bytes32)` only, answering nothing for other coin types. A name not listed is not registered.
 */
export type EnsNameSetup =
  | Partial<Record<string, Hex>>
  | 'reverting-resolver'
  | 'offchain-resolver'
  | 'eoa-resolver'
  | { legacyResolver: Address };

export interface EnsNode {
  url: string;
  /** Where the Universal Resolver is deployed: viem's mainnet default, so adapters need no override. */
  universalResolverAddress: Address;
  /** Names asked of the Universal Resolver, in order. */
  calls: string[];
  /** While true, every request is answered with HTTP 503 (the adapter's "RPC failure"). */
  down: boolean;
  close(): Promise<void>;
}

const DEPLOYER = createAddressFromString(`0x${'de'.repeat(20)}`);
const GAS_LIMIT = 30_000_000n;

function dnsDecode(bytes: Hex): string {
  const b = Buffer.from(bytes.slice(2), 'hex');
  const labels: string[] = [];
  for (let i = 0; i < b.length && b[i] !== 0; i += b[i]! + 1)
    labels.push(b.subarray(i + 1, i + 1 + b[i]!).toString('utf8'));
  return labels.join('.');
}

/** A transaction-like call from the deployer that must succeed (deployments and record writes). */
async function transact(evm: EVM, to: Address | undefined, data: Hex): Promise<Address | undefined> {
  const result = await evm.runCall({
    caller: DEPLOYER,
    to: to ? createAddressFromString(to) : undefined,
    data: hexToBytes(data),
    gasLimit: GAS_LIMIT,
    skipBalance: true,
  });
  if (result.execResult.exceptionError)
    throw new Error(
      `ENS test chain setup failed: ${result.execResult.exceptionError.error} ${bytesToHex(result.execResult.returnValue)}`,
    );
  return result.createdAddress?.toString() as Address | undefined;
}

const deploy = async (evm: EVM, contract: string, constructorArgs: Hex = '0x') =>
  (await transact(evm, undefined, `${contracts[contract]!.bytecode}${constructorArgs.slice(2)}` as Hex))!;

/** Deploys ENS and registers `names` (each `label.eth`, or deeper), owned by the deployer. ~0.1 s. */
async function buildChain(
  names: Record<string, EnsNameSetup>,
): Promise<{ evm: EVM; universalResolverAddress: Address }> {
  const evm = await createEVM();
  const registry = await deploy(evm, 'ENSRegistry'); // the deployer owns the root
  const registryArg = encodeAbiParameters([{ type: 'address' }], [registry]);
  const publicResolver = await deploy(evm, 'PublicResolver', registryArg);
  const ur = await deploy(evm, 'TestUniversalResolver', registryArg);
  // Its only state is the immutable registry address, inside the code: a copy of the code is the same contract.
  const universalResolverAddress = mainnet.contracts.ensUniversalResolver.address;
  await evm.stateManager.putCode(
    createAddressFromString(universalResolverAddress),
    await evm.stateManager.getCode(createAddressFromString(ur)),
  );

  const shared = { reverting: undefined as Address | undefined, offchain: undefined as Address | undefined };
  const owned = new Set<string>(['']);
  const own = async (name: string): Promise<void> => {
    if (owned.has(name)) return;
    const [label, ...rest] = name.split('.');
    const parent = rest.join('.');
    await own(parent);
    await transact(
      evm,
      registry,
      encodeFunctionData({
        abi: registryAbi,
        functionName: 'setSubnodeOwner',
        args: [namehash(parent), labelhash(label!), DEPLOYER.toString()],
      }),
    );
    owned.add(name);
  };
  for (const [name, setup] of Object.entries(names)) {
    await own(name);
    const node = namehash(name);
    let resolver: Address;
    if (setup === 'reverting-resolver') resolver = shared.reverting ??= await deploy(evm, 'RevertingResolver');
    else if (setup === 'offchain-resolver') resolver = shared.offchain ??= await deploy(evm, 'OffchainResolver');
    else if (setup === 'eoa-resolver') resolver = `0x${'0e'.repeat(20)}`;
    else if ('legacyResolver' in setup)
      resolver = await deploy(
        evm,
        'LegacyAddrResolver',
        encodeAbiParameters([{ type: 'address' }], [setup.legacyResolver as Address]),
      );
    else {
      resolver = publicResolver;
      for (const [coin, value] of Object.entries(setup as Record<string, Hex>)) {
        await transact(
          evm,
          publicResolver,
          encodeFunctionData({ abi: publicResolverAbi, functionName: 'setAddr', args: [node, BigInt(coin), value] }),
        );
      }
    }
    await transact(
      evm,
      registry,
      encodeFunctionData({ abi: registryAbi, functionName: 'setResolver', args: [node, resolver] }),
    );
  }
  return { evm, universalResolverAddress };
}

interface RpcRequest {
  id: number | string | null;
  method: string;
  params?: unknown[];
}

/** Starts the node on loopback with `names` registered. */
export async function startEnsNode(names: Record<string, EnsNameSetup>): Promise<EnsNode> {
  const { evm, universalResolverAddress } = await buildChain(names);
  const node = { calls: [] as string[], down: false, universalResolverAddress } as EnsNode;

  // One call at a time: the EVM and its state manager are not meant for interleaved runs.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };

  async function ethCall(tx: { to?: Hex; from?: Hex; data?: Hex; input?: Hex; gas?: Hex }): Promise<object> {
    const data = tx.data ?? tx.input ?? '0x';
    if (tx.to?.toLowerCase() === universalResolverAddress.toLowerCase()) {
      try {
        const { functionName, args } = decodeFunctionData({ abi: urAbi, data });
        if (functionName === 'resolveWithGateways') node.calls.push(dnsDecode(args[0]));
      } catch {
        // not a resolveWithGateways call: executed all the same
      }
    }
    const result = await serially(() =>
      evm.runCall({
        caller: createAddressFromString(tx.from ?? `0x${'00'.repeat(20)}`),
        to: tx.to ? createAddressFromString(tx.to) : undefined,
        data: hexToBytes(data),
        gasLimit: tx.gas ? BigInt(tx.gas) : GAS_LIMIT,
        isStatic: true, // eth_call never changes the chain
        skipBalance: true,
        skipNonceIncrement: true,
      }),
    );
    const error = result.execResult.exceptionError;
    if (!error) return { result: bytesToHex(result.execResult.returnValue) };
    if (error.error === 'revert')
      return { error: { code: 3, message: 'execution reverted', data: bytesToHex(result.execResult.returnValue) } };
    return { error: { code: -32000, message: error.error } };
  }

  async function answer(msg: RpcRequest): Promise<object> {
    const reply = (payload: object) => ({ jsonrpc: '2.0', id: msg.id, ...payload });
    switch (msg.method) {
      case 'eth_chainId':
        return reply({ result: '0x1' });
      case 'eth_blockNumber':
        return reply({ result: '0x1' });
      case 'eth_call':
        return reply(await ethCall((msg.params?.[0] ?? {}) as Parameters<typeof ethCall>[0]));
      default:
        return reply({ error: { code: -32601, message: `method ${msg.method} not found` } });
    }
  }

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      if (node.down) return res.writeHead(503).end();
      let payload: unknown;
      try {
        const msg = JSON.parse(body) as RpcRequest | RpcRequest[];
        payload = Array.isArray(msg) ? await Promise.all(msg.map(answer)) : await answer(msg);
      } catch (err) {
        payload = { jsonrpc: '2.0', id: null, error: { code: -32700, message: (err as Error).message } };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
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
