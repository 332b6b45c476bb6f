import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import {
  agentManifestJsonSchema,
  AgentManifestV1Schema,
  coinTypeAddressProblem,
  discoverMcpEndpoint,
  formatIssuePath,
  normalizeCaip2,
  sameCaip2Network,
  sameCoinAddress,
  validateManifest,
  VALIDATE_NOTE,
} from './agents';

const HANDLE = '8mX76L5CgmVY1Eks7ucFupmhRy1YraFpmUpeiEcj6dJF';
const OTHER = 'So11111111111111111111111111111111111111112';

const good = () => ({
  sigil: { version: 1, name: 'scout', network: 'testnet', handle: HANDLE },
  identity: { description: 'finds things' },
  endpoints: [{ type: 'mcp', url: 'https://agents.example/scout/mcp' }],
  capabilities: { schema: 'https://schemas.example/caps.json', url: 'ipfs://bafy/caps.json' },
  payment: {
    addresses: [
      { coinType: 501, address: OTHER, verified: true },
      { coinType: 60, address: '0x52908400098527886E0F7030069857D2E4169EE7', verified: false },
      { coinType: 0, address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', verified: false },
    ],
    x402: { network: 'solana', asset: OTHER, scheme: 'exact', facilitator: 'https://facilitator.example' },
  },
  extension: { anything: true },
});

describe('validateManifest', () => {
  it('accepts a well-formed manifest for the handle, with the fixed note', () => {
    expect(validateManifest('@Scout', good(), { expectedNetwork: 'testnet', expectedHandleAccount: HANDLE })).toEqual({
      name: 'scout',
      handle: HANDLE,
      network: 'testnet',
      valid: true,
      errors: [],
      note: VALIDATE_NOTE,
    });
  });

  it('reports one path-addressed error per shape problem', () => {
    const m = good() as Record<string, any>;
    m.sigil = { version: 2, name: 'scout', network: 'main', handle: 'x', extra: 1 };
    m.endpoints = [{ type: 'mcp', url: 'http://agents.example/mcp' }];
    m.payment.addresses[0].address = 'not-base58!';
    m.payment.addresses[1].address = '0x52908400098527886E0F7030069857D2E4169Ee7'; // one letter's case flipped
    m.payment.addresses[2].verified = 'yes';
    m.payment.x402.network = 'not a chain';
    const r = validateManifest('scout', m);
    expect(r.valid).toBe(false);
    expect(r.handle).toBe('x');
    expect(r.network).toBe('main');
    expect(r.errors).toEqual([
      { path: 'sigil.version', message: 'must be 1' },
      { path: 'sigil.network', message: 'must be mainnet or testnet' },
      { path: 'sigil.handle', message: 'not a base58 32-byte address' },
      { path: 'sigil', message: 'unknown key(s): extra' },
      { path: 'endpoints[0].url', message: 'must be an https:// URL' },
      { path: 'payment.addresses[0].address', message: 'not a base58 32-byte address (coin type 501, SOL)' },
      { path: 'payment.addresses[1].address', message: 'EIP-55 checksum does not match (coin type 60, ETH)' },
      { path: 'payment.addresses[2].verified', message: 'Invalid input: expected boolean, received string' },
      { path: 'payment.x402.network', message: 'must be a CAIP-2 chain id (<namespace>:<reference>) or a known alias' },
    ]);
  });

  it('says what is missing, and refuses a non-object document at the root', () => {
    expect(validateManifest('scout', {}).errors).toEqual([{ path: 'sigil', message: 'is required' }]);
    expect(validateManifest('scout', { sigil: { version: 1 } }).errors).toEqual([
      { path: 'sigil.name', message: 'is required' },
      { path: 'sigil.network', message: 'is required' },
      { path: 'sigil.handle', message: 'is required' },
    ]);
    for (const doc of [null, 5, 'x', []]) {
      expect(validateManifest('scout', doc).errors).toEqual([
        { path: '(root)', message: 'the manifest must be a JSON object' },
      ]);
    }
  });

  it('checks identity: name, network, handle account, and verified claims no record could back', () => {
    const m = good();
    m.sigil.name = 'bob';
    m.payment.addresses.push({ coinType: 7, address: 'anything', verified: true });
    const r = validateManifest('scout', m, { expectedNetwork: 'mainnet', expectedHandleAccount: OTHER });
    expect(r.errors).toEqual([
      { path: 'sigil.name', message: 'names "bob", not "scout"' },
      { path: 'sigil.network', message: 'is testnet; this deployment is mainnet' },
      { path: 'sigil.handle', message: `is ${HANDLE}; the handle account of "scout" is ${OTHER}` },
      {
        path: 'payment.addresses[3].verified',
        message: 'coin type 7 has no on-chain address record that could verify it',
      },
    ]);
  });

  it('compares the declared name after normalization (leading @, ASCII case)', () => {
    const m = good();
    m.sigil.name = '@SCOUT';
    expect(validateManifest('scout', m).valid).toBe(true);
  });

  it('refuses a handle input that is not a handle with INVALID_HANDLE', () => {
    for (const bad of ['', 'no spaces', 'forge.xnt', 'a'.repeat(33)]) {
      expect(() => validateManifest(bad, good())).toThrow(ApiError);
      try {
        validateManifest(bad, good());
      } catch (err) {
        expect((err as ApiError).code).toBe('INVALID_HANDLE');
      }
    }
  });
});

describe('CAIP-2', () => {
  it('maps the documented aliases and cuts a full Solana genesis hash to 32 characters', () => {
    expect(normalizeCaip2('solana')).toBe('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
    expect(normalizeCaip2('solana-devnet')).toBe('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    expect(normalizeCaip2('solana:4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZ')).toBe('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
    expect(normalizeCaip2('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d')).toBe(
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    );
    expect(normalizeCaip2('base')).toBe('eip155:8453');
    expect(normalizeCaip2('eip155:1')).toBe('eip155:1');
    expect(normalizeCaip2('nonsense')).toBeNull();
    expect(normalizeCaip2('Solana:abc')).toBeNull();
  });

  it('compares exactly after mapping (case matters in the reference)', () => {
    expect(sameCaip2Network('solana', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBe(true);
    expect(sameCaip2Network('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'solana:5EYKT4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBe(
      false,
    );
    expect(sameCaip2Network('solana', 'solana-devnet')).toBe(false);
    expect(sameCaip2Network('x', 'x')).toBe(false);
  });
});

describe('coin types and addresses', () => {
  it('checks address formats per coin type, unknown coin types freely', () => {
    expect(coinTypeAddressProblem(501, OTHER)).toBeNull();
    expect(coinTypeAddressProblem(60, '0x52908400098527886e0f7030069857d2e4169ee7')).toBeNull();
    expect(coinTypeAddressProblem(60, '0x52908400098527886E0F7030069857D2E4169EE7')).toBeNull();
    expect(coinTypeAddressProblem(0, '1BoatSLRHtKNngkdXEeobR76b53LETtpyT')).toBeNull();
    expect(coinTypeAddressProblem(0, 'zz')).toBe('not a Bitcoin address (coin type 0, BTC)');
    expect(coinTypeAddressProblem(12345, 'whatever')).toBeNull();
  });
  it('compares hex and bech32 case-insensitively, base58 exactly', () => {
    expect(
      sameCoinAddress(60, '0xABCDEF0000000000000000000000000000000000', '0xabcdef0000000000000000000000000000000000'),
    ).toBe(true);
    expect(
      sameCoinAddress(0, 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'),
    ).toBe(true);
    expect(sameCoinAddress(501, OTHER, OTHER.toLowerCase())).toBe(false);
  });
});

describe('MCP discovery order', () => {
  it('prefers the agent.mcp record, then the first manifest endpoint of type mcp', () => {
    const manifest = {
      endpoints: [
        { type: 'a2a', url: 'https://a/a2a' },
        { type: 'mcp', url: 'https://a/m1' },
        { type: 'mcp', url: 'https://a/m2' },
      ],
    };
    expect(discoverMcpEndpoint({ mcp: 'https://record/mcp' }, manifest)).toBe('https://record/mcp');
    expect(discoverMcpEndpoint({}, manifest)).toBe('https://a/m1');
    expect(discoverMcpEndpoint({}, { endpoints: [] })).toBeNull();
    expect(discoverMcpEndpoint({}, null)).toBeNull();
  });
});

describe('JSON Schema export', () => {
  it('publishes the manifest at the root (draft 2020-12) with the required sigil block', () => {
    const schema = agentManifestJsonSchema() as any;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$ref).toBeUndefined();
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['sigil']);
    expect(schema.properties.sigil.required).toEqual(['version', 'name', 'network', 'handle']);
    expect(schema.properties.sigil.properties.version).toEqual({ type: 'number', const: 1 });
    expect(schema.properties.sigil.properties.network.enum).toEqual(['mainnet', 'testnet']);
    expect(schema.properties.sigil.additionalProperties).toBe(false);
    expect(schema.properties.payment.properties.addresses.items.required).toEqual(['coinType', 'address', 'verified']);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
  it('the schema object parses what the validator accepts', () => {
    expect(AgentManifestV1Schema.safeParse(good()).success).toBe(true);
  });
  it('formats issue paths', () => {
    expect(formatIssuePath(['payment', 'addresses', 0, 'address'])).toBe('payment.addresses[0].address');
    expect(formatIssuePath([])).toBe('(root)');
    expect(formatIssuePath([0])).toBe('[0]');
  });
});
