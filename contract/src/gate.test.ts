import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { canonicalBytes, parsePolicy, policyHash, POLICY_LIMITS, type PolicyNode } from './gate';

const WALLET = '11111111111111111111111111111111';

function refusal(raw: unknown): { code: string; message: string } {
  try {
    parsePolicy(raw);
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('accepted');
}

/** A chain of `not` nodes `depth` deep around one leaf. */
function nested(depth: number): unknown {
  let node: unknown = { 'wallet.in': { list: [WALLET] } };
  for (let i = 1; i < depth; i++) node = { not: node };
  return node;
}

describe('policy hash', () => {
  it('SHA-256 of the RFC 8785 canonical JSON: key order and spacing do not matter', () => {
    const a: PolicyNode = {
      atLeast: { of: [{ attestation: { platform: 'x', maxAgeSec: 60 } }, { 'wallet.in': { list: [WALLET] } }], n: 1 },
    };
    expect(new TextDecoder().decode(canonicalBytes(a))).toBe(
      '{"atLeast":{"n":1,"of":[{"attestation":{"maxAgeSec":60,"platform":"x"}},{"wallet.in":{"list":["11111111111111111111111111111111"]}}]}}',
    );
    expect(policyHash(a)).toBe('a5a1841a40f6133f02781c563aebbba266e6326e5e06e308d76c5743b0fd93a3');
    const reordered = JSON.parse(JSON.stringify({ atLeast: { n: 1, of: a.atLeast.of } }, null, 2)) as PolicyNode;
    expect(policyHash(reordered)).toBe(policyHash(a));
  });
});

describe('parsePolicy', () => {
  it('accepts every combinator and leaf', () => {
    const policy = {
      all: [
        { any: [{ 'handle.owned': {} }, { 'handle.owned': { handle: '@alice' } }] },
        { not: { 'handle.primary': { handle: 'alice' } } },
        { atLeast: { n: 2, of: [{ 'handle.type': { type: 'agent' } }, { 'record.verified': { chain: 'SOL' } }] } },
        { attestation: { platform: 'x', issuers: [WALLET], maxAgeSec: 86400 } },
        { 'agent.level': { min: 'L0' } },
        { 'token.balance': { mint: WALLET, min: '1000' } },
        { 'wallet.in': { list: [WALLET] } },
      ],
    };
    expect(parsePolicy(policy)).toBe(policy);
  });

  const rows: [string, unknown, string, string][] = [
    ['not an object', 'all', 'INVALID_POLICY', '/: a node is an object with exactly one key'],
    ['two keys', { all: [], any: [] }, 'INVALID_POLICY', '/: a node is an object with exactly one key'],
    [
      'unknown node',
      { some: [] },
      'INVALID_POLICY',
      '/: unknown node "some" (one of all, any, not, atLeast, handle.owned, handle.primary, handle.type, record.verified, attestation, agent.level, token.balance, wallet.in)',
    ],
    ['empty all', { all: [] }, 'INVALID_POLICY', '/all: must be a non-empty list of nodes'],
    [
      'atLeast n over its children',
      { atLeast: { n: 3, of: [nested(1), nested(1)] } },
      'INVALID_POLICY',
      '/atLeast/n: 3 is more than its 2 children',
    ],
    ['atLeast n zero', { atLeast: { n: 0, of: [nested(1)] } }, 'INVALID_POLICY', '/atLeast/n: must be an integer ≥ 1'],
    [
      'bad leaf parameter',
      { all: [{ 'token.balance': { mint: WALLET, min: '-1' } }] },
      'INVALID_POLICY',
      '/all/0/token.balance/min: must be a base-unit integer as a decimal string',
    ],
    [
      'unknown leaf parameter',
      { 'handle.type': { type: 'agent', extra: 1 } },
      'INVALID_POLICY',
      '/handle.type: Unrecognized key: "extra"',
    ],
    [
      'too deep',
      nested(POLICY_LIMITS.maxDepth + 1),
      'POLICY_TOO_DEEP',
      `${'/not'.repeat(POLICY_LIMITS.maxDepth)}: nesting deeper than 8`,
    ],
    [
      'too many children',
      { any: Array.from({ length: 33 }, () => nested(1)) },
      'POLICY_TOO_LARGE',
      '/any: more than 32 children',
    ],
    [
      'too many nodes',
      { all: Array.from({ length: 3 }, () => ({ all: Array.from({ length: 30 }, () => nested(1)) })) },
      'POLICY_TOO_LARGE',
      '/all/2/all/0: more than 64 nodes',
    ],
    [
      'too many bytes',
      { all: [1, 2].map(() => ({ 'wallet.in': { list: Array.from({ length: 1000 }, () => WALLET) } })) },
      'POLICY_TOO_LARGE',
      `/: canonical JSON over ${POLICY_LIMITS.maxBytes} bytes`,
    ],
    [
      'too many wallets',
      { 'wallet.in': { list: Array.from({ length: 1001 }, () => WALLET) } },
      'POLICY_TOO_LARGE',
      '/wallet.in/list: Too big: expected array to have <=1000 items',
    ],
  ];
  for (const [what, raw, code, message] of rows) {
    it(`${what} → 400 ${code}`, () => expect(refusal(raw)).toStrictEqual({ code, message }));
  }

  it('a hostile depth (100 000) is refused by the limit, never a stack overflow', () => {
    expect(refusal(nested(100_000)).code).toBe('POLICY_TOO_DEEP');
  });
  it('exactly the limits pass', () => {
    expect(() => parsePolicy(nested(POLICY_LIMITS.maxDepth))).not.toThrow();
  });
});
