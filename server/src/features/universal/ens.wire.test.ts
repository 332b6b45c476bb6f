// The ENS adapter over JSON-RPC against the loopback node of startEnsNode, an in-process EVM running ENS's own
// registry and PublicResolver with a Universal Resolver at viem's mainnet address: the adapter is built with the
// production defaults (no resolver address override) and every answer comes from executed contract code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { btcAddressFromScript, createEnsAdapter, type EnsAdapter } from './ens';
import { startEnsNode, type EnsNode } from '@sigil/test/support/ens/node';
import { apiFailure as failure } from '@sigil/test/support/failures';

const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const SOL_KEY = `0x${'11'.repeat(32)}` as Hex; // base58 of 32 × 0x11 (computed independently with python)
const P2WPKH = '0x0014751e76e8199196d454941c45d1b3a323f1433bd6' as Hex; // BIP-173 example

let node: EnsNode;
let ens: EnsAdapter;

beforeAll(async () => {
  node = await startEnsNode({
    'vitalik.eth': { '60': VITALIK, '501': SOL_KEY, '0': P2WPKH },
    'nosol.eth': { '60': VITALIK }, // PublicResolver, ETH record only
    'empty.eth': {}, // PublicResolver, no records
    'legacy.eth': { legacyResolver: VITALIK }, // addr(bytes32) only: no multicoin profile
    'broken.eth': 'reverting-resolver',
    'offchain.eth': 'offchain-resolver',
    'eoa.eth': 'eoa-resolver',
  });
  ens = createEnsAdapter({ rpcUrl: node.url, timeoutMs: 2000 });
}, 20_000);
afterAll(() => node?.close());

describe('ENS adapter over JSON-RPC', () => {
  it('ENSIP-15 normalizes, then resolves ETH (checksummed), SOL (base58) and BTC (from the script)', async () => {
    expect(await ens.resolve('VITALIK.eth', 'ETH')).toEqual({ name: 'vitalik.eth', address: VITALIK, verified: false });
    expect((await ens.resolve('vitalik.eth', 'SOL')).address).toBe('29d2S7vB453rNYFdR5Ycwt7y9haRT5fwVwL9zTmBhfV2');
    expect((await ens.resolve('vitalik.eth', 'BTC')).address).toBe('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    expect(node.calls.at(-1)).toBe('vitalik.eth');
  });
  it('maps strict errors and empty answers to our codes', async () => {
    const notFound = (name: string) => ({
      status: 404,
      code: 'NAME_NOT_FOUND',
      message: `${name} is not registered (no resolver)`,
    });
    expect(await failure(ens.resolve('unknown.eth', 'ETH'))).toEqual(notFound('unknown.eth'));
    // a subname under a resolver without ENSIP-10 wildcard support: not found, never the parent's address
    expect(await failure(ens.resolve('sub.vitalik.eth', 'ETH'))).toEqual(notFound('sub.vitalik.eth'));
    expect(await failure(ens.resolve('eoa.eth', 'ETH'))).toEqual(notFound('eoa.eth')); // ResolverNotContract
    expect(await failure(ens.resolve('nosol.eth', 'SOL'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'nosol.eth has no SOL address',
    });
    expect(await failure(ens.resolve('nosol.eth', 'BTC'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'nosol.eth has no BTC address',
    });
    expect(await failure(ens.resolve('empty.eth', 'ETH'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'empty.eth has no ETH address',
    });
    expect(await ens.resolve('legacy.eth', 'ETH')).toEqual({ name: 'legacy.eth', address: VITALIK, verified: false });
    expect(await failure(ens.resolve('legacy.eth', 'BTC'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'legacy.eth has no BTC address (UnsupportedResolverProfile)',
    });
    expect(await failure(ens.resolve('broken.eth', 'ETH'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'broken.eth has no ETH address (ResolverError)',
    });
    expect(await failure(ens.resolve('offchain.eth', 'ETH'))).toEqual({
      status: 404,
      code: 'NO_RECORD_FOR_CHAIN',
      message: 'offchain.eth resolves off chain (CCIP-Read), which this deployment does not follow',
    });
    expect(await failure(ens.resolve('vitalik.eth', 'X1'))).toMatchObject({ status: 404, code: 'NO_RECORD_FOR_CHAIN' });
    expect(await failure(ens.resolve('bad name.eth', 'ETH'))).toMatchObject({ status: 400, code: 'INVALID_NAME' });
  });
  it('502 when the node is unreachable or failing', async () => {
    const unreachable = createEnsAdapter({ rpcUrl: 'http://127.0.0.1:1', timeoutMs: 500 });
    expect(await failure(unreachable.resolve('vitalik.eth', 'ETH'))).toEqual({
      status: 502,
      code: 'RPC_ERROR',
      message: 'the Ethereum RPC is unreachable',
    });
    node.down = true;
    try {
      expect(await failure(ens.resolve('vitalik.eth', 'ETH'))).toEqual({
        status: 502,
        code: 'RPC_ERROR',
        message: 'the Ethereum RPC is unreachable',
      });
    } finally {
      node.down = false;
    }
  });
  it('BTC scripts: P2PKH, P2SH, P2TR; unknown scripts refused', () => {
    const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
    expect(btcAddressFromScript(hex('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac'))).toBe(
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    );
    expect(btcAddressFromScript(hex('a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87'))).toBe(
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    );
    expect(btcAddressFromScript(hex('5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c'))).toBe(
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
    );
    expect(btcAddressFromScript(hex('6a0100'))).toBeNull();
  });
});
