import { describe, expect, it } from 'vitest';
import {
  AddressSchema,
  HealthSchema,
  NamespaceEntrySchema,
  NamespacesSchema,
  PublicErrorBodySchema,
  ResolutionSchema,
  ResolveInputSchema,
  ReverseInputSchema,
  ReverseResultSchema,
  V1ErrorBodySchema,
  V1HealthSchema,
  VersionSchema,
} from './public';

const WALLET = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

const resolution = {
  input: '@Alice',
  name: 'alice',
  namespace: 'handle',
  owner: WALLET,
  tokenized: false,
  verification: 'owner',
};

const reverse = { input: WALLET, address: WALLET, handle: 'alice' };

const v1Health = {
  status: 'ok',
  service: 'sigil',
  x402: false,
  rails: ['x1-native'],
  rpc: '127.0.0.1',
  program: PROGRAM,
};

const version = {
  service: 'sigil',
  version: '0.1.0',
  rpc: '127.0.0.1',
  program: PROGRAM,
  chain: { version: '2.2.0', genesisHash: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY', slot: 42 },
};

const namespaces = {
  namespaces: [
    { namespace: 'handle', source: 'sigil', configured: true },
    { namespace: 'x1', source: 'sigil', configured: true },
    { namespace: 'xnt', source: 'sigil', configured: true },
    { namespace: 'xen', source: 'sigil', configured: true },
    { namespace: 'sol', source: 'sns', configured: false },
    { namespace: 'eth', source: 'ens', configured: false },
  ],
};

const without = <T extends object>(obj: T, key: keyof T) => {
  const copy = { ...obj } as Record<string, unknown>;
  delete copy[key as string];
  return copy;
};

describe('ResolutionSchema', () => {
  it('parses a handle resolution and a tokenized domain resolution unchanged', () => {
    expect(ResolutionSchema.parse(resolution)).toEqual(resolution);
    const domain = {
      ...resolution,
      input: 'alice.x1',
      name: 'alice.x1',
      namespace: 'x1',
      tokenized: true,
      verification: 'nft-holder',
    };
    expect(ResolutionSchema.parse(domain)).toEqual(domain);
  });

  it('has exactly the six spec fields', () => {
    expect(Object.keys(ResolutionSchema.shape).sort()).toEqual([
      'input',
      'name',
      'namespace',
      'owner',
      'tokenized',
      'verification',
    ]);
  });

  it.each(Object.keys(resolution))('rejects a body missing %s', (key) => {
    expect(ResolutionSchema.safeParse(without(resolution, key as keyof typeof resolution)).success).toBe(false);
  });

  it('rejects extra fields (no addresses map, no expiry)', () => {
    expect(ResolutionSchema.safeParse({ ...resolution, addresses: {} }).success).toBe(false);
    expect(ResolutionSchema.safeParse({ ...resolution, expiresAt: 0 }).success).toBe(false);
  });

  it('rejects an unknown verification value and a non-address owner', () => {
    expect(ResolutionSchema.safeParse({ ...resolution, verification: 'wallet' }).success).toBe(false);
    expect(ResolutionSchema.safeParse({ ...resolution, owner: 'alice' }).success).toBe(false);
    expect(ResolutionSchema.safeParse({ ...resolution, tokenized: 'false' }).success).toBe(false);
  });
});

describe('ReverseResultSchema', () => {
  it('parses a literal body', () => {
    expect(ReverseResultSchema.parse(reverse)).toEqual(reverse);
  });
  it('rejects missing and extra fields', () => {
    expect(ReverseResultSchema.safeParse(without(reverse, 'handle')).success).toBe(false);
    expect(ReverseResultSchema.safeParse(without(reverse, 'input')).success).toBe(false);
    expect(ReverseResultSchema.safeParse({ ...reverse, owner: WALLET }).success).toBe(false);
    expect(ReverseResultSchema.safeParse({ ...reverse, address: 'not-base58!' }).success).toBe(false);
  });
});

describe('error bodies', () => {
  it('PublicErrorBodySchema accepts catalog texts with and without input', () => {
    expect(PublicErrorBodySchema.parse({ error: 'not found' })).toEqual({ error: 'not found' });
    expect(
      PublicErrorBodySchema.parse({ error: 'ambiguous: both a handle and a domain shape', input: '@alice.x1' }),
    ).toEqual({
      error: 'ambiguous: both a handle and a domain shape',
      input: '@alice.x1',
    });
  });
  it('PublicErrorBodySchema rejects unknown texts, missing error, and leaked internals', () => {
    expect(PublicErrorBodySchema.safeParse({ error: 'NOT_FOUND' }).success).toBe(false);
    expect(PublicErrorBodySchema.safeParse({ input: 'x' }).success).toBe(false);
    expect(PublicErrorBodySchema.safeParse({ error: 'not found', stack: 'at …' }).success).toBe(false);
    expect(PublicErrorBodySchema.safeParse({ error: 'invalid handle', input: 'a b', issues: [] }).success).toBe(false);
  });
  it('V1ErrorBodySchema accepts catalog codes only, exactly {code, message}', () => {
    expect(V1ErrorBodySchema.parse({ code: 'INVALID_KEY', message: 'invalid API key' })).toEqual({
      code: 'INVALID_KEY',
      message: 'invalid API key',
    });
    expect(V1ErrorBodySchema.safeParse({ code: 'UNAUTHORIZED', message: 'x' }).success).toBe(false);
    expect(V1ErrorBodySchema.safeParse({ code: 'INVALID_KEY' }).success).toBe(false);
    expect(V1ErrorBodySchema.safeParse({ code: 'INVALID_KEY', message: 'x', issues: [] }).success).toBe(false);
  });
});

describe('health and version', () => {
  it('HealthSchema is exactly {ok: true}', () => {
    expect(HealthSchema.parse({ ok: true })).toEqual({ ok: true });
    expect(HealthSchema.safeParse({ ok: false }).success).toBe(false);
    expect(HealthSchema.safeParse({ ok: true, status: 'ok' }).success).toBe(false);
  });

  it('V1HealthSchema parses a literal body and rejects missing/extra fields', () => {
    expect(V1HealthSchema.parse(v1Health)).toEqual(v1Health);
    for (const key of Object.keys(v1Health)) {
      expect(V1HealthSchema.safeParse(without(v1Health, key as keyof typeof v1Health)).success, key).toBe(false);
    }
    expect(V1HealthSchema.safeParse({ ...v1Health, db: 'ok' }).success).toBe(false);
    expect(V1HealthSchema.safeParse({ ...v1Health, service: 'svc' }).success).toBe(false);
    expect(V1HealthSchema.safeParse({ ...v1Health, x402: 'false' }).success).toBe(false);
  });

  it('VersionSchema parses a literal body and rejects missing/extra fields', () => {
    expect(VersionSchema.parse(version)).toEqual(version);
    expect(VersionSchema.safeParse(without(version, 'chain')).success).toBe(false);
    expect(VersionSchema.safeParse({ ...version, chain: { ...version.chain, slot: -1 } }).success).toBe(false);
    expect(VersionSchema.safeParse({ ...version, chain: without(version.chain, 'genesisHash') }).success).toBe(false);
    expect(VersionSchema.safeParse({ ...version, chain: { ...version.chain, extra: 1 } }).success).toBe(false);
    expect(VersionSchema.safeParse({ ...version, node: 'x' }).success).toBe(false);
  });
});

describe('namespaces', () => {
  it('parses the full literal list', () => {
    expect(NamespacesSchema.parse(namespaces)).toEqual(namespaces);
  });
  it('rejects unknown namespaces or sources, and missing/extra fields', () => {
    expect(NamespaceEntrySchema.safeParse({ namespace: 'btc', source: 'sigil', configured: true }).success).toBe(false);
    expect(NamespaceEntrySchema.safeParse({ namespace: 'sol', source: 'svc', configured: true }).success).toBe(false);
    expect(NamespaceEntrySchema.safeParse({ namespace: 'sol', source: 'sns' }).success).toBe(false);
    expect(
      NamespaceEntrySchema.safeParse({ namespace: 'sol', source: 'sns', configured: false, rpc: 'x' }).success,
    ).toBe(false);
    expect(NamespacesSchema.safeParse({ namespaces: namespaces.namespaces, total: 6 }).success).toBe(false);
  });
});

describe('inputs', () => {
  it('accept any string (grammar errors are the service’s, with the spec’s messages)', () => {
    expect(ResolveInputSchema.parse({ name: '@@a b' })).toEqual({ name: '@@a b' });
    expect(ReverseInputSchema.parse({ address: 'nope' })).toEqual({ address: 'nope' });
  });
  it('reject a missing or non-string value', () => {
    expect(ResolveInputSchema.safeParse({}).success).toBe(false);
    expect(ReverseInputSchema.safeParse({ address: 1 }).success).toBe(false);
  });
  it('AddressSchema accepts only 32-byte base58', () => {
    expect(AddressSchema.safeParse(WALLET).success).toBe(true);
    expect(AddressSchema.safeParse('11111111111111111111111111111111').success).toBe(true);
    expect(AddressSchema.safeParse('0x1234').success).toBe(false);
  });
});
